//! Lesson 10, `the-loop`, at Lumen Supply: the learner writes the loop itself (`answer`, run
//! through the runner's stand-in `anthropic` client) and its decisions (send a request again or
//! not, ask the model again or not, what the person is told). The checks grade the rules and the
//! loop run on written answers; the replays show a stubborn tool run to the budget by the starter
//! and stopped at the cap by the fix, an overloaded API waited out (by the client's own retries
//! in the starter, by the loop's in the fix), a 400 that is never sent again, and a loose tool the
//! model keeps calling wrong.

use crate::common::*;

use serde_json::Value;

const LESSON: &str = "the-loop";
const STARTER: &str = "starter/the-loop/loop.py";
const SOLUTION: &str = "lessons/the-loop/solution/loop.py";
const FIXTURES: &str = "tests/fixtures/the-loop";

const ALL: [&str; 13] = [
    "retry-transient",
    "honour-retry-after",
    "never-retry-400",
    "bounded",
    "wait-within-budget",
    "turn-cap",
    "time-budget",
    "tell-cap",
    "tell-api-error",
    "tell-cut-off",
    "one-layer-of-retries",
    "strict-tool",
    "loop-stops-at-cap",
];

fn counts(replay: &Value) -> &Value {
    &replay["verdict"]["counts"]
}

#[test]
fn the_solution_passes_every_check_in_order_and_the_starter_fails_most() {
    let ws = Workshop::only(LESSON);
    let (run, report) = check_report(&ws, LESSON, SOLUTION);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(check_ids(&report), ALL);
    assert_eq!(ids_with(&report, "pass"), ALL);
    let (run, report) = check_report(&ws, LESSON, STARTER);
    assert_eq!(run.code, 1, "{}", run.stdout);
    // The starter never sends again itself, never stops, and shows the person what it was given;
    // its one layer of retries is the client's own.
    let passed = ids_with(&report, "pass");
    assert_eq!(passed, ["never-retry-400", "one-layer-of-retries"], "{}", run.stdout);
}

#[test]
fn each_named_mistake_fails_the_check_of_its_mistake() {
    let ws = Workshop::only(LESSON);
    let cases: [(&str, &[&str]); 6] = [
        ("@retry_all.py", &["never-retry-400"]),
        ("@no_retry_after.py", &["honour-retry-after", "wait-within-budget"]),
        ("@turns_only.py", &["time-budget"]),
        ("@raw_error.py", &["tell-api-error"]),
        ("@double_retry.py", &["one-layer-of-retries"]),
        ("@loose_tool.py", &["strict-tool"]),
    ];
    for (file, failing) in cases {
        let (run, report) = check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, file));
        assert_eq!(run.code, 1, "{file}: {}", run.stdout);
        assert_eq!(ids_with(&report, "fail"), failing, "{file}");
    }
    let (_, report) = check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, "@retry_all.py"));
    assert_eq!(check(&report, "never-retry-400")["guidance"]["mistake"], "retries a 400");
    // Two layers of retries: 3 sendings of the loop's, each sent 3 times by the client.
    let (_, report) = check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, "@double_retry.py"));
    let layered = check(&report, "one-layer-of-retries");
    assert_eq!(layered["guidance"]["mistake"], "retries twice over", "{layered}");
}

#[test]
fn a_file_that_shows_a_fixed_sentence_for_a_cut_reply_fails_on_the_order_drawn_for_it() {
    let ws = Workshop::only(LESSON);
    let file = lesson_file(LESSON, FIXTURES, "hardcoded.py");
    let (run, report) = check_report(&ws, LESSON, &file);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(ids_with(&report, "fail"), ["tell-cut-off"], "{}", run.stdout);
}

