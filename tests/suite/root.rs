//! Finding the workshop root: upward from the current folder, or `--root` / `WORKSHOP_ROOT`.

use crate::common::*;

#[test]
fn root_is_found_from_a_subfolder() {
    let w = Workshop::new();
    std::fs::create_dir_all(w.path("work/structured-errors/deeper")).unwrap();
    let mut cmd = w.command(&["start", "structured-errors"]);
    cmd.current_dir(w.path("work/structured-errors/deeper"));
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(w.path("work/structured-errors/errors.py").is_file());
}

#[test]
fn root_flag_points_at_a_workshop_elsewhere() {
    let w = Workshop::new();
    let elsewhere = tempdir();
    let root = w.root().to_str().unwrap().to_string();
    let mut cmd = w.command(&["--root", &root, "start", "structured-errors"]);
    cmd.current_dir(elsewhere.path());
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(w.path("work/structured-errors/errors.py").is_file());
}

#[test]
fn root_comes_from_workshop_root_in_the_environment() {
    let w = Workshop::new();
    let elsewhere = tempdir();
    let mut cmd = w.command(&[
        "check",
        "structured-errors",
        "--format",
        "json",
        "--file",
        "lessons/structured-errors/solution/errors.py",
    ]);
    cmd.current_dir(elsewhere.path()).env("WORKSHOP_ROOT", w.root());
    // --file is relative to the current folder, not the root.
    let missing = run(cmd);
    assert_eq!(missing.code, 2, "{}", missing.stdout);
    assert!(
        missing.stderr.contains("there is no file at ")
            && missing.stderr.contains("check the path given to --file"),
        "{}",
        missing.stderr
    );
    let mut cmd = w.command(&["start", "structured-errors"]);
    cmd.current_dir(elsewhere.path()).env("WORKSHOP_ROOT", w.root());
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(w.path("work/structured-errors/errors.py").is_file());
}

#[test]
fn root_flag_wins_over_the_environment() {
    let w = Workshop::new();
    let not_a_workshop = tempdir();
    let root = w.root().to_str().unwrap().to_string();
    let mut cmd = w.command(&["--root", &root, "list"]);
    cmd.env("WORKSHOP_ROOT", not_a_workshop.path());
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("structured-errors"), "{}", run.stdout);
}

#[test]
fn root_that_is_not_a_workshop_is_refused_with_what_to_do() {
    let w = Workshop::new();
    let not_a_workshop = tempdir();
    let mut cmd = w.command(&["list"]);
    cmd.env("WORKSHOP_ROOT", not_a_workshop.path());
    let run = run(cmd);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("is not a workshop: it has no lessons/ folder"), "{}", run.stderr);
}

#[test]
fn no_workshop_above_the_current_folder_says_to_pass_root() {
    let w = Workshop::new();
    let outside = tempdir();
    let mut cmd = w.command(&["list"]);
    cmd.current_dir(outside.path());
    let run = run(cmd);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--root DIR"), "{}", run.stderr);
}
