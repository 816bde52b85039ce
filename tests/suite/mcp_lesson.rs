//! Another author's MCP lesson (tests/fixtures/ferry-mcp): another world, other names for the
//! server, its handler and its tool, and a client that ends the run on a JSON-RPC error. Its
//! learner's file holds only the server; the runner is the client, as in lesson 9.

use crate::common::*;

const LESSON: &str = "ferry-mcp";

/// The fixture's lesson in the ferry world of the tutorial.
fn harbour() -> Workshop {
    let ws = Workshop::from_fixture("ferry-mcp");
    copy_tree(&repo().join("tests/fixtures/ferry/worlds"), &ws.path("worlds"));
    ws
}

#[test]
fn a_second_mcp_lesson_records_and_doctors_with_no_client_in_the_learners_file() {
    let ws = harbour();
    let recorded = ws.run(&["record", LESSON]);
    assert_eq!(recorded.code, 0, "{}\n{}", recorded.stdout, recorded.stderr);
    let doctor = ws.run(&["doctor", LESSON]);
    assert_eq!(doctor.code, 0, "{}\n{}", doctor.stdout, doctor.stderr);
    let learner = ws.read(&format!("starter/{LESSON}/desk.py"));
    assert!(!learner.contains("tool_result") && !learner.contains("is_error"), "{learner}");
}

#[test]
fn its_client_ends_the_run_on_the_first_error_and_passes_a_tool_error_to_the_model() {
    let ws = harbour();
    for runtime in ["harness", "sdk"] {
        let picked = ["--ticket", "full-sailing", "--runtime", runtime, "--format", "json"];
        let run = |code: &str| {
            let run = ws.run(&[&["watch", LESSON, "--code", code][..], &picked[..]].concat());
            assert_eq!(run.code, 0, "{code} in {runtime}: {}", run.stderr);
            run.json()
        };
        let starter = run("starter");
        assert_eq!(last_event_kind(&starter), "rpc_ended", "{runtime}");
        assert_eq!(events_of_kind(&starter, "rpc")[1]["reader"], "ended");
        assert_eq!(
            starter["verdict"]["note"],
            "The host ended the run on the server's JSON-RPC error."
        );
        let fixed = run("fixed");
        let rpc = events_of_kind(&fixed, "rpc");
        assert_eq!(rpc[0]["message"]["params"]["name"], "book_seat", "{runtime}");
        assert_eq!(rpc[1]["reader"], "model");
        assert_eq!(fixed["verdict"]["counts"]["tool_errors"], 1);
        let calls = events_of_kind(&fixed, "tool_call");
        let named = if runtime == "sdk" { "mcp__harbour__book_seat" } else { "book_seat" };
        assert_eq!(calls[0]["tool"], named);
        assert_eq!(calls[1]["input"]["sailing"], "09:00");
    }
}
