//! Lesson 9, `mcp-errors`: the learner writes an MCP server and the runner is its client. The
//! JSON-RPC exchange is on the cards, each message saying whether the model read it; a result
//! reaches the model, an error follows the lesson's client policy, and an unknown tool makes the
//! client read `tools/list` again. In both runtimes.

use crate::common::*;

use serde_json::Value;

const LESSON: &str = "mcp-errors";
const STARTER: &str = "starter/mcp-errors/server.py";
const SOLUTION: &str = "lessons/mcp-errors/solution/server.py";
const FIXTURES: &str = "tests/fixtures/mcp-errors";

const ALL: [&str; 7] = [
    "failure-is-a-result",
    "failure-names-the-fix",
    "unknown-tool-is-a-protocol-error",
    "unknown-method-is-32601",
    "answers-its-request",
    "success-is-content",
    "lists-its-tools",
];

/// The JSON-RPC messages of a replay: (direction, method, reader).
fn exchange(replay: &Value) -> Vec<(String, String, String)> {
    events_of_kind(replay, "rpc")
        .iter()
        .map(|e| {
            let text = |k: &str| e[k].as_str().unwrap_or_default().to_string();
            (text("direction"), text("method"), text("reader"))
        })
        .collect()
}

fn counts(replay: &Value) -> &Value {
    &replay["verdict"]["counts"]
}

fn replay_in(ws: &Workshop, ticket: &str, code: &str, runtime: &str) -> Value {
    let picked = ["--ticket", ticket, "--code", code, "--runtime", runtime];
    let run = ws.run(&[&["watch", LESSON][..], &picked[..], &["--format", "json"][..]].concat());
    assert_eq!(run.code, 0, "{ticket} with {code} in {runtime}: {}", run.stderr);
    run.json()
}

#[test]
fn the_solution_passes_every_check_and_the_starter_fails_the_three_it_gets_wrong() {
    let ws = Workshop::only(LESSON);
    let (run, report) = check_report(&ws, LESSON, SOLUTION);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(check_ids(&report), ALL);
    let (run, report) = check_report(&ws, LESSON, STARTER);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let failing = [ALL[0], ALL[1], ALL[2]];
    assert_eq!(ids_with(&report, "fail"), failing);
    let first = check(&report, "failure-is-a-result");
    assert_eq!(first["guidance"]["mistake"], "a JSON-RPC error for a tool's failure", "{first}");
    let unknown = check(&report, "unknown-tool-is-a-protocol-error");
    assert_eq!(unknown["guidance"]["mistake"], "an unknown tool sent as a result", "{unknown}");
}

#[test]
fn each_named_mistake_fails_exactly_the_check_that_names_it() {
    let ws = Workshop::only(LESSON);
    let cases = [
        ("snake_flag.py", "failure-is-a-result", "is_error for isError"),
        ("error_500.py", "failure-names-the-fix", "Error 500"),
        ("no_id.py", "answers-its-request", "no id"),
    ];
    for (file, failing, mistake) in cases {
        let (run, report) = check_report(&ws, LESSON, &format!("lessons/{LESSON}/mistakes/{file}"));
        assert_eq!(run.code, 1, "{file}: {}", run.stdout);
        assert_eq!(ids_with(&report, "fail"), [failing], "{file}");
        assert_eq!(check(&report, failing)["guidance"]["mistake"], mistake, "{file}");
    }
}

#[test]
fn a_case_passes_none_for_a_table_that_says_none_is_true() {
    let ws = Workshop::only(LESSON);
    let (_, report) = check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, "sees_none.py"));
    // Only a real None makes this file answer -32602.
    assert_eq!(check(&report, "unknown-tool-is-a-protocol-error")["status"], "pass", "{report}");
}

