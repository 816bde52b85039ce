//! A lesson the runner was never written for: `tests/fixtures/toy/`, data only, with its own
//! learner functions (`problem`, `next_move` answering "again" or "halt"), its own tool name,
//! solution label and checks. `record`, `doctor`, `check` and `watch` must all work on it.

use crate::common::{check_ids, Workshop};

fn toy() -> Workshop {
    let ws = Workshop::from_fixture("toy");
    let run = ws.run(&["record", "parcel-desk"]);
    assert_eq!(run.code, 0, "record: {}\n{}", run.stdout, run.stderr);
    ws
}

#[test]
fn the_toy_lesson_records_and_doctor_finds_nothing_wrong() {
    let ws = toy();
    assert!(ws.path("recordings/parcel-desk/harness/slow-card.jsonl").is_file());
    let run = ws.run(&["doctor", "parcel-desk"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("check starter fails as it should (0/3"), "{}", run.stdout);
    assert!(run.stdout.contains("check fixed passes as it should (3/3"), "{}", run.stdout);
}

#[test]
fn check_grades_the_toy_lesson_by_its_own_declared_checks() {
    let ws = toy();
    let start = ws.run(&["start", "parcel-desk"]);
    assert_eq!(start.code, 0, "{}", start.stderr);
    assert!(ws.path("work/parcel-desk/desk.py").is_file());
    let run = ws.run(&["check", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = run.json();
    let ids = check_ids(&report);
    assert_eq!(ids, ["problem-is-flagged", "again-on-flag", "desk-slow-card"]);
    let first = &report["checks"][0];
    assert_eq!(first["message"], "failed: expected True, got missing");
    // The lesson's own guidance for this shape of mistake.
    assert_eq!(first["guidance"]["mistake"], "a bare string");
    let harness = &report["checks"][2];
    assert_eq!(harness["got"]["attempts"], 1, "{harness}");
    assert_eq!(harness["got"]["answers"][0], "halt", "{harness}");

    let solution =
        ws.run(&["check", "parcel-desk", "--file", "lessons/parcel-desk/solution/desk.py"]);
    assert_eq!(solution.code, 0, "{}", solution.stdout);
}

#[test]
fn watch_replays_the_toy_ticket_with_its_own_tool_and_notes() {
    let ws = toy();
    let run = ws.run(&[
        "watch",
        "parcel-desk",
        "--ticket",
        "slow-card",
        "--code",
        "fixed",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let replay = run.json();
    assert_eq!(replay["code"], "fixed");
    assert_eq!(replay["verdict"]["tool_calls"], 2);
    assert_eq!(replay["verdict"]["refunds_paid"]["2001"], 1);
    assert_eq!(replay["verdict"]["note"], "One more try, and the refund went through.");
    let calls: Vec<&str> = replay["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "tool_call")
        .map(|e| e["words"].as_str().unwrap())
        .collect();
    assert_eq!(calls, ["refunds parcel 2001"]);

    let text = ws.run(&[
        "watch",
        "parcel-desk",
        "--ticket",
        "slow-card",
        "--code",
        "starter",
        "--no-anim",
    ]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(text.stdout.contains("The desk gave up after one hiccup."), "{}", text.stdout);
}

#[test]
fn a_manifest_whose_parts_disagree_names_every_problem_with_its_line() {
    let ws = Workshop::from_fixture("toy");
    let path = "lessons/parcel-desk/lesson.toml";
    let text = ws
        .read(path)
        .replace("ticket = \"slow-card\"\nexpect", "ticket = \"no-such-ticket\"\nexpect")
        .replace("function = \"next_move\"", "function = \"choose\"");
    ws.write(path, &text);
    let run = ws.run(&["check", "parcel-desk", "--file", "starter/parcel-desk/desk.py"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("lessons/parcel-desk/lesson.toml"), "{}", run.stderr);
    assert!(run.stderr.contains("the decide hook calls 'choose'"), "{}", run.stderr);
    assert!(run.stderr.contains("runs an unknown ticket 'no-such-ticket'"), "{}", run.stderr);
    assert!(run.stderr.contains("line "), "{}", run.stderr);
    let doctor = ws.run(&["doctor"]);
    assert_eq!(doctor.code, 2, "{}", doctor.stdout);
}
