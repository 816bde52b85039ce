//! A score that never lies: for every lesson, each mistake file of the tests passes none of the
//! checks its mistake concerns that the starter fails, so fixing the starter the wrong way never
//! raises the score. A mistake file under tests/fixtures/learners/ says, in its first lines,
//! which lesson it is for and which checks its mistake concerns:
//!
//! ```text
//! # lesson: structured-errors
//! # concerns: fail-flags-failure, harness-old-order
//! ```
//!
//! Lesson 4's mistakes are listed with the one check each breaks in its own tests (lesson4.rs).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::*;

/// A mistake file: its name, where it is (under tests/fixtures/learners/ when `None`), its
/// lesson, and the checks its mistake concerns.
struct Mistake {
    name: String,
    path: Option<String>,
    lesson: String,
    concerns: Vec<String>,
}

/// Files named like a mistake must say what they concern, so a new one cannot slip by untested.
fn named_like_a_mistake(name: &str) -> bool {
    ["bug_", "teach_", "l6_"].iter().any(|p| name.starts_with(p))
}

fn mistakes() -> Vec<Mistake> {
    let dir = repo().join("tests/fixtures/learners");
    let mut found = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let text = std::fs::read_to_string(dir.join(&name)).unwrap();
        let header =
            |key: &str| text.lines().take(3).find_map(|l| l.strip_prefix(key)).map(str::trim);
        match (header("# lesson:"), header("# concerns:")) {
            (Some(lesson), Some(concerns)) => found.push(Mistake {
                name,
                path: None,
                lesson: lesson.to_string(),
                concerns: concerns
                    .split(',')
                    .map(|c| c.trim().to_string())
                    .filter(|c| !c.is_empty())
                    .collect(),
            }),
            _ => assert!(
                !named_like_a_mistake(&name) || text.starts_with("# Correct"),
                "{name} is named like a mistake but has no `# lesson:` and `# concerns:` lines"
            ),
        }
    }
    for (file, check, _) in crate::lesson4::ONE_RULE_BROKEN {
        let path = match file.strip_prefix('@') {
            Some(mistake) => format!("{}/{mistake}", crate::lesson4::MISTAKES),
            None => repo().join(crate::lesson4::FIXTURES).join(file).display().to_string(),
        };
        let (name, lesson) = (file.to_string(), "tool-results".to_string());
        found.push(Mistake { name, path: Some(path), lesson, concerns: vec![check.to_string()] });
    }
    found
}

