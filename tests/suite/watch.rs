//! `workshop watch`: the cards of every ticket, code and runtime, the JSON event stream, bad input,
//! and the learner's own code replayed against the recordings.

use crate::common::*;

use serde_json::Value;

/// The five tickets of the issue, in the lesson's order.
const TICKETS: [&str; 5] = ["old-order", "wrong-id", "not-yours", "flaky-payment", "no-orders"];

/// Tool runs per replay, from the issue: (ticket, starter, structured).
const HARNESS_CALLS: [(&str, u64, u64); 5] = [
    ("old-order", 3, 1),
    ("wrong-id", 3, 1),
    ("not-yours", 3, 1),
    ("flaky-payment", 2, 2),
    ("no-orders", 3, 1),
];
const SDK_CALLS: [(&str, u64, u64); 5] = [
    ("old-order", 2, 1),
    ("wrong-id", 2, 1),
    ("not-yours", 2, 1),
    ("flaky-payment", 2, 2),
    ("no-orders", 2, 1),
];

fn ok(run: &Run) {
    assert_eq!(run.code, 0, "exit {}\nstdout:\n{}\nstderr:\n{}", run.code, run.stdout, run.stderr);
}

/// One replay as JSON.
fn replay(ws: &Workshop, ticket: &str, code: &str, runtime: &str) -> Value {
    let run = ws.run(&[
        "watch",
        "--ticket",
        ticket,
        "--code",
        code,
        "--runtime",
        runtime,
        "--format",
        "json",
    ]);
    ok(&run);
    run.json()
}

/// Every ticket's replay as JSON, keyed by ticket id.
fn replays(ws: &Workshop, code: &str, runtime: &str) -> Vec<Value> {
    let run = ws.run(&["watch", "--code", code, "--runtime", runtime, "--format", "json"]);
    ok(&run);
    match run.json() {
        Value::Array(all) => all,
        other => panic!("without --ticket the JSON is a list of replays, got {other}"),
    }
}

fn find<'a>(all: &'a [Value], ticket: &str) -> &'a Value {
    all.iter().find(|r| r["ticket"] == ticket).unwrap_or_else(|| panic!("no replay of {ticket}"))
}

fn kinds(replay: &Value) -> Vec<&str> {
    replay["events"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect()
}

fn tones(replay: &Value) -> Vec<&str> {
    events_of(replay, "attempt").iter().map(|e| e["tone"].as_str().unwrap()).collect()
}

fn events_of<'a>(replay: &'a Value, kind: &str) -> Vec<&'a Value> {
    replay["events"].as_array().unwrap().iter().filter(|e| e["kind"] == kind).collect()
}

fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    keys
}

// ---------------------------------------------------------------- the cards, as plain text

/// A snapshot of the plain cards of one replay. Piped stdout: no colour, no pacing, width 80.
macro_rules! cards {
    ($($name:ident: $ticket:literal, $code:literal, $runtime:literal;)*) => {$(
        #[test]
        fn $name() {
            let run = Workshop::lesson5().run(&["watch", "--ticket", $ticket, "--code", $code, "--runtime", $runtime]);
            ok(&run);
            assert_eq!(run.stderr, "");
            insta::assert_snapshot!(run.stdout);
        }
    )*};
}

cards! {
    cards_harness_old_order_starter: "old-order", "starter", "harness";
    cards_harness_old_order_structured: "old-order", "structured", "harness";
    cards_harness_wrong_id_starter: "wrong-id", "starter", "harness";
    cards_harness_wrong_id_structured: "wrong-id", "structured", "harness";
    cards_harness_not_yours_starter: "not-yours", "starter", "harness";
    cards_harness_not_yours_structured: "not-yours", "structured", "harness";
    cards_harness_flaky_payment_starter: "flaky-payment", "starter", "harness";
    cards_harness_flaky_payment_structured: "flaky-payment", "structured", "harness";
    cards_harness_no_orders_starter: "no-orders", "starter", "harness";
    cards_harness_no_orders_structured: "no-orders", "structured", "harness";
    cards_sdk_old_order_starter: "old-order", "starter", "sdk";
    cards_sdk_old_order_structured: "old-order", "structured", "sdk";
    cards_sdk_wrong_id_starter: "wrong-id", "starter", "sdk";
    cards_sdk_wrong_id_structured: "wrong-id", "structured", "sdk";
    cards_sdk_not_yours_starter: "not-yours", "starter", "sdk";
    cards_sdk_not_yours_structured: "not-yours", "structured", "sdk";
    cards_sdk_flaky_payment_starter: "flaky-payment", "starter", "sdk";
    cards_sdk_flaky_payment_structured: "flaky-payment", "structured", "sdk";
    cards_sdk_no_orders_starter: "no-orders", "starter", "sdk";
    cards_sdk_no_orders_structured: "no-orders", "structured", "sdk";
}

