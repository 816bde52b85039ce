//! A lesson's manifest judged by its data, never by how its English reads: count words are
//! whole words, and a problem names the line of the entry it is about.

use crate::common::*;

const MANIFEST: &str = "lessons/structured-errors/lesson.toml";
/// The id of the first check, given to a later one too.
const TWICE: &str = "id = \"fail-flags-failure\"";
const SOLUTION: &str = "lessons/structured-errors/solution/errors.py";

/// The 1-based line of the `n`th (from 0) line of `text` that is `line`.
fn nth_line(text: &str, line: &str, n: usize) -> usize {
    let mut found = text.lines().enumerate().filter(|(_, l)| *l == line);
    found.nth(n).map(|(i, _)| i + 1).expect("the line is there")
}

#[test]
fn prose_holding_count_words_inside_other_words_loads() {
    let w = Workshop::lesson5();
    let text = w.read(MANIFEST);
    let before = "context.sdk = \"Here no code retries:";
    assert!(text.contains(before));
    // "network" holds "two", "sometimes" holds "times": neither is a count.
    let after = "context.sdk = \"The network sometimes fails, and here no code retries:";
    w.write(MANIFEST, &text.replace(before, after));
    let run = w.run(&["list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("structured-errors  Structured tool errors"), "{}", run.stdout);
    let run = w.run(&["check", "--file", SOLUTION]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
}

#[test]
fn prose_naming_a_count_is_refused_at_its_line() {
    let w = Workshop::lesson5();
    let text = w.read(MANIFEST);
    let before = "context.sdk = \"Here no code retries:";
    let counted = "context.sdk = \"It runs twice. Here no code retries:";
    w.write(MANIFEST, &text.replace(before, counted));
    let line = text.lines().position(|l| l.starts_with(before)).unwrap() + 1;
    let run = w.run(&["check", "--file", SOLUTION]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let want = format!("line {line}: a [predict] text names a count, which gives the answer away");
    assert!(run.stderr.contains(&want), "{}", run.stderr);
}

#[test]
fn a_problem_names_the_line_of_its_entry_not_the_first_mention_of_its_id() {
    let w = Workshop::lesson5();
    let text = w.read(MANIFEST);
    // A later check takes the first check's id: the problem is the later one, far down.
    let broken = text.replace("id = \"retry-transient\"", "id = \"fail-flags-failure\"");
    w.write(MANIFEST, &broken);
    let (first, second) = (nth_line(&broken, TWICE, 0), nth_line(&broken, TWICE, 1));
    assert!(second > first + 100, "{first} {second}");
    let run = w.run(&["check", "--file", SOLUTION]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let want = format!("line {second}: check fail-flags-failure is declared twice");
    assert!(run.stderr.contains(&want), "{}", run.stderr);
}

#[test]
fn a_ticket_problem_names_the_line_of_its_own_key() {
    let w = Workshop::lesson5();
    let text = w.read(MANIFEST);
    let probe = "probe = { tool = \"process_refund\", input = { order_id = \"0871\" } }";
    assert!(text.contains(probe));
    let runtimes = "runtimes = [\"harness\", \"shell\"]";
    w.write(MANIFEST, &text.replace(probe, &format!("{runtimes}\n{probe}")));
    let line = nth_line(&w.read(MANIFEST), runtimes, 0);
    let run = w.run(&["check", "--file", SOLUTION]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let want = format!("line {line}: ticket old-order names an unknown runtime 'shell'");
    assert!(run.stderr.contains(&want), "{}", run.stderr);
}