#[test]
fn the_starter_runs_the_stubborn_tool_to_the_budget_and_the_fix_stops_at_the_cap() {
    let ws = Workshop::only(LESSON);
    let starter = replay_json(&ws, LESSON, "stubborn-refund", "starter");
    let capped = events_of_kind(&starter, "capped");
    assert_eq!(capped.len(), 1);
    assert_eq!(capped[0]["by"], "time_budget");
    assert_eq!(capped[0]["limit"], 60000);
    let c = counts(&starter);
    assert_eq!((c["turns"].as_u64(), c["ends"].as_str()), (Some(15), Some("cap")));
    assert_eq!(counts(&starter)["elapsed_ms"], 60000);
    assert_eq!(starter["verdict"]["tool_calls"], 15);

    let fixed = replay_json(&ws, LESSON, "stubborn-refund", "fixed");
    let capped = events_of_kind(&fixed, "capped");
    assert_eq!((capped[0]["by"].as_str(), capped[0]["turns"].as_u64()), (Some("code"), Some(6)));
    assert_eq!(fixed["verdict"]["tool_calls"], 6);
    assert_eq!(counts(&fixed)["elapsed_ms"], 24000);
    let told = events_of_kind(&fixed, "told");
    assert_eq!(told.len(), 1);
    assert_eq!(told[0]["reason"], "code");
    let text = told[0]["text"].as_str().unwrap();
    assert!(text.contains("6 tries") && text.contains("nothing is settled"), "{text}");
    let note = fixed["verdict"]["note"].as_str().unwrap();
    assert!(note.starts_with("The host's own cap stopped it"), "{note}");
}

#[test]
fn an_overloaded_api_is_waited_out_by_the_fix_and_never_reaches_the_model() {
    let ws = Workshop::only(LESSON);
    let fixed = replay_json(&ws, LESSON, "busy-api", "fixed");
    let errors = events_of_kind(&fixed, "host_error");
    assert_eq!(errors.len(), 2);
    // The first 529 asked for 2 s; the second asked nothing, so the backoff's 2 s of attempt 2.
    let waits = (errors[0]["wait_ms"].as_u64(), errors[1]["wait_ms"].as_u64());
    assert_eq!(waits, (Some(2000), Some(2000)));
    assert_eq!(errors[1]["waited_by"], "loop");
    let c = counts(&fixed);
    assert_eq!((c["api_errors"].as_u64(), c["api_retries"].as_u64()), (Some(2), Some(2)));
    assert_eq!((c["ends"].as_str(), c["elapsed_ms"].as_u64()), (Some("reply"), Some(6700)));
    let lines = ws.read("recordings/the-loop/harness/busy-api.jsonl");
    for line in lines.lines() {
        let request = serde_json::from_str::<Value>(line).unwrap()["request"].to_string();
        assert!(!request.contains("529") && !request.contains("verloaded"), "{request}");
    }
    // The starter's loop sends nothing again itself, but the client it is given does (the SDK's
    // max_retries of 2): the retry-after of the first 529, then the client's own 1 s (0.5 s
    // doubled once), and the third sending goes through.
    let starter = replay_json(&ws, LESSON, "busy-api", "starter");
    let errors = events_of_kind(&starter, "host_error");
    let waits = (errors[0]["wait_ms"].as_u64(), errors[1]["wait_ms"].as_u64());
    assert_eq!(waits, (Some(2000), Some(1000)));
    assert_eq!(
        (errors[0]["waited_by"].as_str(), errors[1]["waited_by"].as_str()),
        (Some("client"), Some("client"))
    );
    let c = counts(&starter);
    assert_eq!((c["ends"].as_str(), c["api_retries"].as_u64()), (Some("reply"), Some(2)));
    assert_eq!(c["elapsed_ms"], 5700);
    // The note says who sent it again, as the run's record does: the client in the starter's
    // run, the loop's code in the fix's.
    assert_eq!(
        (c["client_retries"].as_u64(), counts(&fixed)["client_retries"].as_u64()),
        (Some(2), Some(0))
    );
    let note = |replay: &Value| replay["verdict"]["note"].as_str().unwrap_or_default().to_string();
    assert!(
        note(&starter).contains("the client sent the request again by itself"),
        "{}",
        note(&starter)
    );
    assert!(
        note(&fixed).contains("the loop's own code sent the request again"),
        "{}",
        note(&fixed)
    );
}