/// The codes a `--compare` of old-order runs, as its JSON says.
fn compared(ws: &Workshop) -> (String, String) {
    let json = ws.run(&["watch", "--ticket", "old-order", "--compare", "--format", "json"]).json();
    let code = |i: usize| json["runs"][i]["code"].as_str().unwrap().to_string();
    (code(0), code(1))
}

#[test]
fn compare_shows_the_fix_until_your_file_differs_from_the_starter_then_yours() {
    let ws = Workshop::lesson5();
    assert_eq!(ws.run(&["start", "structured-errors"]).code, 0);
    assert_eq!(compared(&ws), ("starter".into(), "structured".into()));
    let text = ws.run(&["watch", "--ticket", "old-order", "--compare"]);
    ok(&text);
    let words = flat(&text.stdout);
    assert!(words.starts_with("The starter beside the reference fix (structured): your file is still the starter. Once you edit it, --compare shows yours."), "{}", text.stdout);
    assert!(text.stdout.contains("starter against structured"), "{}", text.stdout);

    ws.work_file_from("bug_retry_always.py");
    assert_eq!(compared(&ws), ("starter".into(), "yours".into()));
    let text = ws.run(&["watch", "--ticket", "old-order", "--compare"]);
    let words = flat(&text.stdout);
    assert!(
        words.starts_with(
            "The starter beside yours (work/structured-errors/errors.py). The reference fix instead: --code structured"
        ),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("starter against yours"), "{}", text.stdout);
    // The fix is one option away, and a chosen code gets no note.
    let fix = ws.run(&["watch", "--ticket", "old-order", "--compare", "--code", "structured"]);
    assert!(
        fix.stdout.starts_with("structured-errors · ticket old-order · starter against structured"),
        "{}",
        fix.stdout
    );
}

