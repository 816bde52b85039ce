//! A lesson's properties of a message (`[properties]`): one verdict, read by one piece of code,
//! for a check that asks one, for the kind a reply was recorded for, and for what the model
//! read; a card claims a property only where it held, and a manifest that names a property it
//! does not declare (or one that could not be read) is refused at its line.

use crate::common::*;

use serde_json::Value;

const L8: &str = "messages-that-help";
const FIXTURES: &str = "tests/fixtures/messages-that-help";
const MANIFEST: &str = "lessons/messages-that-help/lesson.toml";

/// The properties a run's record says the model's failures had, or lacked, by id.
fn read_as(run: &Value, list: &str) -> Vec<(String, String)> {
    let events = run["events"].as_array().unwrap();
    let attempts = events.iter().filter(|e| e["kind"] == "attempt");
    let had = attempts.filter_map(|a| a["received"][list].as_array()).flatten();
    let pair = |h: &Value| (h["property"].as_str().unwrap().to_string(), h["says"].to_string());
    had.map(pair).collect()
}

fn has(run: &Value, property: &str) -> bool {
    read_as(run, "has").iter().any(|(p, _)| p == property)
}

fn lacks(run: &Value, property: &str) -> Option<String> {
    read_as(run, "lacks").into_iter().find(|(p, _)| p == property).map(|(_, why)| why)
}

/// The claims of every reply by kind of a run: (property, what it says).
fn claims(run: &Value) -> Vec<(String, String)> {
    let events = run["events"].as_array().unwrap();
    let swaps = events.iter().filter_map(|e| e["by_kind"].as_array()).flatten();
    let claims = swaps.filter_map(|s| s["claims"].as_array()).flatten();
    let pair = |c: &Value| (c["property"].as_str().unwrap().to_string(), c["says"].to_string());
    claims.map(pair).collect()
}

#[test]
fn a_swapped_message_lacks_the_property_in_its_check_its_kind_and_the_models_record() {
    let ws = Workshop::only(L8);
    let swapped = lesson_file(L8, FIXTURES, "partial_swapped.py");
    let (run, report) = check_report(&ws, L8, &swapped);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let message = check(&report, "partial-says-done")["message"].as_str().unwrap().to_string();
    let asked = "expected a message that names checkout-1, checkout-2 as restarted (names_done): \
        expected 'checkout-1' named as done: it is named as left";
    assert!(message.contains(asked), "{message}");
    // The replay: no reply by kind, no Gain, and the record says the model read it so.
    let replay = replay_json(&ws, L8, "restart-stopped", &swapped);
    assert_eq!(last_event_kind(&replay), "no_recording", "{replay:#}");
    assert!(claims(&replay).is_empty(), "{replay:#}");
    assert!(!replay["verdict"]["note"].as_str().unwrap_or("").starts_with("Gain"));
    let why = lacks(&replay, "names_done").expect("names_done read and lacked");
    assert!(why.contains("'checkout-1' named as done: it is named as left"), "{why}");
    assert!(!has(&replay, "names_done") && !has(&replay, "names_left"), "{replay:#}");
    assert_eq!(replay["verdict"]["counts"]["has_names_done"], 0, "{}", replay["verdict"]);
}

#[test]
fn a_message_of_every_property_passes_replays_by_kind_and_each_claim_is_in_the_record() {
    let ws = Workshop::only(L8);
    let good = lesson_file(L8, FIXTURES, "good_plain.py");
    let (run, report) = check_report(&ws, L8, &good);
    assert_eq!(run.code, 0, "{}: {report:#}", run.stdout);
    let replay = replay_json(&ws, L8, "restart-stopped", &good);
    let claimed = claims(&replay);
    let ids: Vec<&str> = claimed.iter().map(|(p, _)| p.as_str()).collect();
    let all = ["names_done", "names_left", "no_host", "no_token", "no_sql", "no_code", "no_raw"];
    assert_eq!(ids, all, "{replay:#}");
    // The kind's facts are the lesson's; the record's the world's: each claim reads the same.
    let record = read_as(&replay, "has");
    for claim in &claimed {
        assert!(record.contains(claim), "{claim:?} is not in the record {record:?}");
    }
    let note = replay["verdict"]["note"].as_str().unwrap();
    assert!(note.starts_with("Gain:"), "{note}");
    let text = ws.run(&["watch", L8, "--ticket", "restart-stopped", "--code", &good, "--no-anim"]);
    let flat = text.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    let says = "of the same kind: it names checkout-1, checkout-2 as restarted, names checkout-3 \
        as not restarted, names no internal host";
    assert!(flat.contains(says), "{}", text.stdout);
}

