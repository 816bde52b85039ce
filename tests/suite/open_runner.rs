//! The runner opened to lessons not shaped like lesson 5: a lesson in which the learner builds
//! the user message that answers a turn (`tests/fixtures/relay/`), the Messages API's rules on
//! every request (a broken one replays as the API's 400), signatures checked at load, and a
//! lesson added to a copy of the real root running through every command.

use crate::common::{repo, Workshop};

/// The relay lesson, recorded.
fn relay() -> Workshop {
    let ws = Workshop::from_fixture("relay");
    let run = ws.run(&["record", "relay-desk"]);
    assert_eq!(run.code, 0, "record: {}\n{}", run.stdout, run.stderr);
    ws
}

fn events(replay: &serde_json::Value) -> Vec<serde_json::Value> {
    replay["events"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_message_that_breaks_a_rule_replays_as_the_apis_400_and_ends_the_run() {
    let ws = relay();
    let run = ws.run(&[
        "watch",
        "relay-desk",
        "--ticket",
        "two-parcels",
        "--code",
        "starter",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let replay = run.json();
    let last = events(&replay).last().cloned().unwrap();
    assert_eq!(last["kind"], "api_error", "{last}");
    assert_eq!(last["status"], 400);
    assert_eq!(last["error_type"], "invalid_request_error");
    // The starter put the note first: the API reads no result at the start of the message.
    let message = last["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_"
        ),
        "{message}"
    );
    assert_eq!(replay["verdict"]["stopped"], "api_error");
    assert_eq!(replay["verdict"]["note"], "The note went first, so the API refused the turn.");

    let text = ws.run(&[
        "watch",
        "relay-desk",
        "--ticket",
        "two-parcels",
        "--code",
        "starter",
        "--no-anim",
    ]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(text.stdout.contains("API error     400 invalid_request_error"), "{}", text.stdout);
    assert!(
        !text.stdout.contains("Agent replies"),
        "the model never sees a refused request:\n{}",
        text.stdout
    );
}

#[test]
fn the_message_the_learner_builds_is_what_the_model_receives() {
    let ws = relay();
    let run = ws.run(&[
        "watch",
        "relay-desk",
        "--ticket",
        "two-parcels",
        "--code",
        "relayed",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let all = events(&run.json());
    assert_eq!(all.last().unwrap()["kind"], "reply", "{all:?}");
    // Under each call, the tool_result block the learner's `relay` built for it.
    let wires: Vec<&serde_json::Value> =
        all.iter().filter(|e| e["kind"] == "attempt").map(|e| &e["wire"]).collect();
    assert_eq!(wires.len(), 2, "{all:?}");
    assert_eq!(
        wires[0]["content"],
        r#"{"order":{"item":"box of tea","order_id":"2001","purchased":"2026-02-25","status":"on its way","total":"8.00"}}"#
    );
    assert_eq!(wires[1]["is_error"], true);
    assert_eq!(wires[1]["content"], "Parcel 2002 is someone else's.");
    // The recorded request holds the follow-up after both results, as `relay` placed it.
    let recorded = ws.read("recordings/relay-desk/harness/two-parcels.jsonl");
    let second: serde_json::Value = serde_json::from_str(recorded.lines().nth(1).unwrap()).unwrap();
    let content = &second["request"]["messages"][2]["content"];
    assert_eq!(content[2]["text"], "The customer adds: the kettle was a gift.", "{content}");
}

#[test]
fn in_the_sdk_runtime_the_sdk_builds_the_message_whatever_the_learners_code_does() {
    let ws = relay();
    let run = ws.run(&[
        "watch",
        "relay-desk",
        "--ticket",
        "two-parcels",
        "--code",
        "starter",
        "--runtime",
        "sdk",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let all = events(&run.json());
    assert_eq!(all.last().unwrap()["kind"], "reply", "{all:?}");
    assert!(!all.iter().any(|e| e["kind"] == "api_error"), "{all:?}");
}

#[test]
fn doctor_replays_a_lesson_whose_starter_ends_in_the_apis_refusal() {
    let ws = relay();
    let run = ws.run(&["doctor", "relay-desk"]);
    assert!(run.stdout.contains("✓ harness/two-parcels with starter"), "{}", run.stdout);
    assert!(!run.stdout.contains("does not end in a reply"), "{}", run.stdout);
}

#[test]
fn a_learner_function_the_lesson_cannot_call_is_a_load_error_with_its_line() {
    let ws = Workshop::lesson5();
    let file = ws.learner("bad_fail_takes_one_argument.py");
    let run = ws.run(&["check", "structured-errors", "--file", &file]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    let said = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        said.contains("bad_fail_takes_one_argument.py, line 4: fail(category) cannot be called with 2 arguments"),
        "{said}"
    );
}

#[test]
fn a_lesson_added_to_a_copy_of_the_root_runs_through_every_command() {
    let ws = Workshop::new();
    for part in ["lessons", "starter", "recordings"] {
        let from = repo().join("tests/fixtures/relay").join(part).join("relay-desk");
        for entry in walk(&from) {
            let rel = entry.strip_prefix(&from).unwrap();
            let text = std::fs::read_to_string(&entry).unwrap();
            ws.write(&format!("{part}/relay-desk/{}", rel.display()), &text);
        }
    }
    let ok = |args: &[&str], code: i32| {
        let run = ws.run(args);
        assert_eq!(run.code, code, "{args:?}\n{}\n{}", run.stdout, run.stderr);
        run
    };
    assert!(ok(&["list"], 0).stdout.contains("relay-desk"));
    ok(&["record", "relay-desk"], 0);
    ok(&["start", "relay-desk"], 0);
    ok(&["lesson", "relay-desk", "--no-pager"], 0);
    ok(&["check", "relay-desk"], 1);
    ok(&["hint", "relay-desk"], 0);
    ok(&["watch", "relay-desk", "--ticket", "broken-shelf", "--no-anim"], 0);
    ok(&["watch", "relay-desk", "--format", "json"], 0);
    assert!(ok(&["completions", "bash"], 0).stdout.contains("relay-desk"));
    // The fix, in place of the learner's file: green, and then the solution opens.
    let fix = ws.read("lessons/relay-desk/solution/relay.py");
    ws.write("work/relay-desk/relay.py", &fix);
    ok(&["check", "relay-desk"], 0);
    ok(&["solution", "relay-desk"], 0);
    ok(&["reset", "relay-desk", "--yes"], 0);
    // The lesson has no quiz: said plainly, not a crash.
    let quiz = ws.run(&["quiz", "relay-desk"]);
    assert_eq!(quiz.code, 2, "{}", quiz.stdout);
    assert!(
        quiz.stderr.contains("has no quiz") && !quiz.stderr.contains("panicked"),
        "{}",
        quiz.stderr
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.path().is_dir() {
            out.extend(walk(&entry.path()));
        } else {
            out.push(entry.path());
        }
    }
    out
}

#[test]
fn one_message_per_result_is_sent_as_it_was_built_and_refused() {
    let ws = relay();
    // A hurried answer: each result in a message of its own.
    ws.write(
        "learners/one_each.py",
        "def relay(tool_uses, outcomes, note=None):\n    return [\n        {\"content\": [{\"tool_use_id\": u[\"id\"], \"type\": \"tool_result\", \"content\": o.get(\"content\") or o[\"message\"]}], \"role\": \"user\"}\n        for u, o in zip(tool_uses, outcomes)\n    ]\n",
    );
    let run = ws.run(&[
        "watch",
        "relay-desk",
        "--ticket",
        "two-parcels",
        "--code",
        "learners/one_each.py",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let replay = run.json();
    let all = events(&replay);
    let ids: Vec<&str> = all
        .iter()
        .filter(|e| e["kind"] == "tool_call")
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    let last = all.last().unwrap();
    assert_eq!(last["kind"], "api_error", "{last}");
    // The first message holds the first result only: the second call is the one unanswered.
    let message = last["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: {}.",
            ids[1]
        )),
        "{message}"
    );
    // A ticket check sees the same refusal.
    let check =
        ws.run(&["check", "relay-desk", "--file", "learners/one_each.py", "--format", "json"]);
    let report = check.json();
    let valid = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "two-parcels-valid")
        .unwrap()
        .clone();
    assert_eq!(valid["status"], "fail", "{valid}");
    assert!(valid["got"]["api_error"].as_str().unwrap().contains("immediately after"), "{valid}");
}

#[test]
fn lesson_paths_stay_in_their_folders_and_ids_are_plain_words() {
    let ws = Workshop::from_fixture("toy");
    let path = "lessons/parcel-desk/lesson.toml";
    let text = ws
        .read(path)
        .replace("file = \"desk.py\"", "file = \"../../../x.py\"")
        .replace("solution = \"solution/desk.py\"", "solution = \"/etc/passwd\"")
        .replace("id = \"again-on-flag\"", "id = \"again$(touch pwned)\"");
    ws.write(path, &text);
    let run = ws.run(&["start", "parcel-desk"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("file '../../../x.py' must be a plain file name"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("solution '/etc/passwd' must be a path inside the lesson's folder"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("check id 'again$(touch pwned)' may hold only letters, digits, - and _"),
        "{}",
        run.stderr
    );
    assert!(!ws.path("x.py").exists() && !ws.path("../x.py").exists());
    assert!(!ws.path("pwned").exists());
}
