//! `workshop lesson`: the lesson text rendered for the terminal.

use crate::common::*;

#[test]
fn lesson_renders_the_text_in_plain_styles() {
    let w = Workshop::lesson5();
    let run = w.run(&["lesson", "structured-errors", "--no-pager"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!("lesson_structured_errors", run.stdout);
}

#[test]
fn lesson_text_fits_the_width_except_code() {
    let w = Workshop::lesson5();
    let run = w.run(&["lesson", "--no-pager"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Off a terminal the width is 80; only code blocks (indented by four) may run past it.
    for line in run.stdout.lines().filter(|l| !l.starts_with("    ") || l.starts_with("    -")) {
        assert!(line.chars().count() <= 80, "too wide: {line:?}");
    }
    assert!(run.stdout.contains("\n    {\n      \"isError\": true,\n"), "a code block keeps its shape");
}

#[test]
fn lesson_off_a_terminal_never_starts_the_pager() {
    let w = Workshop::lesson5();
    let mut cmd = w.command(&["lesson"]);
    // A pager that would fail loudly: it must not be started when stdout is a pipe.
    cmd.env("PAGER", "sh -c 'echo pager-ran; exit 3'");
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("pager-ran"));
    assert_eq!(run.stdout, w.run(&["lesson", "--no-pager"]).stdout);
}

#[test]
fn lesson_without_text_says_so() {
    let w = Workshop::lesson5();
    std::fs::remove_file(w.path("lessons/structured-errors/lesson.md")).unwrap();
    let run = w.run(&["lesson", "--no-pager"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("has no text yet") && run.stderr.contains("lesson.md"), "{}", run.stderr);
}

#[test]
fn lesson_unknown_id_lists_the_lessons() {
    let w = Workshop::lesson5();
    let run = w.run(&["lesson", "no-such-lesson"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("structured-errors"), "{}", run.stderr);
}