#[test]
fn an_unknown_tool_makes_the_client_read_tools_list_and_offer_what_it_lists_in_both_runtimes() {
    let ws = Workshop::only(LESSON);
    for runtime in ["harness", "sdk"] {
        let replay = replay_in(&ws, "stale-tool", "fixed", runtime);
        let want: Vec<(String, String, String)> = [
            ("sent", "tools/call", "client"),
            ("received", "tools/call", "taken_back"),
            ("sent", "tools/list", "client"),
            ("received", "tools/list", "listed"),
            ("sent", "tools/call", "client"),
            ("received", "tools/call", "model"),
        ]
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
        assert_eq!(exchange(&replay), want, "{runtime}");
        let rpc = events_of_kind(&replay, "rpc");
        assert_eq!(rpc[1]["message"]["error"]["code"], -32602, "{runtime}");
        assert_eq!(rpc[1]["read"], false);
        assert_eq!(rpc[5]["read"], true);
        // The server is asked for its tools by their own names; the model calls them by the
        // runtime's.
        assert_eq!(rpc[0]["message"]["params"]["name"], "get_p95");
        let calls = events_of_kind(&replay, "tool_call");
        let named = if runtime == "sdk" { "mcp__oncall__get_metrics" } else { "get_metrics" };
        assert_eq!(calls[1]["tool"], named, "{runtime}");
        assert_eq!(counts(&replay)["relists"], 1);
        assert_eq!(counts(&replay)["protocol_errors"], 1);
        assert_eq!(last_event_kind(&replay), "reply");
        let note = replay["verdict"]["note"].as_str().unwrap();
        assert!(note.starts_with("Gain"), "{note}");
    }
}

#[test]
fn an_unknown_tool_answered_as_a_result_reaches_the_model_and_no_list_is_read() {
    let ws = Workshop::only(LESSON);
    for runtime in ["harness", "sdk"] {
        let replay = replay_in(&ws, "stale-tool", "starter", runtime);
        let rpc = events_of_kind(&replay, "rpc");
        assert_eq!(rpc.len(), 2, "{runtime}: {rpc:?}");
        assert_eq!(rpc[1]["reader"], "model");
        assert_eq!(rpc[1]["message"]["result"]["isError"], true);
        assert_eq!(counts(&replay)["tool_errors"], 1);
        assert_eq!(counts(&replay)["relists"], 0);
    }
}

#[test]
fn a_protocol_error_never_reaches_the_model_and_the_host_ends_the_run_when_it_comes_twice() {
    let ws = Workshop::only(LESSON);
    for runtime in ["harness", "sdk"] {
        let replay = replay_in(&ws, "payment-namespace", "starter", runtime);
        let readers: Vec<&str> = events_of_kind(&replay, "rpc")
            .iter()
            .filter(|e| e["direction"] == "received")
            .map(|e| e["reader"].as_str().unwrap())
            .collect();
        assert_eq!(readers, ["taken_back", "ended"], "{runtime}");
        assert_eq!(last_event_kind(&replay), "rpc_ended");
        assert_eq!(counts(&replay)["ends"], "rpc_ended");
        assert_eq!(counts(&replay)["protocol_errors"], 2);
        let ended = &events_of_kind(&replay, "rpc_ended")[0]["message"];
        assert_eq!(ended, "MCP error -32603: Internal error");
    }
}

#[test]
fn a_good_tool_error_is_read_flagged_and_the_model_corrects_its_call() {
    let ws = Workshop::only(LESSON);
    let replay = replay_in(&ws, "payment-namespace", "fixed", "sdk");
    let first = events_of_kind(&replay, "rpc")[1];
    assert_eq!(first["reader"], "model");
    assert_eq!(first["message"]["result"]["isError"], true);
    let calls = events_of_kind(&replay, "tool_call");
    assert_eq!(calls[1]["input"]["namespace"], "payments");
    assert_eq!(counts(&replay)["tool_errors"], 1);
    // The flag spelled the Python way is no flag on the MCP wire: the same text, read as a success.
    let snake = replay_in(&ws, "payment-namespace", "snake-flag", "sdk");
    assert_eq!(counts(&snake)["tool_errors"], 0);
    assert!(snake["verdict"]["note"].as_str().unwrap().contains("isError"), "{}", snake["verdict"]);
}

