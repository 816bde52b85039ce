//! The record of what the model received, per attempt (`received` in `watch --format json`),
//! and the verdicts and notes read from it: a fixed line is told as that, never as a result the
//! model explained, in an author's own world as in the course's.

use crate::common::*;

use serde_json::Value;

const FERRY: &str = "ferry-desk";
const FIXED_LINE: &str = "lessons/ferry-desk/mistakes/fixed_line.py";

fn replay(ws: &Workshop, lesson: &str, ticket: &str, code: &str) -> Value {
    let run = ws.run(&["watch", lesson, "--ticket", ticket, "--code", code, "--format", "json"]);
    assert_eq!(run.code, 0, "{ticket} with {code}: {}", run.stderr);
    run.json()
}

fn received(run: &Value) -> Vec<&Value> {
    let events = run["events"].as_array().unwrap();
    events.iter().filter(|e| e["kind"] == "attempt").map(|e| &e["received"]).collect()
}

#[test]
fn a_fixed_line_the_model_read_is_bare_harm_and_never_explained() {
    let ws = Workshop::from_fixture("ferry");
    let record = ws.run(&["record", FERRY]);
    assert_eq!(record.code, 0, "{}\n{}", record.stdout, record.stderr);
    let run = replay(&ws, FERRY, "full-sailing", FIXED_LINE);
    let got = received(&run);
    assert_eq!(got.len(), 1, "{run}");
    let r = got[0];
    assert_eq!(r["got"], "result", "{r}");
    assert_eq!(
        (r["flagged"].as_bool(), r["bare"].as_bool(), r["empty"].as_bool()),
        (Some(true), Some(true), Some(false))
    );
    let content = r["block"]["content"].as_str().unwrap();
    assert!(content.contains("Tool call failed."), "{r}");
    let v = &run["verdict"];
    assert_eq!(v["counts"]["model_read_bare"], 1, "{v}");
    assert!(!v["text"].as_str().unwrap().contains("explained the result"), "{v}");
    assert!(v["text"].as_str().unwrap().contains("the model read nothing of what happened"), "{v}");
    assert_eq!((v["tone"].as_str(), v["harmed"].as_bool()), (Some("bad"), Some(true)), "{v}");
    assert!(v["note"].as_str().unwrap().starts_with("Harm: the model read only a line"), "{v}");
    // The fix's problem carries the world's words and its fact: read, flagged, named, not bare.
    let fixed = replay(&ws, FERRY, "full-sailing", "fixed");
    let r = received(&fixed)[0];
    assert_eq!((r["flagged"].as_bool(), r["bare"].as_bool()), (Some(true), Some(false)), "{r}");
    assert_eq!(r["names"][0]["fact"], "next_sailing", "{r}");
    assert_eq!(r["names"][0]["value"], "09:00", "{r}");
    let v = &fixed["verdict"];
    let read_bare = v["counts"]["model_read_bare"].as_u64();
    assert_eq!((read_bare, v["tone"].as_str()), (Some(0), Some("good")), "{v}");
    assert_eq!(v["note"], "The model read what the world said: the sailing is full.");
}

#[test]
fn a_try_the_harness_repeated_received_nothing_and_only_the_last_went_back() {
    let ws = Workshop::from_fixture("ferry");
    assert_eq!(ws.run(&["record", FERRY]).code, 0);
    let run = replay(&ws, FERRY, "busy-line", "fixed");
    let got: Vec<&str> = received(&run).iter().map(|r| r["got"].as_str().unwrap()).collect();
    assert_eq!(got, ["nothing", "result"], "{run}");
}

#[test]
fn a_failure_sent_unflagged_and_a_crash_quoted_are_in_the_record() {
    let ws = Workshop::only("tool-results");
    let run = replay(&ws, "tool-results", "crash-trace", "starter");
    let r = received(&run)[0];
    assert_eq!((r["flagged"].as_bool(), r["failure"].as_bool()), (Some(false), Some(true)), "{r}");
    let pieces = r["verbatim"].as_array().unwrap();
    assert!(pieces.iter().any(|p| p.as_str().unwrap().contains("orders-db.lumen.internal")), "{r}");
    let counts = &run["verdict"]["counts"];
    let unflagged = counts["unflagged_failures"].as_u64();
    assert_eq!((unflagged, counts["leaks"].as_u64()), (Some(1), Some(1)), "{counts}");
    // A request the API refuses carried its results to no model: the record says so.
    let refused = replay(&ws, "tool-results", "two-parcels", "starter");
    let got: Vec<&str> = received(&refused).iter().map(|r| r["got"].as_str().unwrap()).collect();
    assert!(got.contains(&"refused"), "{refused}");
    let error = received(&refused).iter().find_map(|r| r["error"].as_str()).unwrap();
    assert!(error.contains("tool_result"), "{error}");
}

#[test]
fn a_role_is_recorded_with_each_fact_the_model_read() {
    let ws = Workshop::only("messages-that-help");
    let run = replay(&ws, "messages-that-help", "restart-stopped", "solution");
    let names: Vec<(String, String)> = received(&run)
        .iter()
        .flat_map(|r| r["names"].as_array().cloned().unwrap_or_default())
        .map(|n| (n["value"].as_str().unwrap().into(), n["role"].as_str().unwrap_or("").into()))
        .collect();
    assert!(names.contains(&("checkout-3".into(), "left".into())), "{names:?}");
    assert!(names.contains(&("checkout-1".into(), "done".into())), "{names:?}");
}