#[test]
fn compare_harness_old_order_marks_where_the_runs_split() {
    let run = Workshop::lesson5().run(&["watch", "--ticket", "old-order", "--compare"]);
    ok(&run);
    assert_eq!(run.stdout.matches("the runs split here").count(), 1);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn compare_sdk_not_yours_marks_where_the_runs_split() {
    let run = Workshop::lesson5().run(&[
        "watch",
        "--ticket",
        "not-yours",
        "--runtime",
        "sdk",
        "--compare",
    ]);
    ok(&run);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn compare_of_a_file_with_the_same_results_never_splits() {
    // The starter against itself: the same events, so no split, and each run's verdict once.
    let ws = Workshop::lesson5();
    ws.write("learners/starter_copy.py", &ws.read("starter/structured-errors/errors.py"));
    let run = ws.run(&[
        "watch",
        "--ticket",
        "old-order",
        "--compare",
        "--code",
        "learners/starter_copy.py",
    ]);
    ok(&run);
    assert!(run.stdout.contains("the runs never split"), "{}", run.stdout);
    assert_eq!(run.stdout.matches("Verdict").count(), 2, "{}", run.stdout);
}

#[test]
fn expand_shows_the_raw_input_output_and_mcp_result() {
    let run = Workshop::lesson5().run(&[
        "watch",
        "--ticket",
        "flaky-payment",
        "--code",
        "structured",
        "--runtime",
        "sdk",
        "--expand",
    ]);
    ok(&run);
    assert!(run.stdout.contains("mcp__support__process_refund input"), "{}", run.stdout);
    assert!(run.stdout.contains("MCP CallToolResult"), "{}", run.stdout);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn expand_in_the_harness_shows_every_attempts_output() {
    let run = Workshop::lesson5().run(&[
        "watch",
        "--ticket",
        "old-order",
        "--code",
        "starter",
        "--expand",
    ]);
    ok(&run);
    assert_eq!(run.stdout.matches("              the tool returned").count(), 3, "{}", run.stdout);
    assert!(
        !run.stdout.contains("MCP CallToolResult"),
        "the harness has no MCP result:\n{}",
        run.stdout
    );
}

#[test]
fn without_a_ticket_off_a_terminal_every_ticket_replays_in_order() {
    let run = Workshop::lesson5().run(&["watch", "--code", "structured"]);
    ok(&run);
    let headers: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("structured-errors · ticket "))
        .map(|l| l.split(' ').nth(3).unwrap())
        .collect();
    let listed: Vec<&str> = headers.iter().copied().filter(|t| TICKETS.contains(t)).collect();
    assert_eq!(listed, TICKETS, "{}", run.stdout);
}

#[test]
fn piped_output_is_plain_and_colour_can_be_forced() {
    let ws = Workshop::lesson5();
    let plain = ws.run(&["watch", "--ticket", "old-order"]);
    ok(&plain);
    assert!(!plain.stdout.contains('\x1b'), "{}", plain.stdout);
    let coloured = ws.run(&["--color", "always", "watch", "--ticket", "old-order"]);
    ok(&coloured);
    assert!(coloured.stdout.contains("\x1b["), "{}", coloured.stdout);
}

#[test]
fn ascii_glyphs_leave_no_unicode_in_the_cards() {
    let ws = Workshop::lesson5();
    for args in [
        &["--ascii", "watch", "--ticket", "old-order", "--compare"][..],
        &["--ascii", "watch", "--code", "starter"],
    ] {
        let run = ws.run(args);
        ok(&run);
        let odd: Vec<&str> = run.stdout.lines().filter(|l| !l.is_ascii()).collect();
        assert!(odd.is_empty(), "{args:?}:\n{}", odd.join("\n"));
    }
}

#[test]
fn a_replay_that_stopped_early_never_has_a_green_verdict() {
    let ws = Workshop::lesson5();
    let green = "\x1b[32;1mVerdict";
    let verdict = |args: &[&str]| {
        let run =
            ws.run(&[&["--color", "always", "watch", "--ticket", "old-order"][..], args].concat());
        run.stdout.lines().find(|l| l.contains("Verdict")).unwrap_or_default().to_string()
    };
    assert!(verdict(&["--code", "structured"]).starts_with(green));
    for file in ["learners/changed_message.py", "learners/does_not_load.py"] {
        ws.copy_watch_fixture(file, file);
        let line = verdict(&["--code", file]);
        assert!(line.contains("Verdict") && !line.starts_with(green), "{file}: {line:?}");
    }
}

#[test]
fn the_header_names_lesson_ticket_code_runtime_and_where_replies_come_from() {
    let run = Workshop::lesson5().run(&[
        "watch",
        "--ticket",
        "wrong-id",
        "--code",
        "starter",
        "--runtime",
        "sdk",
    ]);
    ok(&run);
    let mut lines = run.stdout.lines();
    assert_eq!(
        lines.next(),
        Some("structured-errors · ticket wrong-id · code starter · runtime sdk")
    );
    assert_eq!(
        lines.next(),
        Some("Replies: authored for this lesson by its authors, not a live model run.")
    );
}

// ---------------------------------------------------------------- the JSON event stream

#[test]
fn json_has_the_shape_of_the_issue() {
    let ws = Workshop::lesson5();
    for runtime in ["harness", "sdk"] {
        for code in ["starter", "structured"] {
            for replay in replays(&ws, code, runtime)
                .into_iter()
                .filter(|r| TICKETS.contains(&r["ticket"].as_str().unwrap()))
            {
                assert_eq!(
                    keys(&replay),
                    ["code", "events", "lesson", "runtime", "ticket", "verdict"]
                );
                assert_eq!(replay["lesson"], "structured-errors");
                assert_eq!(replay["code"], code);
                assert_eq!(replay["runtime"], runtime);
                let verdict_keys: Vec<&str> = keys(&replay["verdict"])
                    .into_iter()
                    .filter(|k| *k != "refunds_paid" && *k != "note")
                    .collect();
                let want = ["counts", "harmed", "text", "tone", "tool_calls", "wasted_retries"];
                assert_eq!(verdict_keys, want);
                assert!(replay["verdict"]["tool_calls"].is_u64());
                assert!(replay["verdict"]["wasted_retries"].is_u64());
                assert!(!replay["verdict"]["text"].as_str().unwrap().is_empty());
                let kinds = kinds(&replay);
                for kind in &kinds {
                    assert!(
                        ["customer", "tool_call", "attempt", "wait", "reply"].contains(kind),
                        "{kind} in a replay of the recordings"
                    );
                }
                assert_eq!(kinds.first(), Some(&"customer"));
                assert_eq!(kinds.last(), Some(&"reply"), "{replay}");
            }
        }
    }
}

#[test]
fn json_tool_calls_per_replay_are_those_of_the_issue() {
    let ws = Workshop::lesson5();
    for (runtime, table) in [("harness", HARNESS_CALLS), ("sdk", SDK_CALLS)] {
        let starter = replays(&ws, "starter", runtime);
        let structured = replays(&ws, "structured", runtime);
        for (ticket, with_starter, with_structured) in table {
            for (all, want, code) in
                [(&starter, with_starter, "starter"), (&structured, with_structured, "structured")]
            {
                let replay = find(all, ticket);
                assert_eq!(replay["verdict"]["tool_calls"], want, "{runtime}/{ticket} with {code}");
                assert_eq!(
                    events_of(replay, "attempt").len() as u64,
                    want,
                    "{runtime}/{ticket} with {code}"
                );
            }
        }
    }
}

#[test]
fn json_every_model_turn_says_it_was_authored() {
    let ws = Workshop::lesson5();
    for runtime in ["harness", "sdk"] {
        for code in ["starter", "structured"] {
            for replay in replays(&ws, code, runtime) {
                for event in replay["events"].as_array().unwrap() {
                    let model_turn = event["kind"] == "tool_call" || event["kind"] == "reply";
                    if !model_turn {
                        assert!(
                            event.get("provenance").is_none(),
                            "only model turns carry provenance: {event}"
                        );
                        continue;
                    }
                    let provenance = &event["provenance"];
                    assert_eq!(provenance["source"], "authored", "{event}");
                    assert!(!provenance["by"].as_str().unwrap_or("").is_empty(), "{event}");
                    assert!(!provenance["written"].as_str().unwrap_or("").is_empty(), "{event}");
                }
            }
        }
    }
}

#[test]
fn json_tool_calls_carry_the_call_in_words_and_its_input() {
    let ws = Workshop::lesson5();
    let harness = replay(&ws, "old-order", "structured", "harness");
    let call = events_of(&harness, "tool_call")[0];
    assert_eq!(call["tool"], "process_refund");
    assert_eq!(call["input"], serde_json::json!({"order_id": "0871"}));
    assert_eq!(call["words"], "refunds order 0871");
    let sdk = replay(&ws, "no-orders", "structured", "sdk");
    let call = events_of(&sdk, "tool_call")[0];
    assert_eq!(call["tool"], "mcp__support__lookup_orders");
    assert_eq!(call["words"], "looks up the customer's orders");
    // Every attempt answers the call before it.
    for replay in [&harness, &sdk] {
        let mut last_call = None;
        for event in replay["events"].as_array().unwrap() {
            match event["kind"].as_str() {
                Some("tool_call") => last_call = Some(event["id"].clone()),
                Some("attempt") => assert_eq!(Some(event["tool_use_id"].clone()), last_call),
                _ => {}
            }
        }
    }
}

#[test]
fn json_retried_refusals_are_wasted() {
    let ws = Workshop::lesson5();
    for ticket in ["old-order", "wrong-id", "not-yours", "no-orders"] {
        let harness = replay(&ws, ticket, "starter", "harness");
        assert_eq!(tones(&harness), ["wasted", "wasted", "wasted"], "harness/{ticket}");
        assert_eq!(harness["verdict"]["wasted_retries"], 2, "harness/{ticket}");
        let sdk = replay(&ws, ticket, "starter", "sdk");
        assert_eq!(tones(&sdk), ["wasted", "wasted"], "sdk/{ticket}");
        assert_eq!(sdk["verdict"]["wasted_retries"], 1, "sdk/{ticket}");
    }
}

#[test]
fn json_a_transient_failure_is_retried_and_then_works() {
    let ws = Workshop::lesson5();
    for runtime in ["harness", "sdk"] {
        for code in ["starter", "structured"] {
            let replay = replay(&ws, "flaky-payment", code, runtime);
            assert_eq!(tones(&replay), ["retried", "worked"], "{runtime} with {code}");
            assert_eq!(replay["verdict"]["wasted_retries"], 0);
            let first = events_of(&replay, "attempt")[0];
            assert_eq!(first["failed"], true);
            assert_eq!(first["retried"], true);
        }
    }
    let structured = replay(&ws, "flaky-payment", "structured", "harness");
    let first = events_of(&structured, "attempt")[0];
    assert_eq!(first["category"], "transient");
    assert_eq!(first["retryable"], true);
}

#[test]
fn json_a_single_refusal_is_reported_and_not_retried() {
    let ws = Workshop::lesson5();
    for (ticket, category) in
        [("old-order", "business"), ("wrong-id", "validation"), ("not-yours", "permission")]
    {
        for runtime in ["harness", "sdk"] {
            let replay = replay(&ws, ticket, "structured", runtime);
            assert_eq!(tones(&replay), ["reported"], "{runtime}/{ticket}");
            let attempt = events_of(&replay, "attempt")[0];
            assert_eq!(attempt["category"], category);
            assert_eq!(attempt["retryable"], false);
            assert_eq!(attempt["retried"], false);
            assert_eq!(replay["verdict"]["wasted_retries"], 0);
        }
    }
}

#[test]
fn json_nothing_found_is_an_answer_that_worked() {
    let ws = Workshop::lesson5();
    for runtime in ["harness", "sdk"] {
        let replay = replay(&ws, "no-orders", "structured", runtime);
        assert_eq!(tones(&replay), ["worked"], "{runtime}");
        assert_eq!(events_of(&replay, "attempt")[0]["failed"], false);
    }
}

#[test]
fn json_the_harness_waits_between_attempts_and_the_sdk_does_not() {
    let ws = Workshop::lesson5();
    let harness = replay(&ws, "old-order", "starter", "harness");
    let waits = events_of(&harness, "wait");
    assert_eq!(waits.len(), 2);
    assert!(waits.iter().all(|w| w["ms"].as_u64().is_some_and(|ms| ms > 0)), "{waits:?}");
    assert_eq!(kinds(&harness)[2..7], ["attempt", "wait", "attempt", "wait", "attempt"]);
    let sdk = replay(&ws, "old-order", "starter", "sdk");
    assert!(events_of(&sdk, "wait").is_empty());
    // The same seed gives the same waits on every replay.
    assert_eq!(replay(&ws, "old-order", "starter", "harness")["events"], harness["events"]);
}

#[test]
fn json_sdk_attempts_carry_the_mcp_result() {
    let ws = Workshop::lesson5();
    let replay = replay(&ws, "old-order", "structured", "sdk");
    let attempt = events_of(&replay, "attempt")[0];
    assert_eq!(attempt["wire"]["isError"], true);
    assert_eq!(attempt["wire"]["content"][0]["type"], "text");
    // In the harness runtime the model receives a Messages API tool_result block instead.
    let harness = self::replay(&ws, "old-order", "structured", "harness");
    let wire = &events_of(&harness, "attempt")[0]["wire"];
    assert_eq!(wire["type"], "tool_result", "{wire}");
    assert_eq!(wire["is_error"], true, "{wire}");
}

#[test]
fn json_compare_holds_both_runs_and_where_they_split() {
    let run = Workshop::lesson5().run(&[
        "watch",
        "--ticket",
        "old-order",
        "--compare",
        "--format",
        "json",
    ]);
    ok(&run);
    let both = run.json();
    assert_eq!(both["compare"], true);
    assert_eq!(both["ticket"], "old-order");
    assert_eq!(both["runs"][0]["code"], "starter");
    assert_eq!(both["runs"][1]["code"], "structured");
    // Customer and the tool call are shared; the first attempt differs.
    assert_eq!(both["split_at"], 2);
    assert_eq!(both["runs"][0]["events"][2]["kind"], "attempt");
}

#[test]
fn json_without_a_ticket_lists_every_ticket_in_order() {
    let all = replays(&Workshop::lesson5(), "structured", "harness");
    let ids: Vec<&str> =
        all.iter().map(|r| r["ticket"].as_str().unwrap()).filter(|t| TICKETS.contains(t)).collect();
    assert_eq!(ids, TICKETS);
}

// ---------------------------------------------------------------- bad input

#[test]
fn an_unknown_ticket_lists_the_valid_ones() {
    let run = Workshop::lesson5().run(&["watch", "--ticket", "lost-parcel"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("'lost-parcel'"), "{}", run.stderr);
    for ticket in TICKETS {
        assert!(run.stderr.contains(ticket), "{ticket} missing from: {}", run.stderr);
    }
    assert_eq!(run.stdout, "");
}

#[test]
fn an_unknown_code_lists_the_valid_ones() {
    let run = Workshop::lesson5().run(&["watch", "--ticket", "old-order", "--code", "fixed"]);
    assert_eq!(run.code, 2);
    for word in ["'fixed'", "starter", "structured", "yours", "path"] {
        assert!(run.stderr.contains(word), "{word} missing from: {}", run.stderr);
    }
    assert_eq!(run.stdout, "");
}

#[test]
fn an_unknown_runtime_lists_the_valid_ones() {
    let run =
        Workshop::lesson5().run(&["watch", "--ticket", "old-order", "--runtime", "langchain"]);
    assert_eq!(run.code, 2);
    for word in ["'langchain'", "harness", "sdk"] {
        assert!(run.stderr.contains(word), "{word} missing from: {}", run.stderr);
    }
    assert_eq!(run.stdout, "");
}

#[test]
fn code_yours_without_a_work_file_says_to_run_start() {
    let run = Workshop::lesson5().run(&["watch", "--ticket", "old-order", "--code", "yours"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("work/structured-errors/errors.py"), "{}", run.stderr);
    assert!(run.stderr.contains("workshop start structured-errors"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

#[test]
fn code_yours_replays_the_work_file() {
    let ws = Workshop::lesson5();
    ws.write(
        "work/structured-errors/errors.py",
        &ws.read("lessons/structured-errors/solution/errors.py"),
    );
    let replay = replay(&ws, "old-order", "yours", "harness");
    assert_eq!(replay["code"], "yours");
    assert_eq!(replay["verdict"]["tool_calls"], 1);
    assert_eq!(kinds(&replay).last(), Some(&"reply"));
}

#[test]
fn a_speed_out_of_range_is_refused() {
    for speed in ["0", "-1", "1000", "NaN"] {
        let run = Workshop::lesson5().run(&[
            "watch",
            "--ticket",
            "old-order",
            &format!("--speed={speed}"),
        ]);
        assert_eq!(run.code, 2, "--speed {speed}: {}", run.stdout);
        assert!(run.stderr.contains("--speed"), "{}", run.stderr);
    }
}

#[test]
fn a_file_that_does_not_load_is_reported_in_the_replay_with_file_and_line() {
    let ws = Workshop::lesson5();
    ws.copy_watch_fixture("learners/does_not_load.py", "learners/does_not_load.py");
    let run = ws.run(&["watch", "--ticket", "old-order", "--code", "learners/does_not_load.py"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stdout.contains("Code error    learners/does_not_load.py, line 9"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("SyntaxError"), "{}", run.stdout);
    assert!(!run.stdout.contains("runner.py"), "the runner's own frames leak:\n{}", run.stdout);
    insta::assert_snapshot!(run.stdout);

    let json = ws.run(&[
        "watch",
        "--ticket",
        "old-order",
        "--code",
        "learners/does_not_load.py",
        "--format",
        "json",
    ]);
    assert_eq!(json.code, 2);
    let replay = json.json();
    assert_eq!(kinds(&replay), ["customer", "code_error"]);
    let message = replay["events"][1]["message"].as_str().unwrap();
    assert!(message.starts_with("learners/does_not_load.py, line 9"), "{message}");
    assert_eq!(replay["verdict"]["tool_calls"], 0);
}

#[test]
fn a_file_that_does_not_load_is_reported_for_every_ticket() {
    let ws = Workshop::lesson5();
    ws.copy_watch_fixture("learners/does_not_load.py", "learners/does_not_load.py");
    let run = ws.run(&["watch", "--code", "learners/does_not_load.py", "--format", "json"]);
    assert_eq!(run.code, 2);
    let all = run.json();
    let all = all.as_array().unwrap();
    assert!(all.len() >= TICKETS.len());
    for replay in all {
        assert_eq!(kinds(replay).last(), Some(&"code_error"), "{replay}");
    }
}

#[test]
fn a_file_that_raises_in_a_call_is_reported_and_cannot_finish() {
    let ws = Workshop::lesson5();
    let file = "learners/raises_in_fail.py";
    ws.copy_watch_fixture(file, file);
    for runtime in ["harness", "sdk"] {
        let run = ws.run(&[
            "watch",
            "--ticket",
            "old-order",
            "--code",
            file,
            "--runtime",
            runtime,
            "--format",
            "json",
        ]);
        assert_eq!(run.code, 2, "{runtime}: {}", run.stdout);
        let replay = run.json();
        assert_eq!(kinds(&replay), ["customer", "tool_call", "code_error"], "{runtime}");
        let error = &replay["events"][2];
        assert!(
            error["message"].as_str().unwrap().contains("ValueError: no failure for business"),
            "{error}"
        );
        assert!(error["message"].as_str().unwrap().contains("line 8"), "{error}");
        assert!(error["call"].as_str().unwrap().starts_with("fail('business', "), "{error}");
        assert_eq!(error["printed"], "building a failure for business\n");
    }
}

#[test]
fn json_without_a_ticket_is_a_list_even_of_one() {
    // Machines get one shape per question: --ticket gives an object, no --ticket a list.
    let ws = Workshop::lesson5();
    let one = ws.run(&["watch", "--ticket", "old-order", "--format", "json"]);
    assert!(one.json().is_object());
    // Only old-order left in the sdk runtime: still a list.
    let mut lesson = ws.read("lessons/structured-errors/lesson.toml");
    for ticket in &TICKETS[1..] {
        let id = format!("id = \"{ticket}\"\n");
        assert!(lesson.contains(&id));
        lesson = lesson.replace(&id, &format!("{id}runtimes = [\"harness\"]\n"));
    }
    ws.write("lessons/structured-errors/lesson.toml", &lesson);
    let all = ws.run(&["watch", "--runtime", "sdk", "--format", "json"]);
    assert_eq!(all.code, 0, "{}", all.stderr);
    let all = all.json();
    assert!(all.is_array(), "{all}");
    assert_eq!(all[0]["ticket"], "old-order");
}

// ---------------------------------------------------------------- your own code

/// A replay without the fields that name the code.
fn without_code(mut replay: Value) -> Value {
    replay.as_object_mut().unwrap().remove("code");
    replay
}

#[test]
fn a_file_written_differently_with_the_same_results_replays_in_full() {
    let ws = Workshop::lesson5();
    let file = "learners/same_results_rewritten.py";
    ws.copy_watch_fixture(file, file);
    for runtime in ["harness", "sdk"] {
        let reference = replays(&ws, "structured", runtime);
        let mine = replays(&ws, file, runtime);
        assert_eq!(mine.len(), reference.len());
        for (mine, reference) in mine.into_iter().zip(reference) {
            let ticket = mine["ticket"].as_str().unwrap().to_string();
            assert_eq!(mine["code"], file);
            assert_eq!(kinds(&mine).last(), Some(&"reply"), "{runtime}/{ticket}: {mine}");
            // The same run, so the same verdict, the fix's note included: notes follow what the
            // run did, not which code ran.
            assert!(
                reference["verdict"]["note"].as_str().unwrap().starts_with("Gain"),
                "{runtime}/{ticket}"
            );
            assert_eq!(mine["verdict"], reference["verdict"], "{runtime}/{ticket}");
            // The same events, down to every tool output (key order aside) and every reply.
            assert_eq!(without_code(mine), without_code(reference), "{runtime}/{ticket}");
        }
    }
}

#[test]
fn what_the_code_prints_is_shown_apart_cut_short_and_changes_nothing() {
    let ws = Workshop::lesson5();
    let file = "learners/prints_a_lot.py";
    ws.copy_watch_fixture(file, file);
    let run = ws.run(&["watch", "--ticket", "flaky-payment", "--code", file]);
    ok(&run);
    assert!(run.stdout.contains("printed: fail('transient'): trace line 0\n"), "{}", run.stdout);
    assert!(run.stdout.contains("trace line 9\n"), "{}", run.stdout);
    assert!(!run.stdout.contains("trace line 10\n"), "{}", run.stdout);
    assert!(
        run.stdout.contains("… 91 more lines (all of them in --format json)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("Verdict       Tried twice: the retry got it through."),
        "{}",
        run.stdout
    );
    let replay = replay(&ws, "flaky-payment", file, "harness");
    let first = events_of(&replay, "attempt")[0];
    let printed = first["printed"].as_str().unwrap();
    assert_eq!(printed.lines().count(), 101, "{printed}");
    assert!(printed.ends_with("should_retry saw transient\n"), "{printed}");
}

/// The lines of the No recording card: from its label to the verdict.
fn no_recording_card(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with("No recording"))
        .take_while(|l| !l.starts_with("Verdict"))
        .collect()
}

#[test]
fn a_file_with_a_changed_message_stops_at_a_compact_no_recording_card() {
    let ws = Workshop::lesson5();
    let file = "learners/changed_message.py";
    ws.copy_watch_fixture(file, file);
    let run = ws.run(&["watch", "--ticket", "old-order", "--code", file]);
    // An answer, not a crash.
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "");
    let text = &run.stdout;
    let card = no_recording_card(text);
    // Read at a glance: at most 13 lines, none wider than the 80 columns of a plain replay.
    assert!(card.len() <= 13, "{} lines:\n{}", card.len(), card.join("\n"));
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    let card = card.join("\n");
    assert!(card.contains("the model would now receive: tool_result, is_error:"), "{card}");
    assert!(
        card.contains("Closest       recordings/structured-errors/harness/old-order.jsonl:3"),
        "{card}"
    );
    // The changed lines of the diff, from where they differ, wrapped.
    assert!(card.contains("- …\\\"message\\\":\\\"Order 0871 was bought"), "{card}");
    assert!(card.contains("+ …\\\"message\\\":\\\"Refund failed. Order 0871"), "{card}");
    assert!(card.contains("In short      your run adds `Refund failed.`"), "{card}");
    assert!(
        card.contains("--live with ANTHROPIC_API_KEY") && card.contains("./workshop record"),
        "{card}"
    );
    assert!(!text.contains("Agent replies"), "no reply is invented:\n{text}");
    // Then the verdict of what did run.
    assert!(text.contains("Verdict       Tried once, then the replay stopped"), "{text}");
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn expand_shows_the_whole_request_and_diff_of_a_no_recording_card_wrapped() {
    let ws = Workshop::lesson5();
    let file = "learners/changed_message.py";
    ws.copy_watch_fixture(file, file);
    let run = ws.run(&["watch", "--ticket", "old-order", "--code", file, "--expand"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = &run.stdout;
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    let card = no_recording_card(text).join("\n");
    assert!(card.contains("the model would now receive:\n"), "{card}");
    assert!(card.contains("\"tool_use_id\": \"toolu_"), "the whole request:\n{card}");
    assert!(card.contains("--- recorded request"), "{card}");
    assert!(card.contains("+++ your run's request"), "{card}");
    assert!(card.contains("@@ -21,7 +21,7 @@"), "{card}");
}

#[test]
fn json_a_file_with_a_changed_message_ends_in_no_recording() {
    let ws = Workshop::lesson5();
    let file = "learners/changed_message.py";
    ws.copy_watch_fixture(file, file);
    for (runtime, calls) in [("harness", 1), ("sdk", 1)] {
        let replay = replay(&ws, "wrong-id", file, runtime);
        assert_eq!(
            kinds(&replay),
            ["customer", "tool_call", "attempt", "no_recording"],
            "{runtime}"
        );
        assert_eq!(replay["verdict"]["tool_calls"], calls);
        let stop = events_of(&replay, "no_recording")[0];
        let closest = stop["closest"].as_str().unwrap();
        assert!(
            closest.starts_with(&format!("recordings/structured-errors/{runtime}/wrong-id.jsonl:")),
            "{closest}"
        );
        let diff = stop["diff"].as_str().unwrap();
        assert!(diff.contains(&format!("--- recorded request ({closest})")), "{diff}");
        assert!(diff.lines().any(|l| l.starts_with('+') && l.contains("Refund failed.")), "{diff}");
        assert!(diff.lines().any(|l| l.starts_with('-') && !l.starts_with("---")), "{diff}");
        let sent = stop["sent"].to_string();
        assert!(sent.contains("tool_result") && sent.contains("Refund failed."), "{sent}");
        assert!(!stop["explanation"].as_str().unwrap().is_empty());
    }
}

#[test]
fn a_long_code_path_wraps_the_header_to_the_width() {
    let w = Workshop::lesson5();
    let long =
        "learners/a/folder/with/a/rather/long/name/that/keeps/going/on/and/on/reference_copy.py";
    w.write(long, &w.read("lessons/structured-errors/solution/errors.py"));
    let run = w.run(&["watch", "--ticket", "old-order", "--code", long]);
    ok(&run);
    let header: Vec<&str> = run.stdout.lines().take_while(|l| !l.is_empty()).collect();
    // The path itself is longer than the width: it keeps a line of its own, whole, so it copies.
    assert!(header.contains(&format!("code {long}").as_str()), "{}", header.join("\n"));
    let others = header.iter().filter(|l| !l.contains(long));
    assert!(others.clone().all(|l| l.chars().count() <= 80), "{}", header.join("\n"));
    assert!(header.iter().any(|l| l.contains("runtime harness")), "{}", header.join("\n"));
}

#[test]
fn before_start_watch_shows_the_starter_failing_beside_the_fix_never_the_fix_alone() {
    let ws = Workshop::lesson5();
    let run = ws.run(&["watch", "--ticket", "old-order", "--no-anim"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("starter against structured"), "{}", run.stdout);
    let starter = run.stdout.find("── starter ──").expect("the starter's run is shown");
    let fix = run.stdout.find("── structured ──").expect("the fix's run is shown");
    assert!(starter < fix, "the starter comes first:\n{}", run.stdout);
    // Once started, the learner's own code is replayed alone.
    assert_eq!(ws.run(&["start", "structured-errors"]).code, 0);
    let after = ws.run(&["watch", "--ticket", "old-order", "--no-anim"]);
    assert!(
        after.stdout.contains("code yours") && !after.stdout.contains("code structured"),
        "{}",
        after.stdout
    );
}

#[test]
fn an_animated_replay_reads_keys_q_ends_it_and_nothing_is_echoed() {
    let ws = Workshop::lesson5();
    // Slow enough that no card after the first could appear on its own while the test runs.
    let Some(term) = Tmux::start(&ws, "watch --ticket old-order --code structured --speed 0.01")
    else {
        eprintln!("tmux is not available: skipped");
        return;
    };
    term.wait_for("Customer");
    term.keys(&["x", "q"]);
    let screen = term.wait_for("EXITED 0");
    assert!(screen.contains("(replay ended)"), "{screen}");
    assert!(!screen.contains("Verdict"), "q ended it before the verdict:\n{screen}");
    assert!(
        !screen.lines().any(|l| l.trim() == "xq" || l.trim() == "q"),
        "keys were echoed:\n{screen}"
    );
}

#[test]
fn an_animated_replay_at_a_speed_near_zero_waits_instead_of_panicking() {
    let ws = Workshop::lesson5();
    let Some(term) = Tmux::start(&ws, "watch --ticket old-order --code structured --speed 1e-300")
    else {
        eprintln!("tmux is not available: skipped");
        return;
    };
    term.wait_for("Customer");
    term.keys(&["q"]);
    let screen = term.wait_for("EXITED ");
    assert!(screen.contains("EXITED 0"), "{screen}");
}

#[test]
fn an_animated_replay_skips_each_pause_on_space_or_enter() {
    let ws = Workshop::lesson5();
    let Some(term) = Tmux::start(&ws, "watch --ticket old-order --code structured --speed 0.01")
    else {
        eprintln!("tmux is not available: skipped");
        return;
    };
    term.wait_for("Customer");
    for _ in 0..4 {
        term.keys(&["Space", "Enter"]);
    }
    let screen = term.wait_for("EXITED 0");
    assert!(screen.contains("Verdict"), "{screen}");
}
