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
    last.write(
        "work/uncertain-state/refunds.py",
        &last.read("lessons/uncertain-state/solution/refunds.py"),
    );
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

#[test]
fn the_note_on_the_lesson_meant_comes_once_per_switch_of_lesson() {
    let w = Workshop::foundations();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let said = |id: &str| format!("(lesson {id}: the one you started last.");
    let noted = |run: &Run| run.stderr.contains(&said("structured-errors"));
    let first = w.run(&["hint"]);
    assert!(noted(&first), "the first command that infers the lesson says which: {}", first.stderr);
    for args in [["hint"], ["hint"], ["check"]] {
        let again = w.run(&args);
        assert!(!noted(&again), "{args:?} said it again: {}", again.stderr);
        assert_eq!(again.stderr, "");
    }
    // A switch of lesson is said once more: another lesson started, or another named meanwhile.
    assert_eq!(w.run(&["start", "tool-results"]).code, 0);
    let switched = w.run(&["hint"]);
    assert!(switched.stderr.contains(&said("tool-results")), "{}", switched.stderr);
    assert_eq!(w.run(&["hint"]).stderr, "");
    assert_eq!(w.run(&["hint", "structured-errors"]).code, 0);
    let back = w.run(&["hint"]);
    assert!(back.stderr.contains(&said("tool-results")), "{}", back.stderr);
    // What was said is kept with the progress, written whole.
    let state: serde_json::Value = serde_json::from_str(&w.read("work/.progress.json")).unwrap();
    assert_eq!(state["announced"], "tool-results", "{state}");
}

#[test]
fn the_course_says_where_the_lessons_before_its_first_are() {
    let w = Workshop::new();
    let said = "This workshop starts at lesson 4: lessons 1 to 3 are not in it.";
    for args in [vec![], vec!["list"]] {
        let run = w.run(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(flat(&run.stdout).contains(said), "{args:?}:\n{}", run.stdout);
    }
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(flat(&readme).contains(said), "the README says it too");
    // A course that starts at its first lesson has nothing to say.
    let one = Workshop::from_fixture("relay");
    assert!(!one.run(&["list"]).stdout.contains("not in it"));
}

#[test]
fn the_greeting_shows_a_broken_lesson_as_broken_and_greets_with_the_rest() {
    let w = Workshop::foundations();
    w.write("lessons/uncertain-state/lesson.toml", "id = \"uncertain-state\"\nnumber = [\n");
    let out = greeting(&w);
    let said = flat(&out);
    assert!(said.contains("5 structured-errors Structured tool errors not started"), "{out}");
    let broken =
        "! uncertain-state broken: lessons/uncertain-state/lesson.toml: is not a valid lesson manifest (line 2)";
    assert!(said.contains(broken), "{out}");
    assert!(said.contains("./workshop doctor uncertain-state says what is wrong"), "{out}");
    assert!(out.contains("Next: ./workshop start tool-results"), "{out}");
}

#[test]
fn a_course_whose_lessons_are_all_broken_still_greets_and_sends_to_doctor() {
    let w = Workshop::lesson5();
    w.write("lessons/structured-errors/lesson.toml", "not toml at all [\n");
    let out = greeting(&w);
    assert!(flat(&out).contains("! structured-errors broken:"), "{out}");
    assert!(out.contains("No lesson here loads: ./workshop doctor says what is wrong."), "{out}");
}
