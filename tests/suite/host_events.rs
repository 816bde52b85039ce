//! The host's events: a lesson (`tests/fixtures/hostloop/`) whose recordings hold the Messages
//! API's errors, timeouts, a reply cut at max_tokens and runs a cap ends, and whose learner
//! functions are the host's decisions (`api_error`, `go_on`, `tell` hooks). Recorded, doctored,
//! replayed as cards, JSON and a page; the model never sees any of it.

use serde_json::Value;

use crate::common::Workshop;

fn hostloop() -> Workshop {
    let ws = Workshop::from_fixture("hostloop");
    let run = ws.run(&["record", "host-desk"]);
    assert_eq!(run.code, 0, "record: {}\n{}", run.stdout, run.stderr);
    ws
}

fn watch_json(ws: &Workshop, ticket: &str, code: &str) -> Value {
    let run = watch(ws, ticket, code, &["--format", "json"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    run.json()
}

/// `watch host-desk` of one ticket and code, with these flags.
fn watch(ws: &Workshop, ticket: &str, code: &str, flags: &[&str]) -> crate::common::Run {
    let mut args = vec!["watch", "host-desk", "--ticket", ticket, "--code", code];
    args.extend(flags);
    ws.run(&args)
}

fn events(replay: &Value) -> Vec<Value> {
    replay["events"].as_array().cloned().unwrap_or_default()
}

fn kinds(replay: &Value) -> Vec<String> {
    let events = replay["events"].as_array().cloned().unwrap_or_default();
    events.iter().map(|e| e["kind"].as_str().unwrap_or("?").to_string()).collect()
}

/// Every request the model was sent, as the recording holds them: what the model saw.
fn recorded_requests(ws: &Workshop, ticket: &str) -> Vec<Value> {
    let text = ws.read(&format!("recordings/host-desk/harness/{ticket}.jsonl"));
    text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["request"].clone()).collect()
}

#[test]
fn runs_ended_by_a_cap_or_an_api_error_are_recorded_and_doctor_finds_nothing_wrong() {
    let ws = hostloop();
    let run = ws.run(&["doctor", "host-desk"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("every recording is used"), "{}", run.stdout);
    // The overloaded request was sent three times: three lines under one key, in order.
    let lines: Vec<Value> = ws
        .read("recordings/host-desk/harness/busy-api.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["key"], lines[1]["key"]);
    assert_eq!(lines[1]["key"], lines[2]["key"]);
    assert_eq!(lines[0]["response"]["status"], 529);
    assert_eq!(lines[0]["response"]["retry_after"], 2.0);
    assert_eq!(lines[2]["response"]["stop_reason"], "tool_use");
    assert_eq!(lines[0]["took_ms"], 300);
    assert_eq!(lines[0]["provenance"]["source"], "authored");
}

#[test]
fn an_overloaded_api_is_the_hosts_to_retry_and_the_model_never_sees_it() {
    let ws = hostloop();
    let replay = watch_json(&ws, "busy-api", "fixed");
    let want = ["customer", "host_error", "host_error", "tool_call", "attempt", "reply"];
    assert_eq!(kinds(&replay), want);
    let first = &replay["events"][1];
    assert_eq!(first["status"], 529);
    assert_eq!(first["error_type"], "overloaded_error");
    assert_eq!(first["retry_after_ms"], 2000);
    // The fix honours retry-after, then backs off from 0.5 s, doubled.
    assert_eq!(first["wait_ms"], 2000);
    assert_eq!(replay["events"][2]["wait_ms"], 1000);
    assert_eq!(replay["events"][2]["number"], 2);
    let counts = &replay["verdict"]["counts"];
    assert_eq!(counts["api_errors"], 2);
    assert_eq!(counts["api_retries"], 2);
    assert_eq!(counts["ends"], "reply");
    // 300 + 2000 + 300 + 1000 + 900 + 700 on the replay's clock, whatever the machine took.
    assert_eq!(counts["elapsed_ms"], 5200);
    let note = "Overloaded twice, sent again twice: the third sending went through.";
    assert_eq!(replay["verdict"]["note"], note);
    for request in recorded_requests(&ws, "busy-api") {
        let text = request.to_string();
        let saw = text.contains("overloaded") || text.contains("529");
        assert!(!saw, "the model saw the error: {text}");
    }
}

#[test]
fn a_400_is_sent_again_only_by_code_that_retries_everything_and_ends_the_run() {
    let ws = hostloop();
    let fixed = watch_json(&ws, "bad-request", "fixed");
    assert_eq!(kinds(&fixed), ["customer", "host_error", "told"]);
    assert_eq!(fixed["events"][1]["status"], 400);
    assert!(fixed["events"][1].get("wait_ms").is_none(), "{}", fixed["events"][1]);
    assert_eq!(fixed["events"][2]["reason"], "api_error");
    let told = "The assistant service failed (400); nothing was changed.";
    assert_eq!(fixed["events"][2]["text"], told);
    assert_eq!(fixed["verdict"]["counts"]["ends"], "api_error");
    // The starter sends a refused request again and again: the same 400 every time, until the
    // replay's own guard of 10 sendings.
    let starter = watch_json(&ws, "bad-request", "starter");
    let all = events(&starter);
    let errors: Vec<&Value> = all.iter().filter(|e| e["kind"] == "host_error").collect();
    assert_eq!(errors.len(), 10);
    assert!(errors.iter().all(|e| e["status"] == 400));
    assert_eq!(starter["verdict"]["counts"]["api_retries"], 9);
}

#[test]
fn the_turn_cap_and_the_codes_own_stop_end_a_stubborn_run_and_the_person_is_told() {
    let ws = hostloop();
    let starter = watch_json(&ws, "stubborn", "starter");
    let counts = &starter["verdict"]["counts"];
    assert_eq!((counts["ends"].as_str(), counts["turns"].as_u64()), (Some("cap"), Some(8)));
    let capped = events(&starter).into_iter().find(|e| e["kind"] == "capped").unwrap();
    assert_eq!(capped["by"], "max_turns");
    assert_eq!(capped["limit"], 8);
    assert_eq!(starter["verdict"]["tool_calls"], 8);
    assert_eq!(starter["verdict"]["tone"], "warn");

    let fixed = watch_json(&ws, "stubborn", "fixed");
    let events = events(&fixed);
    let capped = events.iter().find(|e| e["kind"] == "capped").unwrap();
    assert_eq!((capped["by"].as_str(), capped["turns"].as_u64()), (Some("code"), Some(3)));
    let told = "I stopped after 3 tries without an answer; a person will follow up.";
    assert_eq!(events.last().unwrap()["text"], told);
    assert_eq!(fixed["verdict"]["tool_calls"], 3);
    assert_eq!(fixed["verdict"]["note"], "The host's own cap ended it early.");
}

#[test]
fn the_time_budget_is_spent_on_the_replays_clock_never_the_machines() {
    let ws = hostloop();
    let replay = watch_json(&ws, "slow-api", "starter");
    assert_eq!(kinds(&replay), ["customer", "host_error", "host_error", "capped", "told"]);
    let capped = &replay["events"][3];
    assert_eq!(capped["by"], "time_budget");
    assert_eq!(capped["limit"], 30000);
    // Two timeouts of 20 s and the starter's waits of 1 s each: 42 s, past the budget of 30 s.
    assert_eq!(capped["elapsed_ms"], 42000);
    assert_eq!(replay["events"][1]["error_type"], "timeout");
    assert!(replay["events"][1]["status"].is_null());
}

#[test]
fn a_reply_cut_at_max_tokens_says_so_and_the_host_tells_the_person() {
    let ws = hostloop();
    let replay = watch_json(&ws, "long-answer", "fixed");
    assert_eq!(kinds(&replay), ["customer", "reply", "told"]);
    assert_eq!(replay["events"][1]["stop_reason"], "max_tokens");
    assert_eq!(replay["events"][2]["reason"], "max_tokens");
}

#[test]
fn the_cards_show_the_hosts_events_apart_from_tool_results() {
    let ws = hostloop();
    let runs = [("busy-api", "fixed"), ("stubborn", "fixed"), ("slow-api", "starter")];
    for (ticket, code) in runs.into_iter().chain([("long-answer", "fixed")]) {
        let run = watch(&ws, ticket, code, &["--no-anim", "--color", "never"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        insta::assert_snapshot!(format!("host_cards_{ticket}"), run.stdout);
    }
}

#[test]
fn the_page_shows_the_hosts_events() {
    let ws = hostloop();
    let run = ws.run(&["watch", "host-desk", "--ticket", "stubborn", "--compare", "--html", "-"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("<span class=\"label\">Cap</span>"), "{}", run.stdout);
    assert!(run.stdout.contains("<span class=\"label\">Host tells</span>"), "{}", run.stdout);
    assert!(run.stdout.contains("the code stopped the run after 3 model turns"), "{}", run.stdout);
    let busy = watch(&ws, "busy-api", "fixed", &["--html", "-"]);
    assert!(busy.stdout.contains("card warn host"), "{}", busy.stdout);
    let line = "529 overloaded_error: Overloaded (retry-after 2 s)";
    assert!(busy.stdout.contains(line), "{}", busy.stdout);
}

#[test]
fn a_recorded_error_without_a_status_or_type_is_refused_with_its_line() {
    let ws = hostloop();
    let path = "recordings/host-desk/harness/busy-api.jsonl";
    let text = ws.read(path).replacen("\"status\":529,", "", 1);
    ws.write(path, &text);
    let run = watch(&ws, "busy-api", "fixed", &["--no-anim"]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    let why = "an error response needs a status";
    assert!(run.stderr.contains("busy-api.jsonl:1") && run.stderr.contains(why), "{}", run.stderr);
}

#[test]
fn a_reply_recorded_twice_for_one_request_is_still_refused() {
    let ws = hostloop();
    let path = "recordings/host-desk/harness/long-answer.jsonl";
    let line = ws.read(path);
    ws.write(path, &format!("{line}{line}"));
    let run = watch(&ws, "long-answer", "fixed", &["--no-anim"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("records the same request as line 1 again"), "{}", run.stderr);
}
