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

#[test]
fn from_the_lesson_folder_the_learners_own_output_is_never_rewritten() {
    let w = Workshop::lesson5();
    w.write("workshop", "#!/bin/sh\n");
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let path = "work/structured-errors/errors.py";
    let said = "    print('run ./workshop check, or `./workshop hint`')\n";
    let text = w.read(path).replace(
        "    return {\"error\": {\"message\": \"Error\"}}\n",
        &format!("{said}    return {{\"error\": {{\"message\": \"Error\"}}}}\n"),
    );
    w.write(path, &text);
    let mut cmd = w.command(&["check"]);
    cmd.current_dir(w.path("work/structured-errors"));
    let run = run(cmd);
    assert_eq!(run.code, 1, "{}", run.stderr);
    // The learner's print as it was; the workshop's own hint made to work from here.
    assert!(
        run.stdout.contains("  printed   run ./workshop check, or `./workshop hint`\n"),
        "{}",
        run.stdout
    );
    assert!(
        flat(&run.stdout).contains("then run ../../workshop check structured-errors again."),
        "{}",
        run.stdout
    );
    let mut cmd = w.command(&["check", "--format", "json"]);
    cmd.current_dir(w.path("work/structured-errors"));
    let json = crate::common::run(cmd);
    let output = json.json()["checks"][0]["output"].as_str().unwrap_or_default().to_string();
    assert_eq!(output, "run ./workshop check, or `./workshop hint`\n", "{}", json.stdout);
}
