//! The lines under a replay say what the cards show: "In short" counts the changes it picks one
//! of, a verdict counts calls and retries as the cards number them, a note names only what the
//! reply says, and a try the harness's cap ended says the cap is why.

use crate::common::*;

fn watch(ws: &Workshop, lesson: &str, ticket: &str, code: &str, extra: &[&str]) -> Run {
    let mut args = vec!["watch", lesson, "--ticket", ticket, "--code", code, "--no-anim"];
    args.extend_from_slice(extra);
    ws.run(&args)
}

#[test]
fn in_short_names_how_many_changes_there_are() {
    let ws = Workshop::new();
    let file = repo().join("tests/fixtures/tool-results/failed_as_crash.py");
    let run = watch(&ws, "tool-results", "two-parcels", file.to_str().unwrap(), &[]);
    assert!(run.stdout.contains("In short      your run has"), "{}", run.stdout);
    assert!(
        run.stdout.contains("              3 changes; --expand shows them all\n"),
        "{}",
        run.stdout
    );
    let expanded = watch(&ws, "tool-results", "two-parcels", file.to_str().unwrap(), &["--expand"]);
    assert!(!expanded.stdout.contains("changes; --expand"), "{}", expanded.stdout);
    // One change: nothing to count.
    let one = repo().join("tests/fixtures/tool-results/no_is_error.py");
    let run = watch(&ws, "tool-results", "crash-trace", one.to_str().unwrap(), &[]);
    assert!(
        run.stdout.contains("In short") && !run.stdout.contains("changes; --expand"),
        "{}",
        run.stdout
    );
}

/// `Agent calls` cards, and `Attempt N` cards after the first try of a call.
fn cards(text: &str) -> (usize, usize) {
    let calls = text.lines().filter(|l| l.starts_with("Agent calls")).count();
    let retries = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("Attempt "))
        .filter(|rest| {
            rest.split_whitespace()
                .next()
                .and_then(|n| n.parse::<u32>().ok())
                .is_some_and(|n| n > 1)
        })
        .count();
    (calls, retries)
}

#[test]
fn a_verdict_counts_calls_and_retries_as_the_cards_number_them() {
    let ws = Workshop::new();
    for (lesson, ticket, code, said) in [
        // The model asked again for 2044: a call of its own, Attempt 1, not a retry.
        ("tool-results", "two-parcels", "fixed", "3 calls, 0 retries"),
        ("tool-results", "hash-ids", "fixed", "4 calls, 0 retries"),
        // The subagent's own retry is Attempt 2 of its call.
        ("structured-errors", "coordinator", "structured", "4 calls, 1 retry"),
    ] {
        let run = watch(&ws, lesson, ticket, code, &[]);
        let verdict = run.stdout.lines().find(|l| l.starts_with("Verdict")).unwrap();
        assert!(verdict.contains(said), "{ticket} {code}: {verdict}");
        let (calls, retries) = cards(&run.stdout);
        assert_eq!(
            format!("{calls} calls, {retries} {}", if retries == 1 { "retry" } else { "retries" }),
            said
        );
    }
}

#[test]
fn the_not_yours_note_names_no_reason_the_reply_does_not_give() {
    let ws = Workshop::only("structured-errors");
    for runtime in ["harness", "sdk"] {
        let run = ws.run(&[
            "watch",
            "structured-errors",
            "--ticket",
            "not-yours",
            "--code",
            "starter",
            "--runtime",
            runtime,
            "--no-anim",
            "--format",
            "json",
        ]);
        let json = run.json();
        let note = json["verdict"]["note"].as_str().unwrap();
        let reply = json["events"].as_array().unwrap().last().unwrap()["text"]
            .as_str()
            .unwrap()
            .to_lowercase();
        assert!(note.starts_with("Harm:"), "{runtime}: {note}");
        for reason in ["payment provider", "in progress", "being processed", "hiccup"] {
            assert!(
                !note.contains(reason) || reply.contains(reason),
                "{runtime}: the note names '{reason}', the reply does not: {note}\n{reply}"
            );
        }
    }
}

#[test]
fn a_try_the_cap_ended_says_the_cap_is_why() {
    let ws = Workshop::new();
    let json =
        watch(&ws, "structured-errors", "coordinator", "structured", &["--format", "json"]).json();
    let last = json["events"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|e| e["kind"] == "attempt" && e["failed"] == true)
        .unwrap()
        .clone();
    assert_eq!((last["number"].as_u64(), last["capped"].as_u64()), (Some(2), Some(2)), "{last:#}");
    let text = watch(&ws, "structured-errors", "coordinator", "structured", &[]);
    assert!(
        text.stdout
            .contains("Attempt 2   ✗ failed, reported and not retried: the cap of 2 attempts was"),
        "{}",
        text.stdout
    );
    // A try that worked, or a failure with attempts left, carries no cap.
    assert!(json["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "attempt" && e["number"] == 1)
        .all(|e| e.get("capped").is_none()));
}