#[test]
fn a_400_is_not_sent_again_by_the_fix_and_sent_three_times_by_retry_all() {
    let ws = Workshop::only(LESSON);
    let fixed = replay_json(&ws, LESSON, "bad-request", "fixed");
    let errors = events_of_kind(&fixed, "host_error");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["status"], 400);
    assert!(errors[0].get("wait_ms").is_none(), "{}", errors[0]);
    let told = events_of_kind(&fixed, "told")[0]["text"].as_str().unwrap();
    assert!(!told.contains("tool_result") && !told.contains("invalid_request_error"), "{told}");
    assert_eq!(counts(&fixed)["api_retries"], 0);

    let retried = replay_json(&ws, LESSON, "bad-request", "retry-all");
    assert_eq!(events_of_kind(&retried, "host_error").len(), 3);
    assert_eq!(counts(&retried)["api_retries"], 2);
    let note = retried["verdict"]["note"].as_str().unwrap();
    assert!(note.starts_with("The same malformed request was sent again"), "{note}");
    // The starter's client does not send a 400 again either, but the person reads the raw error.
    let starter = replay_json(&ws, LESSON, "bad-request", "starter");
    assert_eq!(events_of_kind(&starter, "host_error").len(), 1);
    let told = events_of_kind(&starter, "told")[0]["text"].as_str().unwrap();
    assert!(told.contains("invalid_request_error"), "{told}");
}

