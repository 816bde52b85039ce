//! `workshop init [DIR]`: a course folder written from a workshop (here the test's root, as from
//! a clone; the wheel's binary, which carries its course, is tried by tests/wheel.sh), where
//! every command then works, and which init never writes over.

use std::path::Path;
use std::process::Command;

use crate::common::*;

/// `init` with `args`, run from the workshop's root (the course it copies).
fn init(w: &Workshop, args: &[&str]) -> Run {
    let mut all = vec!["init"];
    all.extend_from_slice(args);
    w.run(&all)
}

/// A command run inside `dir` (a course folder), found from there as a learner's would be.
fn inside(w: &Workshop, dir: &Path, args: &[&str]) -> Run {
    let mut cmd = w.command(args);
    cmd.current_dir(dir);
    run(cmd)
}

fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path.display().to_string());
        }
    }
    found.sort();
    found
}

#[test]
fn init_writes_a_course_folder_where_start_and_check_work() {
    let w = Workshop::new();
    // The developer's own work and caches stay out of the learner's folder.
    w.write("work/tool-results/results.py", "mine\n");
    w.write("worlds/lumen/__pycache__/world.cpython-311.pyc", "cache");
    let out = tempdir();
    let course = out.path().join("my course");
    let made = init(&w, &[course.to_str().unwrap()]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    // Every lesson of the repository, however many it holds.
    let lessons = std::fs::read_dir(repo().join("lessons")).unwrap().flatten();
    let count = lessons.filter(|e| e.path().join("lesson.toml").is_file()).count();
    let wrote = format!("Wrote a course of {count} lessons into ");
    assert!(made.stdout.contains(&wrote), "{}", made.stdout);
    assert!(made.stdout.contains("start tool-results"), "the first lesson next: {}", made.stdout);

    for part in ["lessons", "starter", "recordings", "worlds"] {
        let theirs: Vec<String> = files_under(&w.path(part))
            .iter()
            .filter(|f| !f.contains("__pycache__"))
            .map(|f| f.strip_prefix(w.root().to_str().unwrap()).unwrap().to_string())
            .collect();
        let ours: Vec<String> = files_under(&course.join(part))
            .iter()
            .map(|f| f.strip_prefix(course.to_str().unwrap()).unwrap().to_string())
            .collect();
        assert_eq!(ours, theirs, "{part}/ is copied whole, caches left out");
    }
    let gitkeep = course.join("work/.gitkeep").display().to_string();
    assert_eq!(files_under(&course.join("work")), vec![gitkeep]);
    let readme = std::fs::read_to_string(course.join("README.md")).unwrap();
    assert!(readme.contains("workshop start tool-results"), "{readme}");

    let started = inside(&w, &course, &["start", "tool-results"]);
    assert_eq!(started.code, 0, "{}", started.stderr);
    assert!(course.join("work/tool-results/results.py").is_file());
    let failing = inside(&w, &course, &["check"]);
    assert_eq!(failing.code, 1, "the starter fails its checks: {}", failing.stdout);
    let note = "(lesson tool-results: the one you started last.";
    assert!(failing.stderr.contains(note), "{}", failing.stderr);
    let solution = course.join("lessons/tool-results/solution/results.py");
    std::fs::copy(solution, course.join("work/tool-results/results.py")).unwrap();
    let passing = inside(&w, &course.join("work/tool-results"), &["check", "tool-results"]);
    assert_eq!(passing.code, 0, "{}\n{}", passing.stdout, passing.stderr);
    // The workshop the course came from is untouched.
    assert_eq!(w.read("work/tool-results/results.py"), "mine\n");
}

#[test]
fn init_with_no_folder_named_writes_workshop_course_here() {
    let w = Workshop::new();
    let made = init(&w, &[]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    assert!(made.stdout.contains("cd workshop-course\n"), "{}", made.stdout);
    assert!(w.path("workshop-course/lessons/tool-results/lesson.toml").is_file());
}

#[test]
fn init_writes_into_an_empty_folder() {
    let w = Workshop::new();
    let out = tempdir();
    let made = init(&w, &[out.path().to_str().unwrap()]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    assert!(out.path().join("lessons/tool-results/lesson.toml").is_file());
}

#[test]
fn init_refuses_a_folder_with_files_in_it_and_adds_nothing() {
    let w = Workshop::new();
    let out = tempdir();
    std::fs::write(out.path().join("notes.txt"), "my notes\n").unwrap();
    let refused = init(&w, &[out.path().to_str().unwrap()]);
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    assert!(
        flat(&refused.stderr).contains("is not empty, and init writes a course only into a new"),
        "{}",
        refused.stderr
    );
    assert_eq!(files_under(out.path()), vec![out.path().join("notes.txt").display().to_string()]);
    assert_eq!(std::fs::read_to_string(out.path().join("notes.txt")).unwrap(), "my notes\n");
}

#[test]
fn init_never_writes_over_a_course_folder_or_the_edits_in_it() {
    let w = Workshop::new();
    let out = tempdir();
    let course = out.path().join("course");
    assert_eq!(init(&w, &[course.to_str().unwrap()]).code, 0);
    assert_eq!(inside(&w, &course, &["start", "tool-results"]).code, 0);
    let work = course.join("work/tool-results/results.py");
    std::fs::write(&work, "# my edits\n").unwrap();
    std::fs::write(course.join("lessons/tool-results/lesson.md"), "changed").unwrap();
    std::fs::remove_file(course.join("README.md")).unwrap();

    let again = init(&w, &[course.to_str().unwrap()]);
    assert_eq!(again.code, 1, "{}", again.stdout);
    assert!(
        flat(&again.stderr).contains("is a course folder already, and init never writes over one"),
        "{}",
        again.stderr
    );
    assert_eq!(std::fs::read_to_string(&work).unwrap(), "# my edits\n");
    let text = std::fs::read_to_string(course.join("lessons/tool-results/lesson.md")).unwrap();
    assert_eq!(text, "changed");
    assert!(!course.join("README.md").exists(), "not even a missing file is put back");
}

#[test]
fn init_refuses_a_file_where_the_folder_would_go() {
    let w = Workshop::new();
    w.write("taken", "a file\n");
    let refused = init(&w, &["taken"]);
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert!(refused.stderr.contains("taken is there and is not a folder"), "{}", refused.stderr);
    assert_eq!(w.read("taken"), "a file\n");
}

#[test]
fn init_refuses_a_folder_inside_the_course_it_copies() {
    let w = Workshop::new();
    let refused = init(&w, &["lessons/../lessons/mine"]);
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert!(refused.stderr.contains("inside the course's own lessons/"), "{}", refused.stderr);
    assert!(!w.path("lessons/mine").exists());
}

#[test]
fn init_with_no_course_to_copy_says_where_one_is() {
    let w = Workshop::new();
    let nowhere = tempdir();
    let mut cmd = w.command(&["init"]);
    cmd.current_dir(nowhere.path());
    let failed = run(cmd);
    assert_eq!(failed.code, 2, "{}", failed.stdout);
    assert!(flat(&failed.stderr).contains("carries no course of its own"), "{}", failed.stderr);
    assert!(!nowhere.path().join("workshop-course").exists());
}

#[test]
fn a_failed_init_leaves_no_half_course_behind() {
    let w = Workshop::new();
    let out = tempdir();
    let course = out.path().join("course");
    // Files over 8 KB cannot be written (ulimit -f counts 512-byte blocks): a recording is larger.
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "ulimit -f 16 && exec \"$0\" init \"$1\"", BIN, course.to_str().unwrap()])
        .current_dir(w.root())
        .env_remove("WORKSHOP_ROOT");
    w.at_home(&mut cmd);
    let failed = run(cmd);
    assert_eq!(failed.code, 2, "{}", failed.stdout);
    assert!(flat(&failed.stderr).contains("could not write the course into"), "{}", failed.stderr);
    assert!(failed.stderr.contains("none of it is left there"), "{}", failed.stderr);
    assert!(!course.exists(), "the half-written folder is gone");
}

#[test]
fn run_from_path_messages_name_the_command_as_typed() {
    let w = Workshop::new();
    let out = tempdir();
    let course = out.path().join("course");
    assert_eq!(init(&w, &[course.to_str().unwrap()]).code, 0);
    // Found on PATH, as a wheel's `workshop` is: the shell passes the name as typed.
    let bin_dir = Path::new(BIN).parent().unwrap();
    let mut typed = Command::new("workshop");
    typed
        .args(["start", "tool-results"])
        .current_dir(&course)
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
        .env("WORKSHOP_PYTHON", python())
        .env_remove("WORKSHOP_ROOT");
    w.at_home(&mut typed);
    let started = run(typed);
    assert_eq!(started.code, 0, "{}", started.stderr);
    assert!(started.stdout.contains("workshop check tool-results"), "{}", started.stdout);
    assert!(!started.stdout.contains("./workshop"), "no launcher here: {}", started.stdout);
}