#[test]
fn a_response_without_its_id_is_one_the_client_cannot_use() {
    let ws = Workshop::only(LESSON);
    let replay = replay_in(&ws, "payment-namespace", "no-id", "harness");
    let answer = events_of_kind(&replay, "rpc")[1];
    assert!(answer["problem"].as_str().unwrap().contains("no id"), "{answer}");
    assert_eq!(answer["read"], false);
}

#[test]
fn the_cards_show_each_message_and_whether_the_model_read_it() {
    let ws = Workshop::only(LESSON);
    let mut cmd = ws.command(&["watch", LESSON, "--ticket", "stale-tool", "--code", "fixed"]);
    cmd.env("COLUMNS", "100");
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = flat(&run.stdout);
    for part in [
        "Client sends tools/call #1 get_p95",
        "Server says error #1 -32602: Unknown tool: get_p95",
        "the model never reads this: the host took its turn back",
        "Server says result #2: tools get_metrics, list_alerts",
        "the model reads this content as the call's tool_result, as a success",
    ] {
        assert!(text.contains(part), "missing {part:?} in:\n{}", run.stdout);
    }
    let fixed = ["watch", LESSON, "--ticket", "stale-tool", "--code", "fixed"];
    let expanded = ws.run(&[&fixed[..], &["--expand"][..]].concat());
    assert!(expanded.stdout.contains("JSON-RPC message"), "{}", expanded.stdout);
    assert!(expanded.stdout.contains("\"jsonrpc\": \"2.0\""), "{}", expanded.stdout);
}

#[test]
fn a_tool_error_in_other_words_replays_by_kind() {
    let ws = Workshop::only(LESSON);
    let file = lesson_file(LESSON, FIXTURES, "other_words.py");
    let (run, _) = check_report(&ws, LESSON, &file);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let replay = replay_in(&ws, "payment-namespace", &file, "harness");
    assert_eq!(last_event_kind(&replay), "reply");
    let calls = events_of_kind(&replay, "tool_call");
    let swapped: Vec<&&Value> = calls.iter().filter(|e| e["by_kind"].is_array()).collect();
    assert_eq!(swapped.len(), 1, "{replay}");
}

#[test]
fn a_handler_that_raises_stops_the_replay_with_the_learners_error() {
    let ws = Workshop::only(LESSON);
    let file = lesson_file(LESSON, FIXTURES, "raises.py");
    let picked = ["--ticket", "payment-namespace", "--code", &file];
    let run = ws.run(&[&["watch", LESSON][..], &picked[..], &["--format", "json"][..]].concat());
    assert_eq!(run.code, 2, "the learner's code failed: {}", run.stderr);
    let replay = run.json();
    assert_eq!(last_event_kind(&replay), "code_error");
    let error = events_of_kind(&replay, "code_error")[0];
    assert!(error["message"].as_str().unwrap().contains("KeyError"), "{error}");
}

/// The lesson with its client policy changed: `on_error` and `error_line` as given.
fn with_policy(policy: &str) -> Workshop {
    let ws = Workshop::only(LESSON);
    let manifest = ws.read(&format!("lessons/{LESSON}/lesson.toml"));
    let changed = manifest.replace("on_error = \"host\"\n", policy);
    assert_ne!(changed, manifest);
    ws.write(&format!("lessons/{LESSON}/lesson.toml"), &changed);
    ws
}

#[test]
fn a_client_that_ends_the_run_shows_the_person_the_first_error() {
    let ws = with_policy("on_error = \"end\"\n");
    let replay = replay_in(&ws, "payment-namespace", "starter", "harness");
    assert_eq!(events_of_kind(&replay, "tool_call").len(), 1);
    assert_eq!(events_of_kind(&replay, "rpc")[1]["reader"], "ended");
    assert_eq!(last_event_kind(&replay), "rpc_ended");
}