#[test]
fn a_loose_tool_is_called_wrong_until_the_tool_list_the_loop_sends_is_strict() {
    let ws = Workshop::only(LESSON);
    let starter = replay_json(&ws, LESSON, "loose-schema", "starter");
    let calls = events_of_kind(&starter, "tool_call");
    let inputs: Vec<String> = calls.iter().map(|c| c["input"].to_string()).collect();
    let wrong = [r#"{"order_id":3140}"#, r#"{"order":"3140"}"#, r##"{"order_id":"#3140"}"##];
    assert_eq!(inputs, wrong);
    assert_eq!(counts(&starter)["attempts"], 3);
    let fixed = replay_json(&ws, LESSON, "loose-schema", "fixed");
    assert_eq!(counts(&fixed)["attempts"], 1);
    assert_eq!(counts(&fixed)["ends"], "reply");
    // The tool list is the file's: the two runs sent different requests, each recorded.
    let lines = ws.read("recordings/the-loop/harness/loose-schema.jsonl");
    let strict = lines.lines().filter(|l| l.contains(r#""strict":true"#)).count();
    assert_eq!((lines.lines().count(), strict), (6, 2));
}

#[test]
fn a_loop_that_catches_the_pause_or_sends_another_request_when_run_again_is_told_so() {
    let ws = Workshop::only(LESSON);
    let error_of = |name: &str| {
        let file = lesson_file(LESSON, FIXTURES, name);
        let args = ["watch", LESSON, "--ticket", "busy-api", "--code", &file, "--format", "json"];
        let run = ws.run(&args);
        // A run that ended on the code's error is still a replay: said, and not a success.
        assert_eq!(run.code, 2, "{name}: {}", run.stderr);
        let replay: Value = serde_json::from_str(&run.stdout).unwrap();
        let errors = events_of_kind(&replay, "code_error");
        errors[0]["message"].as_str().unwrap().to_string()
    };
    let error = error_of("swallows.py");
    assert!(error.contains("bare `except:`") && error.contains("anthropic.APIError"), "{error}");
    let error = error_of("counts_runs.py");
    assert!(error.contains("step 1 when run again"), "{error}");
    // Where the two requests part, and how.
    assert!(error.contains("send.messages.0.content was …"), "{error}");
    assert!(
        error.contains("week.\" the first time") && error.contains("(asked again)\" this time"),
        "{error}"
    );
}

#[test]
fn a_loop_hook_without_a_kit_and_a_kit_the_runner_lacks_are_refused_at_load() {
    let ws = Workshop::only(LESSON);
    let path = "lessons/the-loop/lesson.toml";
    let manifest = ws.read(path);
    let hook = "function = \"anthropic:answer\"\nargs";
    ws.write(path, &manifest.replacen(hook, "function = \"answer\"\nargs", 1));
    let run = ws.run(&["check", LESSON]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("names no kit: write \"anthropic:answer\""), "{}", run.stderr);
    ws.write(path, &manifest.replace("anthropic:answer", "openai:answer"));
    let run = ws.run(&["check", LESSON]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("names the kit 'openai'"), "{}", run.stderr);
    // A hook the loop makes useless is refused too, rather than never asked.
    let go_on = "[hooks.go_on]\nfunction = \"keep_going\"\nargs = [\"turn\", \"elapsed\"]\n\n";
    let table = "\n[hooks.loop]\n";
    ws.write(path, &manifest.replacen(table, &format!("\n{go_on}{table}"), 1));
    let run = ws.run(&["check", LESSON]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("the go_on hook is never asked"), "{}", run.stderr);
}

/// The wait the API asks for in `honour-retry-after` is drawn for each file (3 to 11 s, by the
/// world's `sample_fields`, passed as a number): a file that waits a fixed number of seconds
/// whenever the API names one passes for the draws that happen to equal it, and fails the rest.
#[test]
fn the_wait_the_api_asks_for_is_drawn_for_each_file_and_checked_as_a_number() {
    let ws = Workshop::only(LESSON);
    let fixed = ws.read(SOLUTION).replace("wait = retry_after", "wait = 7");
    assert_ne!(fixed, ws.read(SOLUTION), "the solution takes retry_after as its wait");
    ws.write("fixed_wait.py", &fixed);
    let mut asked = Vec::new();
    for seed in ["1", "2", "3", "4", "5", "6", "7", "8"] {
        let mut cmd = ws.command(&["check", LESSON, "--file", SOLUTION, "--format", "json"]);
        cmd.env("WORKSHOP_SEED", seed);
        let solution = run(cmd);
        assert_eq!(solution.code, 0, "seed {seed}: {}", solution.stdout);
        let mut cmd = ws.command(&["check", LESSON, "--file", "fixed_wait.py", "--format", "json"]);
        cmd.env("WORKSHOP_SEED", seed);
        let report = run(cmd).json();
        let honour = check(&report, "honour-retry-after");
        // Its first case is the drawn one (a 429); the second asks a fixed 3 s, which the fixed
        // wait fails at every draw it passes.
        assert_eq!(honour["status"], "fail", "seed {seed}: {honour}");
        let call = honour["call"].as_str().unwrap_or_default();
        if call.starts_with("wait_before_retry(429") {
            let expected = &honour["expected"];
            assert!(expected.is_u64(), "seed {seed}: a number, not {expected}");
            asked.push(expected.as_u64().unwrap_or(0));
        }
    }
    assert!(asked.iter().all(|s| (3..=11).contains(s) && *s != 7), "{asked:?}");
    assert!(!asked.is_empty(), "the fixed wait of 7 s passed every draw");
}

/// A loop that never returns is a hang of `answer`, named as the learner's file names it (the
/// kit that calls it is the lesson's business), and the checks it kept from running say so.
#[test]
fn a_loop_that_never_returns_is_a_hang_of_answer() {
    let ws = Workshop::only(LESSON);
    let solution = ws.read(SOLUTION);
    let start = "    client = client.with_options(max_retries=0)\n";
    assert!(solution.contains(start));
    ws.write(
        "spins.py",
        &solution.replacen(start, &format!("{start}    while True:\n        pass\n"), 1),
    );
    let run = ws.run(&["check", LESSON, "--file", "spins.py", "--timeout", HANG_TIMEOUT]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("Next: make answer(…) return (it hung)"), "{}", run.stdout);
    assert!(run.stdout.contains("answer hung twice in this run"), "{}", run.stdout);
    assert!(!run.stdout.contains("anthropic:"), "{}", run.stdout);
}
