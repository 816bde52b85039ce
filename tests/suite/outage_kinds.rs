//! confirm-and-degrade's kinds for a learner's own results: an outage that passes the gateway's
//! 503 text through, one that never says until when, and a no sent without its flag. Each
//! replays to the end by its kind (the reply recorded for another result of that kind), and the
//! verdict and note say what the model read.

use crate::common::*;

use serde_json::Value;

const LESSON: &str = "confirm-and-degrade";
const WORK: &str = "work/confirm-and-degrade/oncall.py";

/// The reference fix with each `(from, to)` applied, as a learner might change it.
fn fix_with(changes: &[(&str, &str)]) -> String {
    let path = repo().join("lessons").join(LESSON).join("solution/oncall.py");
    let mut fix = std::fs::read_to_string(path).unwrap();
    for (from, to) in changes {
        assert!(fix.contains(from), "the fix no longer holds {from:?}");
        fix = fix.replacen(from, to, 1);
    }
    fix
}

fn replay(ws: &Workshop, ticket: &str, runtime: &str) -> Value {
    let args = ["watch", LESSON, "--ticket", ticket, "--code", "yours", "--runtime", runtime];
    let run = ws.run(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(run.code, 0, "{ticket}: {}", run.stderr);
    run.json()
}

/// The kinds the replay's turns were answered by.
fn kinds(run: &Value) -> Vec<String> {
    let events = run["events"].as_array().unwrap();
    let swaps = events.iter().filter_map(|e| e["by_kind"].as_array()).flatten();
    swaps.map(|s| s["kind"].as_str().unwrap().to_string()).collect()
}

fn ends_in_a_reply(run: &Value) -> bool {
    run["events"].as_array().unwrap().last().is_some_and(|e| e["kind"] == "reply")
}

#[test]
fn an_outage_that_passes_the_503_text_through_replays_by_its_kind_as_a_leak() {
    let ws = Workshop::only(LESSON);
    // The gateway's own text, in the fix's shape (not retryable, unlike the starter's).
    let raw = concat!(
        "    return {\"is_error\": True, \"type\": \"unavailable\", ",
        "\"retryable\": False, \"message\": message}\n"
    );
    let file = fix_with(&[(
        "    \"\"\"The result of a call to a service that is down for maintenance.\"\"\"\n",
        &format!("    \"\"\"The gateway's text, as it came.\"\"\"\n{raw}"),
    )]);
    ws.write(WORK, &file);
    for runtime in ["harness", "sdk"] {
        let run = replay(&ws, "metrics-down", runtime);
        assert!(ends_in_a_reply(&run), "{runtime}: {run}");
        assert_eq!(kinds(&run), ["passes-503"], "{runtime}: {run}");
        let v = &run["verdict"];
        assert!(v["counts"]["leaks"].as_u64() >= Some(1), "{runtime}: {v}");
        assert_eq!(v["tone"], "bad", "{runtime}: {v}");
    }
}

#[test]
fn an_outage_that_never_says_until_when_replays_by_its_kind_and_its_note_says_so() {
    let ws = Workshop::only(LESSON);
    let file = fix_with(&[
        (
            "is down for maintenance until {until}, so there are no live figures. ",
            "is offline for planned work; no live figures for now. ",
        ),
        ("        \"until\": until,\n", ""),
    ]);
    ws.write(WORK, &file);
    for runtime in ["harness", "sdk"] {
        let run = replay(&ws, "metrics-down", runtime);
        assert!(ends_in_a_reply(&run), "{runtime}: {run}");
        assert_eq!(kinds(&run), ["no-until"], "{runtime}: {run}");
        let v = &run["verdict"];
        assert_eq!(v["counts"]["named_until"], 0, "{runtime}: {v}");
        assert!(v["note"].as_str().unwrap().contains("nothing said until when"), "{runtime}: {v}");
    }
    // The fix names it: the same count is 1, and its note is the one that says so.
    let fixed = replay_json(&ws, LESSON, "metrics-down", "solution");
    assert_eq!(fixed["verdict"]["counts"]["named_until"], 1, "{}", fixed["verdict"]);
}

#[test]
fn a_no_sent_without_its_flag_replays_by_its_kind_and_is_counted_unflagged() {
    let ws = Workshop::only(LESSON);
    let file = fix_with(&[
        (
            "    return {\n        \"is_error\": True,\n        \"type\": \"user_declined\",",
            "    return {\n        \"type\": \"user_declined\",",
        ),
        ("Do not ask for the same change again;", "Please do not request it again;"),
    ]);
    ws.write(WORK, &file);
    for runtime in ["harness", "sdk"] {
        for ticket in ["scale-declined", "restart-declined"] {
            let run = replay(&ws, ticket, runtime);
            assert!(ends_in_a_reply(&run), "{runtime} {ticket}: {run}");
            assert_eq!(kinds(&run), ["unflagged-no"], "{runtime} {ticket}: {run}");
            let v = &run["verdict"];
            assert_eq!(v["counts"]["unflagged_failures"], 1, "{runtime} {ticket}: {v}");
            let drawn = (v["tone"].as_str(), v["harmed"].as_bool());
            assert_eq!(drawn, (Some("bad"), Some(true)), "{v}");
            assert!(v["text"].as_str().unwrap().contains("unflagged"), "{v}");
            assert!(v["note"].as_str().unwrap().starts_with("Priya's no went back without"), "{v}");
        }
    }
}
