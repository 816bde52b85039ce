//! `workshop hint`: one step further each time, remembered in progress.

use crate::common::*;

const SOLUTION: &str = "lessons/structured-errors/solution/errors.py";
const WORK: &str = "work/structured-errors/errors.py";

fn started() -> Workshop {
    let w = Workshop::lesson5();
    let run = w.run(&["start", "structured-errors"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    w
}

fn steps_seen(w: &Workshop, check: &str) -> Option<u64> {
    let progress: serde_json::Value = serde_json::from_str(&w.read("work/.progress.json")).ok()?;
    progress["lessons"]["structured-errors"]["hint_steps"][check].as_u64()
}

#[test]
fn hint_without_a_work_file_says_to_start() {
    let w = Workshop::lesson5();
    let run = w.run(&["hint"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("./workshop start structured-errors"), "{}", run.stderr);
}

#[test]
fn hint_steps_advance_and_are_remembered() {
    let w = started();
    // The starter fails every check; the first is fail-flags-failure, which has three steps.
    let first = w.run(&["hint"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(first.stdout.starts_with("Hint for fail-flags-failure"), "{}", first.stdout);
    assert!(first.stdout.contains("\n> 1. "), "step 1 is new: {}", first.stdout);
    assert!(
        !first.stdout.contains("\n  2. ") && !first.stdout.contains("\n> 2. "),
        "step 2 is not shown yet: {}",
        first.stdout
    );
    assert!(first.stdout.contains("Step 1 of 3"), "{}", first.stdout);
    assert_eq!(steps_seen(&w, "fail-flags-failure"), Some(1));

    let second = w.run(&["hint", "structured-errors"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(
        second.stdout.contains("\n  1. ") && second.stdout.contains("\n> 2. "),
        "{}",
        second.stdout
    );
    assert!(!second.stdout.contains("\n> 3. "), "{}", second.stdout);
    assert!(second.stdout.contains("Step 2 of 3"), "{}", second.stdout);
    assert_eq!(steps_seen(&w, "fail-flags-failure"), Some(2));

    let third = w.run(&["hint"]);
    assert_eq!(third.code, 0, "{}", third.stderr);
    assert!(
        third.stdout.contains("\n  2. ") && third.stdout.contains("\n> 3. "),
        "{}",
        third.stdout
    );
    assert!(
        third.stdout.contains("the last one") && third.stdout.contains("./workshop solution"),
        "{}",
        third.stdout
    );
    assert_eq!(steps_seen(&w, "fail-flags-failure"), Some(3));

    let fourth = w.run(&["hint"]);
    assert_eq!(fourth.code, 0, "{}", fourth.stderr);
    assert!(fourth.stdout.contains("No more hints for this check"), "{}", fourth.stdout);
    assert!(!fourth.stdout.contains("\n> "), "nothing new is marked: {}", fourth.stdout);
    assert!(
        fourth.stdout.contains("./workshop solution structured-errors --reveal"),
        "{}",
        fourth.stdout
    );
    assert_eq!(steps_seen(&w, "fail-flags-failure"), Some(3));
}

#[test]
fn hint_for_a_named_check_keeps_its_own_count() {
    let w = started();
    w.run(&["hint"]);
    let run = w.run(&["hint", "--check", "fail-retry-hint"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("Hint for fail-retry-hint"), "{}", run.stdout);
    assert!(
        run.stdout.contains("\n> 1. ") && run.stdout.contains("--check fail-retry-hint"),
        "{}",
        run.stdout
    );
    assert_eq!(steps_seen(&w, "fail-retry-hint"), Some(1));
    assert_eq!(steps_seen(&w, "fail-flags-failure"), Some(1));
}

#[test]
fn hint_for_an_unknown_check_lists_the_valid_ones() {
    let w = started();
    let run = w.run(&["hint", "--check", "no-such-check"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no check 'no-such-check'"), "{}", run.stderr);
    assert!(
        run.stderr.contains("fail-flags-failure") && run.stderr.contains("harness-no-orders"),
        "{}",
        run.stderr
    );
}

#[test]
fn hint_when_all_checks_pass_says_so() {
    let w = started();
    w.write(WORK, &w.read(SOLUTION));
    let run = w.run(&["hint"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("checks pass: no hint needed"), "{}", run.stdout);
}

#[test]
fn hint_for_a_file_that_does_not_load_says_so() {
    let w = started();
    w.write(WORK, "def fail(:\n");
    let run = w.run(&["hint"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("does not load") && run.stderr.contains("./workshop check"),
        "{}",
        run.stderr
    );
}

#[test]
fn hint_for_a_lesson_without_hints_says_so() {
    let w = started();
    let path = "lessons/structured-errors/lesson.toml";
    // Drop every `hints = [...]` entry from the manifest.
    let mut kept = Vec::new();
    let mut skipping = false;
    let manifest = w.read(path);
    for line in manifest.lines() {
        if line.starts_with("hints = [") {
            skipping = !line.trim_end().ends_with(']');
            continue;
        }
        if skipping {
            skipping = line.trim() != "]";
            continue;
        }
        kept.push(line);
    }
    w.write(path, &kept.join("\n"));
    let run = w.run(&["hint"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("has no hints"), "{}", run.stderr);
}

#[test]
fn hint_says_how_many_steps_remain() {
    let w = Workshop::lesson5();
    let lesson = w.read("lessons/structured-errors/lesson.toml");
    let total = lesson
        .split("[[checks]]")
        .nth(1)
        .map(|c| {
            c.split("hints = [")
                .nth(1)
                .unwrap()
                .split("\n]")
                .next()
                .unwrap()
                .matches("\n  \"")
                .count()
        })
        .unwrap();
    let run = w.run(&["hint", "--check", "fail-flags-failure"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let flat = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    if total > 1 {
        let more = if total == 2 {
            "1 more remains".to_string()
        } else {
            format!("{} more remain", total - 1)
        };
        assert!(flat.contains(&format!("Step 1 of {total}; {more}")), "{}", run.stdout);
    } else {
        assert!(flat.contains("That is the only hint"), "{}", run.stdout);
    }
}
