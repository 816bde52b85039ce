//! The coordinator ticket: four subagents, one lookup that times out twice.

use crate::common::*;
use serde_json::Value;

fn replay(code: &str) -> Value {
    let w = Workshop::lesson5();
    let run = w.run(&["watch", "--ticket", "coordinator", "--code", code, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
}

fn kinds(replay: &Value) -> Vec<&str> {
    replay["events"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect()
}

#[test]
fn coordinator_with_structured_errors_reports_in_four_parts_and_keeps_the_rest() {
    let r = replay("structured");
    let events = r["events"].as_array().unwrap();
    let calls: Vec<&Value> = events.iter().filter(|e| e["kind"] == "tool_call").collect();
    assert_eq!(calls.len(), 4, "one subagent per order");
    assert!(calls
        .iter()
        .all(|c| c["tool"] == "delegate_lookup" && c["provenance"]["source"] == "authored"));
    assert_eq!(r["verdict"]["tool_calls"], 5, "three lookups once, 1060 twice");
    let reports: Vec<&Value> = events.iter().filter(|e| e["kind"] == "report").collect();
    assert_eq!(reports.len(), 1);
    let report = &reports[0]["report"];
    for part in ["failed", "tried", "partial", "next"] {
        assert!(
            report[part].as_str().is_some_and(|t| !t.is_empty()),
            "report lacks {part}: {report}"
        );
    }
    assert!(report["failed"].as_str().unwrap().contains("1060"));
    let reply = events.last().unwrap();
    assert_eq!(reply["kind"], "reply");
    let text = reply["text"].as_str().unwrap();
    for kept in ["1051", "1052", "1053"] {
        assert!(text.contains(kept), "the reply drops order {kept}: {text}");
    }
}

#[test]
fn coordinator_with_the_starter_passes_up_a_bare_error_and_gives_up() {
    let r = replay("starter");
    assert!(!kinds(&r).contains(&"report"), "a bare Error gives the subagent nothing to report");
    assert_eq!(r["verdict"]["tool_calls"], 5);
    let text =
        r["events"].as_array().unwrap().last().unwrap()["text"].as_str().unwrap().to_string();
    assert!(!text.contains("1051"), "the starter run abandons all four orders: {text}");
}

#[test]
fn coordinator_results_go_back_in_one_message() {
    let text = std::fs::read_to_string(
        repo().join("recordings/structured-errors/harness/coordinator.jsonl"),
    )
    .unwrap();
    let finals: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["request"]["messages"].as_array().unwrap().len() == 3)
        .collect();
    assert_eq!(
        finals.len(),
        3,
        "one final request per code: the starter, the fix and the no-category mistake"
    );
    for entry in finals {
        let last = &entry["request"]["messages"][2]["content"];
        let results: Vec<&Value> =
            last.as_array().unwrap().iter().filter(|b| b["type"] == "tool_result").collect();
        assert_eq!(results.len(), 4, "all four results in the message after the calls");
    }
}

#[test]
fn coordinator_runs_only_in_the_harness() {
    let w = Workshop::lesson5();
    let run = w.run(&["watch", "--ticket", "coordinator", "--runtime", "sdk"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("runs only in the harness runtime"), "{}", run.stderr);
}

#[test]
fn coordinator_verdicts_count_calls_and_retries_and_say_what_came_back() {
    let structured = replay("structured");
    let starter = replay("starter");
    let (a, b) = (
        structured["verdict"]["text"].as_str().unwrap(),
        starter["verdict"]["text"].as_str().unwrap(),
    );
    assert!(a.starts_with("4 calls, 1 retry"), "{a}");
    assert!(b.starts_with("4 calls, 1 retry"), "{b}");
    assert!(a.contains("report") && a.contains("four parts"), "{a}");
    assert!(b.contains("nothing that says what happened"), "{b}");
    assert_ne!(a, b, "the two runs must not get the same verdict");
}
