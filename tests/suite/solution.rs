//! `workshop solution`: gated on green, a labelled diff against the learner's file.

use crate::common::*;

const SOLUTION: &str = "lessons/structured-errors/solution/errors.py";
const WORK: &str = "work/structured-errors/errors.py";

fn started() -> Workshop {
    let w = Workshop::lesson5();
    let run = w.run(&["start", "structured-errors"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    w
}

/// Make progress green the way a learner does: the reference in place, then `check`.
fn green() -> Workshop {
    let w = started();
    w.write(WORK, &w.read(SOLUTION));
    let run = w.run(&["check"]);
    assert_eq!(run.code, 0, "check of the reference: {}{}", run.stdout, run.stderr);
    w
}

#[test]
fn solution_without_a_work_file_says_to_start() {
    let w = Workshop::lesson5();
    let run = w.run(&["solution"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("./workshop start structured-errors"), "{}", run.stderr);
}

#[test]
fn solution_before_green_refuses_and_says_how_to_see_it() {
    let w = started();
    let run = w.run(&["solution"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(run.stderr.contains("not yet") && run.stderr.contains("--reveal"), "{}", run.stderr);
}

#[test]
fn solution_before_green_with_reveal_off_a_terminal_shows_it() {
    let w = started();
    let run = w.run(&["solution", "--reveal"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("not green yet"), "{}", run.stdout);
    assert!(
        run.stdout.contains("\n--- yours: work/structured-errors/errors.py\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\n+++ reference: lessons/structured-errors/solution/errors.py\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\n-    return {\"error\": {\"message\": \"Error\"}}\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn solution_after_green_shows_the_diff_without_asking() {
    let w = green();
    let same = w.run(&["solution"]);
    assert_eq!(same.code, 0, "{}", same.stderr);
    assert!(same.stdout.contains("the same as the reference"), "{}", same.stdout);

    // Progress stays green after an edit, so the diff is shown, labelled.
    let edited = w.read(WORK).replace("is True", "== True");
    w.write(WORK, &edited);
    let run = w.run(&["solution"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!("solution_after_green_one_line_differs", run.stdout);
}

#[test]
fn the_diff_leaves_out_docstrings_and_the_starters_notes() {
    let w = started();
    // A learner's green file: the starter's text kept, notes and all, with the code fixed.
    let fixed = w
        .read(WORK)
        .replace(
            "    return {\"error\": {\"message\": \"Error\"}}",
            "    if category == \"empty\":\n        return {\"orders\": [], \"message\": message}\n    return {\"isError\": True, \"error\": {\"errorCategory\": category, \"isRetryable\": category == \"transient\", \"message\": message}}",
        )
        .replace("    return True", "    return error.get(\"isRetryable\") is True");
    w.write(WORK, &fixed);
    assert_eq!(w.run(&["check"]).code, 0, "{}", w.run(&["check"]).stdout);
    let run = w.run(&["solution"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let diff = &run.stdout[run.stdout.find("\n--- yours").expect("a diff")..];
    for noise in ["TODO", "Your file for", "Reference solution", "Grade it with"] {
        assert!(!diff.contains(noise), "{noise} in the diff:\n{diff}");
    }
    // What is left is code: the reference's named set of retryable categories, and its comments.
    assert!(diff.contains("+RETRYABLE_CATEGORIES = frozenset({\"transient\"})"), "{diff}");
    let changed = diff
        .lines()
        .filter(|l| l.starts_with(['+', '-']) && !l.starts_with("+++") && !l.starts_with("---"));
    assert!(changed.count() <= 20, "a short diff:\n{diff}");
}

#[test]
fn a_solution_file_linked_out_of_the_lesson_is_refused_as_the_authors_error() {
    let w = Workshop::lesson5();
    let outside = w.path("outside.py");
    std::fs::write(&outside, "# not part of the lesson\n").unwrap();
    let solution = w.path(SOLUTION);
    std::fs::remove_file(&solution).unwrap();
    std::os::unix::fs::symlink(&outside, &solution).unwrap();
    for args in [
        &["solution", "structured-errors", "--reveal"][..],
        &["watch", "structured-errors", "--code", "solution"][..],
    ] {
        let run = w.run(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stdout);
        assert!(
            run.stderr.contains(
                "solution 'solution/errors.py' is a link (or lies under one) that leads out of the lesson's folder: put the reference solution itself in lessons/structured-errors/"
            ),
            "{args:?}: {}",
            run.stderr
        );
        assert!(!run.stdout.contains("not part of the lesson"), "{args:?}: {}", run.stdout);
    }
    // A link that stays inside the lesson's folder is the author's business.
    std::fs::remove_file(&solution).unwrap();
    std::fs::copy(repo().join(SOLUTION), w.path("lessons/structured-errors/solution/real.py"))
        .unwrap();
    std::os::unix::fs::symlink("real.py", &solution).unwrap();
    assert_eq!(w.run(&["doctor", "structured-errors"]).code, 0);
}
