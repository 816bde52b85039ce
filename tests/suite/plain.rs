//! Every lesson, from its manifest: the starter fails, the reference fix passes and every named
//! mistake fails, each graded on the fast path and on the plain one (`WORKSHOP_PLAIN`: no Python
//! warmed up ahead, no cores kept, no question asked of the world before it is due) with the same
//! report, word for word. A class graded side by side and a replay mean the same either way too.

use serde_json::Value;

use crate::common::*;

/// A lesson as its manifest names it: its id, its work file and its named mistakes' files.
struct Listed {
    id: String,
    file: String,
    mistakes: Vec<(String, String)>,
}

fn lessons() -> Vec<Listed> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(repo().join("lessons")).unwrap().flatten() {
        let Ok(text) = std::fs::read_to_string(entry.path().join("lesson.toml")) else { continue };
        let manifest: toml::Table = text.parse().unwrap();
        let mistakes =
            manifest.get("mistakes").and_then(|m| m.as_array()).cloned().unwrap_or_default();
        found.push(Listed {
            id: entry.file_name().to_string_lossy().into_owned(),
            file: manifest["file"].as_str().unwrap().to_string(),
            mistakes: mistakes
                .iter()
                .map(|m| {
                    (
                        m["label"].as_str().unwrap().to_string(),
                        m["file"].as_str().unwrap().to_string(),
                    )
                })
                .collect(),
        });
    }
    found.sort_by(|a, b| a.id.cmp(&b.id));
    assert!(found.len() >= 5, "the repository's lessons: {}", found.len());
    found
}

/// `args` run on the fast path and on the plain one: the same exit and the same output.
fn both_ways(w: &Workshop, args: &[&str]) -> Run {
    let start = |plain: bool| {
        // `grade` with the interpreter a submission may run (see `grade::command`), in a
        // temporary folder its user may enter.
        let mut cmd =
            if args[0] == "grade" { crate::grade::command(w, args) } else { w.command(args) };
        if plain {
            cmd.env("WORKSHOP_PLAIN", "1");
        }
        run(cmd)
    };
    let (fast, plain) = (start(false), start(true));
    assert_eq!(fast.code, plain.code, "{args:?}: {}\n{}", fast.stderr, plain.stderr);
    assert_eq!(fast.stdout, plain.stdout, "{args:?} differs on the plain path");
    // All but the time `grade` took.
    let said = |run: &Run| {
        let text =
            run.stderr.text().lines().filter(|l| !l.starts_with("graded ")).collect::<Vec<_>>();
        (run.stderr.contains(""), text.join("\n"))
    };
    assert_eq!(said(&fast), said(&plain), "{args:?} says other things on the plain path");
    fast
}

fn status(run: &Run) -> Value {
    run.json()["status"].clone()
}

#[test]
fn every_lesson_grades_its_starter_fix_and_mistakes_the_same_on_the_fast_and_plain_paths() {
    each_at_once(&lessons(), |lesson| {
        let w = Workshop::only(&lesson.id);
        let dir = repo().join("lessons").join(&lesson.id);
        let starter = repo().join("starter").join(&lesson.id).join(&lesson.file);
        let solution = dir.join("solution").join(&lesson.file);
        w.write("class/starter.py", &std::fs::read_to_string(starter).unwrap());
        w.write("class/solution.py", &std::fs::read_to_string(solution).unwrap());
        let check =
            |file: &str| both_ways(&w, &["check", &lesson.id, "--file", file, "--format", "json"]);
        assert_eq!(status(&check("class/starter.py")), "fail", "{}: the starter", lesson.id);
        assert_eq!(status(&check("class/solution.py")), "pass", "{}: the fix", lesson.id);
        for (label, file) in &lesson.mistakes {
            let shown = format!("class/{label}.py");
            w.write(&shown, &std::fs::read_to_string(dir.join(file)).unwrap());
            assert_eq!(status(&check(&shown)), "fail", "{}: the mistake {label}", lesson.id);
        }
        // The whole class at once, files side by side, and a replay of the fix.
        let class =
            both_ways(&w, &["grade", &lesson.id, "class", "--jobs", "2", "--format", "jsonl"]);
        assert!(class.code == 0 && class.stderr.contains("graded "), "{}", class.stderr);
        let replay =
            both_ways(&w, &["watch", &lesson.id, "--code", "solution", "--format", "json"]);
        assert_eq!(replay.code, 0, "{}: {}", lesson.id, replay.stderr);
    });
}
