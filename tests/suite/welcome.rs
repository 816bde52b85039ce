//! `./workshop` with no command: a greeting that says what this is, lists the lessons with the
//! learner's progress and names the one command to run next, with exit 0.

use crate::common::*;

fn greeting(w: &Workshop) -> String {
    let run = w.run(&[]);
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    assert_eq!(run.stderr, "");
    run.stdout.clone()
}

#[test]
fn no_command_greets_lists_the_lessons_and_names_the_next_command() {
    let w = Workshop::foundations();
    let out = greeting(&w);
    insta::assert_snapshot!("welcome_fresh", out);
    let words = flat(&out);
    assert!(words.contains("Hands-on lessons about building reliable AI agents"), "{out}");
    assert!(out.contains("structured-errors  Structured tool errors"), "{out}");
    assert!(out.contains("uncertain-state"), "{out}");
    // The course's first lesson comes first.
    assert!(out.contains("Next: ./workshop start tool-results"), "{out}");
    assert!(!w.path("work/.progress.json").exists(), "the greeting writes nothing");
}

#[test]
fn the_next_command_follows_the_learner() {
    let w = Workshop::foundations();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    assert!(greeting(&w).contains("Next: ./workshop check structured-errors"), "{}", greeting(&w));
    w.work_file_from("good_dataclass.py");
    assert_eq!(w.run(&["check", "structured-errors"]).code, 0);
    // Lesson 5 done: the first lesson never green is next, in course order.
    let out = greeting(&w);
    assert!(out.contains("Next: ./workshop start tool-results"), "{out}");
    assert!(out.contains("structured-errors  Structured tool errors              done"), "{out}");

    let last = Workshop::only("uncertain-state");
    assert_eq!(last.run(&["start", "uncertain-state"]).code, 0);
    last.write("work/uncertain-state/refunds.py", &last.read("lessons/uncertain-state/solution/refunds.py"));
    assert_eq!(last.run(&["check"]).code, 0);
    assert!(greeting(&last).contains("Every lesson is done."), "{}", greeting(&last));
}

#[test]
fn help_and_version_still_answer() {
    let w = Workshop::new();
    let help = w.run(&["--help"]);
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("Usage: workshop [OPTIONS] [COMMAND]"), "{}", help.stdout);
    assert_eq!(w.run(&["--version"]).code, 0);
    assert_eq!(w.run(&["--color", "never"]).code, 0, "global options alone greet too");
}

#[test]
fn the_note_on_the_lesson_meant_names_the_command_that_ran() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let run = w.run(&["hint"]);
    let words = flat(&run.stderr);
    assert!(words.contains("Name another to switch, such as ./workshop hint "), "{}", run.stderr);
    assert!(!words.contains("./workshop check"), "{}", run.stderr);
}
