//! Run from a folder inside the workshop, messages name commands and paths that work from there.

use crate::common::*;

#[test]
fn from_the_lesson_folder_commands_and_paths_work_where_the_learner_is() {
    let w = Workshop::lesson5();
    // The launcher's place decides how the command is named; its content does not matter here.
    w.write("workshop", "#!/bin/sh\n");
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let mut cmd = w.command(&["check"]);
    cmd.current_dir(w.path("work/structured-errors"));
    let run = run(cmd);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let flat = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "Next: fix fail-flags-failure in errors.py, then run ../../workshop check structured-errors again."
        ),
        "{}",
        run.stdout
    );
    assert!(!flat.contains(" ./workshop"), "{}", run.stdout);

    // From the root, as before.
    let root = w.run(&["check"]);
    let flat = root.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("in work/structured-errors/errors.py, then run ./workshop check structured-errors again."),
        "{}",
        root.stdout
    );
}
