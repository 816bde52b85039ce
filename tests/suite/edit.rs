//! `--edit` on start, check and hint: the work file opens in $VISUAL or $EDITOR.

use crate::common::*;

/// An "editor" that records the file it was given, and for `check` makes the file pass.
fn editor(w: &Workshop) -> String {
    let log = w.path("editor.log");
    let solution = w.path("lessons/structured-errors/solution/errors.py");
    let script = format!(
        "#!/bin/sh\necho \"$1\" >> '{}'\ncase \"$1\" in *errors.py) cp '{}' \"$1\";; esac\n",
        log.display(),
        solution.display()
    );
    w.write("fake-editor.sh", &script);
    let path = w.path("fake-editor.sh");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    path.display().to_string()
}

#[test]
fn start_edit_opens_the_work_file_in_the_editor() {
    let w = Workshop::new();
    let ed = editor(&w);
    let mut cmd = w.command(&["start", "structured-errors", "--edit"]);
    cmd.env("EDITOR", &ed).env_remove("VISUAL");
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        w.read("editor.log").trim().ends_with("work/structured-errors/errors.py"),
        "{}",
        w.read("editor.log")
    );
}

#[test]
fn check_edit_grades_the_file_as_the_editor_left_it() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let ed = editor(&w);
    let mut cmd = w.command(&["check", "--edit"]);
    // VISUAL wins over EDITOR.
    cmd.env("VISUAL", &ed).env("EDITOR", "false");
    let run = run(cmd);
    assert_eq!(run.code, 0, "the editor made the file pass:\n{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("(lesson structured-errors: the one you started last."),
        "{}",
        run.stderr
    );
}

#[test]
fn edit_without_an_editor_says_how_to_set_one() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let mut cmd = w.command(&["hint", "--edit"]);
    cmd.env_remove("VISUAL").env_remove("EDITOR");
    let run = run(cmd);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("VISUAL or EDITOR"), "{}", run.stderr);
}
