//! Recordings as `watch` reads them: keyed by the canonical request, validated on load, and every
//! broken one an error naming its file and line with what to do about it.

use crate::common::*;

use serde_json::Value;

const OLD_ORDER: &str = "recordings/structured-errors/harness/old-order.jsonl";

fn lines(ws: &Workshop, rel: &str) -> Vec<String> {
    ws.read(rel).lines().map(String::from).collect()
}

fn write_lines(ws: &Workshop, rel: &str, lines: &[String]) {
    ws.write(rel, &(lines.join("\n") + "\n"));
}

/// JSON with every object's keys in reverse order and spaces everywhere JSON allows them, on one
/// line: what a hand-formatted recording might look like.
fn loose(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            keys.reverse();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{} :  {}", Value::from(k.as_str()), loose(&map[k])))
                .collect();
            format!("{{  {}  }}", fields.join(" ,  "))
        }
        Value::Array(items) => {
            format!("[ {} ]", items.iter().map(loose).collect::<Vec<_>>().join(" , "))
        }
        other => other.to_string(),
    }
}

/// The replay must stop before it starts, naming `place` and saying what to do.
fn refused(run: &Run, place: &str, why: &str) {
    assert_eq!(run.code, 2, "exit {}\nstdout:\n{}\nstderr:\n{}", run.code, run.stdout, run.stderr);
    assert_eq!(run.stdout, "", "nothing is replayed from a broken recording");
    assert!(run.stderr.contains(place), "{place} is not named:\n{}", run.stderr);
    assert!(run.stderr.contains(why), "'{why}' is not said:\n{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

/// The error says how to get a good recording back.
fn says_what_to_do(run: &Run) {
    assert!(
        run.stderr.contains("workshop record") || run.stderr.contains("git checkout"),
        "says nothing about what to do:\n{}",
        run.stderr
    );
}

fn watch_old_order(ws: &Workshop) -> Run {
    ws.run(&["watch", "--ticket", "old-order", "--code", "structured"])
}

// ---------------------------------------------------------------- the canonical key

#[test]
fn the_key_ignores_key_order_and_whitespace() {
    let ws = Workshop::lesson5();
    let before = watch_old_order(&ws);
    assert_eq!(before.code, 0, "{}", before.stderr);
    // Every line rewritten: keys reversed at every depth, spaces everywhere, keys left as they were.
    let mut rewritten = Vec::new();
    for line in lines(&ws, OLD_ORDER) {
        let turn: Value = serde_json::from_str(&line).unwrap();
        let again = format!("   {}   ", loose(&turn));
        assert_ne!(again, line);
        assert!(!again.contains('\n'));
        rewritten.push(again);
    }
    write_lines(&ws, OLD_ORDER, &rewritten);
    let after = watch_old_order(&ws);
    assert_eq!(after.code, 0, "{}", after.stderr);
    assert_eq!(after.stdout, before.stdout);
    let starter =
        ws.run(&["watch", "--ticket", "old-order", "--code", "starter", "--format", "json"]);
    assert_eq!(starter.code, 0, "{}", starter.stderr);
    assert_eq!(starter.json()["events"].as_array().unwrap().last().unwrap()["kind"], "reply");
}

#[test]
fn a_changed_value_in_a_request_breaks_its_key() {
    let ws = Workshop::lesson5();
    let mut all = lines(&ws, OLD_ORDER);
    let mut turn: Value = serde_json::from_str(&all[0]).unwrap();
    turn["request"]["max_tokens"] = Value::from(2048);
    all[0] = serde_json::to_string(&turn).unwrap();
    write_lines(&ws, OLD_ORDER, &all);
    let run = watch_old_order(&ws);
    refused(&run, &format!("{OLD_ORDER}:1:"), "key does not match");
    says_what_to_do(&run);
}

#[test]
fn a_changed_value_deep_in_a_request_breaks_its_key() {
    let ws = Workshop::lesson5();
    let mut all = lines(&ws, OLD_ORDER);
    let mut turn: Value = serde_json::from_str(&all[2]).unwrap();
    turn["request"]["messages"][0]["content"] = Value::from("Refund order 0871, please.");
    all[2] = serde_json::to_string(&turn).unwrap();
    write_lines(&ws, OLD_ORDER, &all);
    let run = watch_old_order(&ws);
    refused(&run, &format!("{OLD_ORDER}:3:"), "key does not match");
    says_what_to_do(&run);
}

// ---------------------------------------------------------------- broken recordings

/// Put a broken fixture in place of harness/old-order.jsonl and replay the ticket.
fn with_broken(fixture: &str) -> Run {
    let ws = Workshop::lesson5();
    ws.copy_watch_fixture(&format!("recordings/{fixture}"), OLD_ORDER);
    watch_old_order(&ws)
}

#[test]
fn a_truncated_recording_names_the_line_cut_off() {
    let run = with_broken("truncated.jsonl");
    refused(&run, &format!("{OLD_ORDER}:3:"), "cut off (truncated)");
    says_what_to_do(&run);
}

#[test]
fn a_line_that_is_not_json_is_named() {
    let run = with_broken("not_json.jsonl");
    refused(&run, &format!("{OLD_ORDER}:2:"), "is not a valid recorded turn");
    says_what_to_do(&run);
}

#[test]
fn a_hand_edited_request_no_longer_matches_its_key() {
    let run = with_broken("edited_request.jsonl");
    refused(&run, &format!("{OLD_ORDER}:3:"), "key does not match");
    says_what_to_do(&run);
}

#[test]
fn a_response_that_stops_for_tool_use_without_a_call_breaks_the_rules() {
    let run = with_broken("tool_use_without_a_call.jsonl");
    refused(&run, &format!("{OLD_ORDER}:1:"), "stops for tool_use but calls no tool");
    assert!(!run.stderr.contains("key does not match"), "{}", run.stderr);
}

#[test]
fn a_request_whose_result_is_not_right_after_its_call_breaks_the_rules() {
    let run = with_broken("result_not_after_its_call.jsonl");
    refused(&run, &format!("{OLD_ORDER}:2:"), "breaks the tool-use rules");
    assert!(
        run.stderr
            .contains("`tool_use` ids were found without `tool_result` blocks immediately after"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("key does not match"), "{}", run.stderr);
}

#[test]
fn a_recording_that_breaks_the_rules_says_what_to_do() {
    for fixture in ["tool_use_without_a_call.jsonl", "result_not_after_its_call.jsonl"] {
        says_what_to_do(&with_broken(fixture));
    }
}

#[test]
fn the_rule_breaking_fixtures_keep_keys_that_match_their_requests() {
    // So the rule check, not the key check, is what catches them.
    for fixture in ["tool_use_without_a_call.jsonl", "result_not_after_its_call.jsonl"] {
        let text =
            std::fs::read_to_string(watch_fixture(&format!("recordings/{fixture}"))).unwrap();
        for line in text.lines() {
            let turn: Value = serde_json::from_str(line).unwrap();
            assert_eq!(turn["key"], workshop::testing::key(&turn["request"]), "{fixture}");
        }
    }
}

#[test]
fn a_turn_recorded_twice_is_named() {
    let ws = Workshop::lesson5();
    let mut all = lines(&ws, OLD_ORDER);
    all.push(all[0].clone());
    write_lines(&ws, OLD_ORDER, &all);
    let run = watch_old_order(&ws);
    assert_eq!(run.code, 2);
    let duplicate = all.len();
    assert!(run.stderr.contains(&format!("{OLD_ORDER}:{duplicate}:")), "{}", run.stderr);
    assert!(run.stderr.contains("line 1"), "{}", run.stderr);
}

#[test]
fn an_unknown_provenance_is_refused() {
    let ws = Workshop::lesson5();
    let mut all = lines(&ws, OLD_ORDER);
    let mut turn: Value = serde_json::from_str(&all[1]).unwrap();
    turn["provenance"] = serde_json::json!({"source": "guessed"});
    all[1] = serde_json::to_string(&turn).unwrap();
    write_lines(&ws, OLD_ORDER, &all);
    let run = watch_old_order(&ws);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains(&format!("{OLD_ORDER}:2:")), "{}", run.stderr);
}

#[test]
fn a_missing_recordings_folder_says_what_is_missing() {
    let ws = Workshop::lesson5();
    std::fs::remove_dir_all(ws.path("recordings/structured-errors")).unwrap();
    let run = watch_old_order(&ws);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("recordings/structured-errors is missing"), "{}", run.stderr);
    assert!(
        run.stderr.contains("workshop record") && run.stderr.contains("git checkout"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_missing_ticket_file_says_which() {
    let ws = Workshop::lesson5();
    std::fs::remove_file(ws.path("recordings/structured-errors/sdk/wrong-id.jsonl")).unwrap();
    let run = ws.run(&["watch", "--ticket", "wrong-id", "--runtime", "sdk"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("recordings/structured-errors/sdk/wrong-id.jsonl is missing"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("workshop record"), "{}", run.stderr);
    // The other runtime's file is still there, and replays.
    assert_eq!(ws.run(&["watch", "--ticket", "wrong-id", "--runtime", "harness"]).code, 0);
}

// ---------------------------------------------------------------- provenance

#[test]
fn every_recorded_turn_is_authored() {
    let repo = repo();
    for runtime in ["harness", "sdk"] {
        let dir = repo.join("recordings/structured-errors").join(runtime);
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            for (i, line) in text.lines().enumerate() {
                let turn: Value = serde_json::from_str(line).unwrap();
                let place = format!("{}:{}", entry.path().display(), i + 1);
                assert_eq!(turn["provenance"]["source"], "authored", "{place}");
                assert_eq!(turn["key"], workshop::testing::key(&turn["request"]), "{place}");
                assert!(
                    !line.to_lowercase().contains("x-api-key"),
                    "{place}: a header in a recording"
                );
            }
        }
    }
}

#[test]
fn a_live_turn_is_shown_as_live() {
    // Provenance is not part of the key, so a turn can say it was live and still replay.
    let ws = Workshop::lesson5();
    let mut all = lines(&ws, OLD_ORDER);
    let mut turn: Value = serde_json::from_str(&all[2]).unwrap();
    turn["provenance"] = serde_json::json!({
        "source": "live", "model": "claude-haiku-4-5", "date": "2026-05-14", "request_id": "req_011CTest"
    });
    all[2] = serde_json::to_string(&turn).unwrap();
    write_lines(&ws, OLD_ORDER, &all);
    let run = watch_old_order(&ws);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The line wraps to the width; read it as words.
    let words = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(
            "Replies: some authored for this lesson, some recorded live from claude-haiku-4-5 on 2026-05-14."
        ),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("[live · claude-haiku-4-5 · 2026-05-14]"), "{}", run.stdout);
    assert!(run.stdout.contains("refunds order 0871  [authored]"), "{}", run.stdout);
    let json = ws.run(&["watch", "--ticket", "old-order", "--format", "json"]).json();
    let reply = json["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(reply["provenance"]["source"], "live");
    assert_eq!(reply["provenance"]["request_id"], "req_011CTest");
}

// ---------------------------------------------------------------- record

#[test]
fn record_writes_the_same_recordings_again() {
    // The authored turns, ids and keys are all derived, so recording twice changes nothing.
    let ws = Workshop::lesson5();
    let dir = "recordings/structured-errors";
    let before: Vec<(String, String)> = ["harness", "sdk"]
        .iter()
        .flat_map(|runtime| {
            let rel = format!("{dir}/{runtime}");
            std::fs::read_dir(ws.path(&rel))
                .unwrap()
                .flatten()
                .map(|e| {
                    (
                        format!("{rel}/{}", e.file_name().to_string_lossy()),
                        std::fs::read_to_string(e.path()).unwrap(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let run = ws.run(&["record"]);
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    for (rel, text) in before {
        assert_eq!(ws.read(&rel), text, "{rel} changed when recorded again");
    }
}

#[test]
fn a_broken_script_is_named_with_its_line_and_nothing_is_written() {
    let ws = Workshop::lesson5();
    let script = "recordings/structured-errors/script.toml";
    let text = ws.read(script);
    let broken = format!("{text}\n[[run]]\nruntime = harness\n");
    let line = broken.lines().position(|l| l == "runtime = harness").unwrap() + 1;
    ws.write(script, &broken);
    let before = ws.read(OLD_ORDER);
    let run = ws.run(&["record"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains(&format!("{script}:{line}:")), "{}", run.stderr);
    assert!(run.stderr.contains("git checkout"), "{}", run.stderr);
    assert_eq!(ws.read(OLD_ORDER), before);
}