#[test]
fn the_nearest_named_as_one_to_avoid_lacks_the_property_and_gets_no_gain() {
    let ws = Workshop::only(L8);
    let avoided = lesson_file(L8, FIXTURES, "nearest_avoided.py");
    let replay = replay_json(&ws, L8, "payment-namespace", &avoided);
    assert_eq!(last_event_kind(&replay), "no_recording", "{replay:#}");
    let why = lacks(&replay, "names_nearest").expect("names_nearest read and lacked");
    assert!(why.contains("must not name 'payments' as wrong"), "{why}");
    assert!(!replay["verdict"]["note"].as_str().unwrap_or("").starts_with("Gain"));
    let solution = replay_json(&ws, L8, "payment-namespace", "solution");
    assert!(has(&solution, "names_nearest") && has(&solution, "names_value"), "{solution:#}");
    assert!(solution["verdict"]["note"].as_str().unwrap().starts_with("Gain:"));
}

#[test]
fn a_property_that_cannot_be_read_or_is_not_declared_is_refused_at_its_line() {
    let ws = Workshop::only(L8);
    let text = ws.read(MANIFEST);
    let line_of = |text: &str, start: &str| {
        text.lines().position(|l| l.starts_with(start)).map(|n| n + 1).unwrap()
    };
    for (from, to, at, says) in [
        (
            "{ path = \"\", property = \"names_done\" },",
            "{ path = \"\", property = \"names_gone\" },",
            "id = \"partial-says-done\"",
            "partial-says-done: no [properties] declares 'names_gone' (declared: a_sentence, carries_code,",
        ),
        (
            "says = \"names {done} as restarted\"",
            "says = \"names {done} and {pods} as restarted\"",
            "[properties.names_done]",
            "property names_done: says names {pods}, but no expectation of it reads that fact",
        ),
        (
            "when = [{ contains = \"@facts.code\", not = true }]",
            "when = [{ contains = \"@args.1.code\", not = true }]",
            "[properties.no_code]",
            "property no_code: reads @args, which only a check's call has",
        ),
        (
            "facts = { done = [\"checkout-1\", \"checkout-2\"], left = [\"checkout-3\"], ",
            "facts = { done = [\"checkout-1\", \"checkout-2\"], ",
            "id = \"restart-message\"",
            "own_words restart-message: kind 'names-pods' has property 'names_left', which reads \
             the fact 'left'",
        ),
        (
            "{ id = \"leaks-trace\", properties = [\"carries_host\", \"carries_code\"] },",
            "{ id = \"leaks-trace\", says = \"it leaks\", properties = [\"carries_host\"] },",
            "id = \"restart-message\"",
            "own_words restart-message: kind 'leaks-trace' has both `says` and `properties`",
        ),
        (
            "{ path = \"\", property = \"names_value\" }] },",
            "{ path = \"\", contains = \"@facts.value\" }] },",
            "id = \"names-bad-value\"",
            "names-bad-value: reads @facts outside a property",
        ),
    ] {
        assert!(text.contains(from), "{from}");
        let changed = text.replacen(from, to, 1);
        ws.write(MANIFEST, &changed);
        let run =
            ws.run(&["check", L8, "--file", "lessons/messages-that-help/solution/messages.py"]);
        assert_eq!(run.code, 2, "{to}: {}", run.stdout);
        let line = line_of(&changed, at);
        let refused = format!("line {line}: {says}");
        assert!(run.stderr.contains(&refused), "{to}: wanted {refused}\n{}", run.stderr);
    }
    ws.write(MANIFEST, &text);
    let run = ws.run(&["check", L8, "--file", "lessons/messages-that-help/solution/messages.py"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn a_note_may_name_a_property_the_model_read_and_an_unknown_one_is_refused() {
    let ws = Workshop::only(L8);
    let text = ws.read(MANIFEST);
    let asked = "has_names_done = \">=1\"";
    assert!(text.contains(asked));
    ws.write(MANIFEST, &text.replacen(asked, "has_names_gone = \">=1\"", 1));
    let run = ws.run(&["watch", L8, "--ticket", "restart-stopped", "--code", "solution"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let refused = "'has_names_gone' is not something a run counts";
    assert!(run.stderr.contains(refused), "{}", run.stderr);
}