/// Each check's status, by id.
fn statuses(w: &Workshop, lesson: &str, file: &str) -> BTreeMap<String, String> {
    let run = w.run(&["check", lesson, "--file", file, "--format", "json"]);
    run.gave_a_verdict(file);
    let report: Value = run.json();
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["id"].as_str().unwrap().to_string(), c["status"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn no_mistake_passes_a_check_it_concerns_that_the_starter_fails() {
    let w = Workshop::new();
    let all = mistakes();
    // Every lesson a mistake file is for, each with its starter file (named by its manifest's
    // `file`). A lesson with no mistake files yet (one just added) is not this test's business.
    let mut ids: Vec<&str> = all.iter().map(|m| m.lesson.as_str()).collect();
    ids.sort();
    ids.dedup();
    let lessons: Vec<(String, String)> = ids
        .iter()
        .map(|id| {
            let manifest: toml::Value = toml::from_str(
                &std::fs::read_to_string(repo().join("lessons").join(id).join("lesson.toml"))
                    .unwrap(),
            )
            .unwrap();
            let file = manifest["file"].as_str().unwrap().to_string();
            (id.to_string(), format!("starter/{id}/{file}"))
        })
        .collect();
    // The lessons these tests were written for keep their mistakes.
    for lesson in FOUNDATIONS {
        assert!(
            all.iter().filter(|m| m.lesson == lesson).count() >= 4,
            "too few mistake files for {lesson}"
        );
    }
    let starters: BTreeMap<String, _> = map_at_once(&lessons, |(lesson, starter)| {
        (lesson.to_string(), statuses(&w, lesson, starter))
    })
    .into_iter()
    .collect();
    let of_mistakes = map_at_once(&all, |mistake| {
        let file = mistake.path.clone().unwrap_or_else(|| w.learner(&mistake.name));
        statuses(&w, &mistake.lesson, &file)
    });
    let mut wrong = Vec::new();
    for (mistake, mine) in all.iter().zip(of_mistakes) {
        let starter = starters
            .get(&mistake.lesson)
            .unwrap_or_else(|| panic!("{}: unknown lesson", mistake.name));
        assert!(!mistake.concerns.is_empty(), "{} concerns no check", mistake.name);
        let (mut ours, mut theirs) = (0, 0);
        for id in &mistake.concerns {
            let (Some(me), Some(them)) = (mine.get(id), starter.get(id)) else {
                panic!("{}: there is no check {id} in {}", mistake.name, mistake.lesson)
            };
            ours += usize::from(me == "pass");
            theirs += usize::from(them == "pass");
            if me == "pass" && them != "pass" {
                wrong.push(format!("{} passes {id}, which the starter fails", mistake.name));
            }
        }
        assert!(
            ours <= theirs || !wrong.is_empty(),
            "{}: {ours} of its checks pass, the starter's {theirs}",
            mistake.name
        );
    }
    assert!(wrong.is_empty(), "a mistake raised the score:\n{}", wrong.join("\n"));
}

/// The shapes that are no error at all get advice to return a dictionary, on the first check
/// they fail and on the ticket checks that once took them for a success.
#[test]
fn a_failure_that_is_not_a_dictionary_is_told_to_return_one() {
    let w = Workshop::lesson5();
    for name in
        ["bug_fail_returns_string.py", "bug_fail_returns_none.py", "bug_fail_returns_list.py"]
    {
        let file = w.learner(name);
        let run = w.run(&["check", "--file", &file, "--format", "json"]);
        let report = run.json();
        for id in
            ["fail-flags-failure", "harness-old-order", "harness-wrong-id", "harness-not-yours"]
        {
            let check =
                report["checks"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap();
            assert_eq!(check["status"], "fail", "{name} {id}: {check}");
            assert_eq!(check["guidance"]["mistake"], "Not a dictionary", "{name} {id}: {check}");
        }
        let text = w.run(&["check", "--file", &file]);
        let words = flat(&text.stdout);
        assert!(
            words.contains("likely Not a dictionary. Return a dictionary"),
            "{name}:\n{}",
            text.stdout
        );
        assert!(!words.contains("No failure flag"), "{name}:\n{}", text.stdout);
    }
    let w6 = Workshop::only("uncertain-state");
    let file = w6.learner("l6_fail_returns_string.py");
    let report = w6.run(&["check", "--file", &file, "--format", "json"]).json();
    assert_eq!(report["checks"][0]["guidance"]["mistake"], "not a dictionary", "{report}");
}

/// The issue's path: a plain-string `fail` on top of the starter took lesson 5 from 2 to 4 of 14.
#[test]
fn the_bare_word_instead_of_a_dictionary_scores_below_the_starter() {
    let w = Workshop::lesson5();
    let starter = w
        .run(&["check", "--file", "starter/structured-errors/errors.py", "--format", "json"])
        .json();
    let file = w.learner("bug_starter_fail_returns_string.py");
    let mistake = w.run(&["check", "--file", &file, "--format", "json"]).json();
    assert_eq!(starter["passed"], 2, "{starter}");
    assert!(mistake["passed"].as_u64() <= starter["passed"].as_u64(), "{mistake}");
    let old = mistake["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "harness-old-order")
        .unwrap();
    assert_eq!(old["status"], "fail", "{old}");
    assert_eq!(old["message"], "failed: expected True, got False", "{old}");
}