#[test]
fn a_client_with_a_fixed_line_gives_the_model_that_line_flagged_and_never_the_error() {
    let ws = with_policy("on_error = \"line\"\nerror_line = \"Tool call failed.\"\n");
    let replay = replay_in(&ws, "payment-namespace", "starter", "harness");
    let answer = events_of_kind(&replay, "rpc")[1];
    assert_eq!(answer["reader"], "line");
    assert_eq!(answer["instead"], "Tool call failed.");
    // The line is a flagged tool error that names no namespace: the reply recorded for another
    // such text ("Error 500") answers it by kind, and the card says what was sent.
    assert_eq!(last_event_kind(&replay), "reply");
    let reply = events_of_kind(&replay, "reply")[0];
    assert_eq!(reply["by_kind"][0]["kind"], "no-fix", "{reply}");
    assert_eq!(reply["by_kind"][0]["sent"], "Tool call failed.");
    assert_eq!(counts(&replay)["protocol_errors"], 1);
}

#[test]
fn a_policy_that_needs_a_line_without_one_is_refused_with_its_line() {
    let ws = with_policy("on_error = \"line\"\n");
    let run = ws.run(&["doctor", LESSON]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(all.contains("needs error_line"), "{all}");
    assert!(all.contains("line "), "{all}");
}

#[test]
fn list_shows_the_lesson_as_number_nine() {
    let run = Workshop::new().run(&["list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = run.stdout.lines().find(|l| l.contains(LESSON));
    let line = line.unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(line.trim_start_matches(['>', ' ']).starts_with('9'), "{line}");
}

#[test]
fn doctor_is_green_for_the_lesson() {
    let run = Workshop::only(LESSON).run(&["doctor", LESSON]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
}

#[test]
fn the_page_shows_the_exchange_too() {
    let ws = Workshop::only(LESSON);
    let fixed = ["watch", LESSON, "--ticket", "stale-tool", "--code", "fixed"];
    let run = ws.run(&[&fixed[..], &["--html", "-"][..]].concat());
    assert_eq!(run.code, 0, "{}", run.stderr);
    for part in ["Client sends", "Server says", "Unknown tool: get_p95", "JSON-RPC message"] {
        assert!(run.stdout.contains(part), "missing {part:?} on the page");
    }
    assert!(run.stdout.contains("the model never reads this"), "the page does not say who read it");
}

#[test]
fn the_kit_that_start_copies_is_the_kit_the_workshop_runs() {
    let copied = std::fs::read_to_string(repo().join("starter/mcp-errors/kit/mcp.py")).unwrap();
    let run = std::fs::read_to_string(repo().join("src/bridge/kit_mcp.py")).unwrap();
    assert!(copied == run, "starter/mcp-errors/kit/mcp.py is not src/bridge/kit_mcp.py: copy it");
}

#[test]
fn the_learners_file_serves_mcp_over_stdio_outside_the_workshop() {
    use std::io::Write;
    let ws = Workshop::only(LESSON);
    assert_eq!(ws.run(&["start", LESSON]).code, 0);
    ws.write("work/mcp-errors/server.py", &std::fs::read_to_string(repo().join(SOLUTION)).unwrap());
    let mut child = std::process::Command::new(python())
        .arg("server.py")
        .current_dir(ws.path("work/mcp-errors"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let call = |id: u64, name: &str| {
        let params = serde_json::json!({"name": name, "arguments": {}});
        let request = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"});
        let mut request = request.as_object().cloned().unwrap();
        request.insert("params".into(), params);
        Value::Object(request).to_string()
    };
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#.into(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.into(),
        call(3, "get_p95"),
        call(4, "list_alerts"),
    ];
    child.stdin.take().unwrap().write_all(format!("{}\n", lines.join("\n")).as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let printed = String::from_utf8(out.stdout).unwrap();
    let answers: Vec<Value> = printed.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // One answer a request, none for the notification, each with its request's id.
    let ids: Vec<&Value> = answers.iter().map(|a| &a["id"]).collect();
    assert_eq!(ids, [1, 2, 3, 4]);
    assert_eq!(answers[0]["result"]["serverInfo"]["name"], "oncall");
    assert_eq!(answers[1]["result"]["tools"][0]["name"], "get_metrics");
    assert_eq!(answers[2]["error"]["code"], -32602);
    // No Tern Labs behind it here: the tool answers with a tool error, flagged.
    assert_eq!(answers[3]["result"]["isError"], true);
}
