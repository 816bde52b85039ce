//! Lesson 10, `the-loop`, at Lumen Supply: the learner writes the host's decisions (send a
//! request again or not, ask the model again or not, what the person is told). The checks grade
//! the rules; the replays show a stubborn tool run to the budget by the starter and stopped at the
//! cap by the fix, an overloaded API waited out, and a 400 that is never sent again.

use crate::common::*;

use serde_json::Value;

const LESSON: &str = "the-loop";
const STARTER: &str = "starter/the-loop/loop.py";
const SOLUTION: &str = "lessons/the-loop/solution/loop.py";
const FIXTURES: &str = "tests/fixtures/the-loop";

const ALL: [&str; 10] = [
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
    // The starter never sends again, never stops, and shows the person what it was given.
    let passed = ids_with(&report, "pass");
    assert_eq!(passed, ["never-retry-400"], "{}", run.stdout);
}

#[test]
fn each_named_mistake_fails_the_check_of_its_mistake() {
    let ws = Workshop::only(LESSON);
    let cases: [(&str, &[&str]); 4] = [
        ("@retry_all.py", &["never-retry-400"]),
        ("@no_retry_after.py", &["honour-retry-after", "wait-within-budget"]),
        ("@turns_only.py", &["time-budget"]),
        ("@raw_error.py", &["tell-api-error"]),
    ];
    for (file, failing) in cases {
        let (run, report) = check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, file));
        assert_eq!(run.code, 1, "{file}: {}", run.stdout);
        assert_eq!(ids_with(&report, "fail"), failing, "{file}");
    }
    let (_, report) = check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, "@retry_all.py"));
    assert_eq!(check(&report, "never-retry-400")["guidance"]["mistake"], "retries a 400");
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
    let c = counts(&fixed);
    assert_eq!((c["api_errors"].as_u64(), c["api_retries"].as_u64()), (Some(2), Some(2)));
    assert_eq!((c["ends"].as_str(), c["elapsed_ms"].as_u64()), (Some("reply"), Some(6700)));
    let lines = ws.read("recordings/the-loop/harness/busy-api.jsonl");
    for line in lines.lines() {
        let request = serde_json::from_str::<Value>(line).unwrap()["request"].to_string();
        assert!(!request.contains("529") && !request.contains("verloaded"), "{request}");
    }
    // The starter stops at the first 529, and the person is shown its raw detail.
    let starter = replay_json(&ws, LESSON, "busy-api", "starter");
    assert_eq!(
        (counts(&starter)["ends"].as_str(), counts(&starter)["api_retries"].as_u64()),
        (Some("api_error"), Some(0))
    );
    let told = events_of_kind(&starter, "told")[0]["text"].as_str().unwrap();
    assert!(told.contains("overloaded_error"), "{told}");
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
}

#[test]
fn a_reply_cut_at_max_tokens_is_shown_with_a_note_that_it_was_cut_off() {
    let ws = Workshop::only(LESSON);
    let fixed = replay_json(&ws, LESSON, "long-answer", "fixed");
    assert_eq!(events_of_kind(&fixed, "reply")[0]["stop_reason"], "max_tokens");
    let told = events_of_kind(&fixed, "told");
    assert_eq!(told[0]["reason"], "max_tokens");
    let text = told[0]["text"].as_str().unwrap();
    assert!(text.starts_with("Here is how refunds work") && text.contains("cut off"), "{text}");
}

#[test]
fn compare_shows_the_starter_run_to_the_budget_beside_the_fix_stopped_at_the_cap() {
    let ws = Workshop::only(LESSON);
    let flags = ["--compare", "--no-anim", "--color", "never"];
    let run = ws.run(&[&["watch", LESSON, "--ticket", "stubborn-refund"][..], &flags[..]].concat());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("after 6 model turns"), "{}", run.stdout);
    assert!(run.stdout.contains("authored"), "{}", run.stdout);
}

#[test]
fn list_places_the_lesson_as_number_ten() {
    let run = Workshop::new().run(&["list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = run.stdout.lines().find(|l| l.contains("the-loop")).unwrap_or_default().to_string();
    assert!(line.trim_start().starts_with("10  the-loop"), "{}", run.stdout);
}
