//! Lesson 4, `tool-results`, read as data by the same runner as lessons 5 and 6: its starter fails
//! the checks of the rules it breaks, its solution passes, each rule broken on its own fails the
//! one check that names it, files valid in another style pass every check, and the replays show
//! the API's 400 where a message breaks a rule.

use crate::common::*;

use serde_json::Value;

const LESSON: &str = "tool-results";
const STARTER: &str = "starter/tool-results/results.py";
const SOLUTION: &str = "lessons/tool-results/solution/results.py";
/// Learner files of this lesson that only the tests use.
pub(crate) const FIXTURES: &str = "tests/fixtures/tool-results";
/// The lesson's named mistakes: learner files its script records, so they are lesson data.
pub(crate) const MISTAKES: &str = "lessons/tool-results/mistakes";

/// Every check id, in the order `check` runs them.
const ALL: [&str; 12] = [
    "one-message",
    "one-result-per-call",
    "ids-match",
    "results-before-text",
    "note-last",
    "flag-on-failures",
    "no-flag-on-success",
    "success-kept",
    "invalid-call-explained",
    "failed-run-explained",
    "crash-kept-out",
    "crash-explained",
];

/// The checks the starter fails: the four rules it breaks, nothing else.
const STARTER_FAILS: [&str; 4] =
    ["one-result-per-call", "results-before-text", "flag-on-failures", "crash-kept-out"];

/// Each rule broken on its own: the file, the one check it fails and the mistake the report names.
pub(crate) const ONE_RULE_BROKEN: [(&str, &str, &str); 17] = [
    ("role_tool.py", "one-message", "a role of its own for results"),
    ("@only_first_call.py", "one-result-per-call", "only the first call answered"),
    ("one_result_per_tool.py", "one-result-per-call", "one result per tool name"),
    ("id_from_name.py", "ids-match", "the tool's name as the id"),
    ("first_id_for_all.py", "ids-match", "the first id on every result"),
    ("@note_first.py", "results-before-text", "the note first"),
    ("note_dropped.py", "note-last", "the note dropped"),
    ("empty_text_without_note.py", "note-last", "a text block with no note"),
    ("no_is_error.py", "flag-on-failures", "no flag on a failure"),
    ("is_error_camel_case.py", "flag-on-failures", "MCP's spelling"),
    ("whole_turn_flagged.py", "no-flag-on-success", "one failure flags the whole turn"),
    ("success_parsed.py", "success-kept", "the result parsed into a dictionary"),
    ("@invalid_as_crash.py", "invalid-call-explained", "a wrong call treated as a crash"),
    ("failed_as_crash.py", "failed-run-explained", "a failed run treated as a crash"),
    ("@crash_forwarded.py", "crash-kept-out", "the crash forwarded"),
    ("crash_last_line.py", "crash-kept-out", "part of the crash kept"),
    ("crash_silent.py", "crash-explained", "silence instead of the trace"),
];

/// Files that answer correctly in another style: text blocks, `is_error: false`, other key orders.
const OTHER_STYLES: [&str; 2] = ["good_blocks.py", "good_match.py"];

/// The lesson's own database password, in the crash text of ticket crash-trace.
const PASSWORD: &str = "Quill-Harbor-4417";

/// A root with every lesson of the repository.
fn workshop() -> Workshop {
    Workshop::new()
}

#[test]
fn the_checks_run_in_their_declared_order() {
    let ws = workshop();
    let (_, report) = check_report(&ws, LESSON, SOLUTION);
    let ids = check_ids(&report);
    assert_eq!(ids, ALL);
    assert_eq!(report["lesson"], LESSON);
}

#[test]
fn the_solution_passes_every_check() {
    let ws = workshop();
    let (run, report) = check_report(&ws, LESSON, SOLUTION);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(report["status"], "pass");
    assert_eq!(ids_with(&report, "pass"), ALL);
}

#[test]
fn the_starter_fails_the_checks_of_the_rules_it_breaks_and_names_them() {
    let ws = workshop();
    let (run, report) = check_report(&ws, LESSON, STARTER);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(report["status"], "fail");
    assert_eq!(ids_with(&report, "fail"), STARTER_FAILS);
    assert_eq!(report["passed"], ALL.len() - STARTER_FAILS.len());
    let first = check(&report, "one-result-per-call");
    assert_eq!(first["guidance"]["mistake"], "only the first call answered", "{first}");
    assert_eq!(first["message"], "content.1.type: expected 'tool_result', got missing", "{first}");
    let crash = check(&report, "crash-kept-out");
    assert_eq!(crash["guidance"]["mistake"], "the crash forwarded", "{crash}");
    let text = ws.run(&["check", LESSON, "--file", STARTER, "--color", "never"]);
    assert_eq!(text.code, 1);
    for id in STARTER_FAILS {
        assert!(
            text.stdout.contains(&format!("✗ {id}")),
            "{id} not marked failed:\n{}",
            text.stdout
        );
    }
    assert!(text.stdout.contains("8/12 passed"), "{}", text.stdout);
}

#[test]
fn each_rule_broken_on_its_own_fails_exactly_the_check_that_names_it() {
    let ws = workshop();
    for (file, failing, mistake) in ONE_RULE_BROKEN {
        let (run, report) = check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, file));
        assert_eq!(run.code, 1, "{file}: {}", run.stdout);
        assert_eq!(ids_with(&report, "fail"), [failing], "{file}");
        assert_eq!(ids_with(&report, "error"), Vec::<String>::new(), "{file}");
        let failed = check(&report, failing);
        assert_eq!(failed["guidance"]["mistake"], mistake, "{file}: {failed}");
    }
}

#[test]
fn files_valid_in_another_style_pass_every_check() {
    let ws = workshop();
    for file in OTHER_STYLES {
        let (run, report) = check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, file));
        assert_eq!(run.code, 0, "{file}: {}", run.stdout);
        assert_eq!(ids_with(&report, "pass"), ALL, "{file}");
    }
}

#[test]
fn a_hard_coded_crash_filter_does_not_pass_the_crash_check() {
    // A file that hides only crashes that look like the lesson's own still forwards another one.
    let ws = workshop();
    let solution = std::fs::read_to_string(repo().join(SOLUTION)).unwrap();
    let filtered = solution.replace(
        "        block[\"content\"] = CRASHED",
        "        block[\"content\"] = CRASHED if \"postgresql://\" in outcome[\"message\"] else outcome[\"message\"]",
    );
    assert_ne!(filtered, solution, "the solution's crash line moved");
    ws.write("learners/filtered.py", &filtered);
    let (_, report) = check_report(&ws, LESSON, "learners/filtered.py");
    assert_eq!(ids_with(&report, "fail"), ["crash-kept-out"]);
}

#[test]
fn start_copies_the_lesson_file_and_check_grades_it() {
    let ws = workshop();
    assert_eq!(ws.run(&["start", LESSON]).code, 0);
    assert_eq!(
        ws.read("work/tool-results/results.py"),
        std::fs::read_to_string(repo().join(STARTER)).unwrap()
    );
    let run = ws.run(&["check", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.json()["lesson"], LESSON);
    assert!(
        run.stderr.contains("(lesson tool-results: the one you started last."),
        "{}",
        run.stderr
    );
}

#[test]
fn one_message_per_result_is_named_by_the_first_check() {
    // answer returns a list of messages: no check can read it as one message, and the first one
    // to fix names the mistake.
    let ws = workshop();
    let (run, report) =
        check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, "@message_per_result.py"));
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(report["message"], "2 of 12 checks pass; the first to fix is one-message");
    let first = check(&report, "one-message");
    assert_eq!(first["message"], "role: expected 'user', got missing", "{first}");
    assert_eq!(first["guidance"]["mistake"], "one message per result", "{first}");
}

#[test]
fn list_shows_the_lessons_in_course_order() {
    let run = Workshop::new().run(&["list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let at = |id: &str| {
        run.stdout
            .find(&format!(" {id} "))
            .unwrap_or_else(|| panic!("{id} missing:\n{}", run.stdout))
    };
    assert!(
        at(LESSON) < at("structured-errors") && at("structured-errors") < at("uncertain-state"),
        "{}",
        run.stdout
    );
    let line = run.stdout.lines().find(|l| l.contains(LESSON)).unwrap();
    // After the mark of the lesson to do next, if it is this one.
    assert!(line.trim_start_matches(['>', ' ']).starts_with('4'), "{line}");
    assert!(
        line.contains("Every call answered, results first") && line.ends_with("not started"),
        "{line}"
    );
}

#[test]
fn doctor_replays_every_scripted_code_and_grades_starter_and_fix() {
    let run = workshop().run(&["doctor", LESSON]);
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    let mistakes = [
        ("two-parcels", "only_first_call.py"),
        ("two-parcels", "message_per_result.py"),
        ("hash-ids", "invalid_as_crash.py"),
        ("crash-trace", "crash_forwarded.py"),
        ("follow-up", "note_first.py"),
    ];
    for ticket in ["two-parcels", "hash-ids", "crash-trace", "follow-up"] {
        for code in ["starter", "fixed"] {
            let line = format!("✓ harness/{ticket} with {code}: ");
            assert!(run.stdout.contains(&line), "{line} missing from:\n{}", run.stdout);
        }
    }
    for (ticket, file) in mistakes {
        let line = format!("✓ harness/{ticket} with {MISTAKES}/{file}: ");
        assert!(run.stdout.contains(&line), "{line} missing from:\n{}", run.stdout);
    }
    // Three tickets end at the API's 400 with the starter, and are complete as they are.
    assert_eq!(run.stdout.matches("with starter: ").count(), 4, "{}", run.stdout);
    assert_eq!(
        run.stdout.matches("the API refused the request (400)").count(),
        6,
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("✓ check starter fails as it should (8/12 checks pass)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("✓ check fixed passes as it should (12/12 checks pass)"),
        "{}",
        run.stdout
    );
}

#[test]
fn doctor_says_a_scripted_mistake_file_that_is_gone_is_missing() {
    let ws = workshop();
    std::fs::remove_file(ws.path(&lesson_file(LESSON, FIXTURES, "@note_first.py"))).unwrap();
    let run = ws.run(&["doctor", LESSON]);
    assert_eq!(run.code, 2, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(
            "✗ recordings/tool-results/script.toml: records the code 'lessons/tool-results/mistakes/note_first.py', but the workshop has no file at that path (a script's paths are from the workshop's root)"
        ),
        "{}",
        run.stdout
    );
    // The rest is still examined.
    assert!(run.stdout.contains("✓ harness/follow-up with fixed: "), "{}", run.stdout);
    assert!(run.stdout.contains("✓ check fixed passes as it should"), "{}", run.stdout);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn record_finds_the_scripts_mistake_files_from_the_root_wherever_it_runs() {
    let ws = workshop();
    let before =
        std::fs::read_to_string(ws.path("recordings/tool-results/harness/two-parcels.jsonl"))
            .unwrap();
    let mut cmd = ws.command(&["record", LESSON]);
    cmd.current_dir(ws.path("lessons"));
    let run = run(cmd);
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains(&format!("with {MISTAKES}/note_first.py")), "{}", run.stdout);
    assert!(
        run.stdout.contains("wrote ../recordings/tool-results/harness/two-parcels.jsonl"),
        "{}",
        run.stdout
    );
    // Recorded again from the same script and lesson: the same turns.
    assert_eq!(
        std::fs::read_to_string(ws.path("recordings/tool-results/harness/two-parcels.jsonl"))
            .unwrap(),
        before
    );
}

#[test]
fn two_parcels_stops_at_the_apis_400_with_the_starter_and_answers_both_with_the_fix() {
    let ws = workshop();
    let starter = replay_json(&ws, LESSON, "two-parcels", "starter");
    assert_eq!(last_event_kind(&starter), "api_error", "{starter}");
    assert_eq!(starter["verdict"]["stopped"], "api_error");
    assert_eq!(starter["verdict"]["tool_calls"], 2, "both lookups ran before the refusal");
    let calls = events_of_kind(&starter, "tool_call");
    let refused = events_of_kind(&starter, "api_error")[0];
    assert_eq!(refused["status"], 400);
    let second = calls[1]["id"].as_str().unwrap();
    let message = refused["message"].as_str().unwrap();
    assert!(
        message.contains(second) && !message.contains(calls[0]["id"].as_str().unwrap()),
        "{message}"
    );
    assert!(events_of_kind(&starter, "reply").is_empty());

    let fixed = replay_json(&ws, LESSON, "two-parcels", "fixed");
    assert_eq!(last_event_kind(&fixed), "reply", "{fixed}");
    assert_eq!(fixed["verdict"]["tool_calls"], 3);
    let attempts = events_of_kind(&fixed, "attempt");
    // The slow lookup's block, as the model received it: flagged, with the tool's own words.
    let slow = &attempts[1]["wire"];
    assert_eq!(slow["is_error"], true, "{slow}");
    assert!(
        slow["content"].as_str().unwrap().starts_with("The order service took too long"),
        "{slow}"
    );
    assert!(attempts[0]["wire"].get("is_error").is_none(), "{}", attempts[0]["wire"]);
    let reply = events_of_kind(&fixed, "reply")[0]["text"].as_str().unwrap();
    assert!(reply.contains("2031") && reply.contains("2044"), "{reply}");
}

#[test]
fn one_message_per_result_replays_as_the_apis_400_for_the_second_call() {
    let ws = workshop();
    let split = replay_json(
        &ws,
        LESSON,
        "two-parcels",
        &lesson_file(LESSON, FIXTURES, "@message_per_result.py"),
    );
    assert_eq!(last_event_kind(&split), "api_error", "{split}");
    let second = events_of_kind(&split, "tool_call")[1]["id"].as_str().unwrap().to_string();
    assert!(
        events_of_kind(&split, "api_error")[0]["message"].as_str().unwrap().contains(&second),
        "{split}"
    );
}

#[test]
fn hash_ids_is_corrected_by_the_model_only_when_the_tools_message_reaches_it() {
    let ws = workshop();
    let fixed = replay_json(&ws, LESSON, "hash-ids", "fixed");
    assert_eq!(fixed["verdict"]["tool_calls"], 4);
    let ids: Vec<&str> = events_of_kind(&fixed, "tool_call")
        .iter()
        .map(|c| c["input"]["order_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["#1204", "#1207", "1204", "1207"]);
    let first = events_of_kind(&fixed, "attempt")[0];
    assert_eq!(first["details"], serde_json::json!(["invalid_input"]), "{first}");
    assert!(
        first["wire"]["content"].as_str().unwrap().contains("call again with the digits alone"),
        "{first}"
    );
    // Hidden like a crash, the correction never reaches the model: it sends Tomás away instead.
    let hidden = replay_json(
        &ws,
        LESSON,
        "hash-ids",
        &lesson_file(LESSON, FIXTURES, "@invalid_as_crash.py"),
    );
    assert_eq!(hidden["verdict"]["tool_calls"], 2);
    assert_eq!(last_event_kind(&hidden), "reply");
    assert!(events_of_kind(&hidden, "reply")[0]["text"]
        .as_str()
        .unwrap()
        .contains("try again a little later"));
}

#[test]
fn crash_trace_reaches_the_model_with_the_starter_and_never_with_the_fix() {
    let ws = workshop();
    let starter = replay_json(&ws, LESSON, "crash-trace", "starter");
    let sent = &events_of_kind(&starter, "attempt")[0]["wire"];
    assert!(sent["content"].as_str().unwrap().contains(PASSWORD), "{sent}");
    assert!(sent.get("is_error").is_none(), "the starter does not flag it: {sent}");
    assert!(events_of_kind(&starter, "reply")[0]["text"]
        .as_str()
        .unwrap()
        .contains("orders-db.lumen.internal"));

    let fixed = replay_json(&ws, LESSON, "crash-trace", "fixed");
    let sent = &events_of_kind(&fixed, "attempt")[0]["wire"];
    assert_eq!(sent["is_error"], true, "{sent}");
    for secret in [PASSWORD, "postgresql://", "orders-db.lumen.internal", "Traceback"] {
        assert!(!sent.to_string().contains(secret), "{secret} sent: {sent}");
    }
    // The recorded requests of the fixed run hold none of it either: the model never saw it.
    let recorded = ws.read("recordings/tool-results/harness/crash-trace.jsonl");
    let fixed_requests: Vec<&str> =
        recorded.lines().filter(|l| l.contains("cannot be checked right now")).collect();
    assert!(!fixed_requests.is_empty(), "{recorded}");
    assert!(fixed_requests.iter().all(|l| !l.contains(PASSWORD)));
}

#[test]
fn follow_up_pays_either_way_and_only_the_fix_tells_the_model_with_the_note_after_the_result() {
    let ws = workshop();
    let starter = replay_json(&ws, LESSON, "follow-up", "starter");
    assert_eq!(starter["verdict"]["stopped"], "api_error");
    assert_eq!(
        starter["verdict"]["refunds_paid"]["0990"], 1,
        "the refund was paid before the refusal"
    );
    let fixed = replay_json(&ws, LESSON, "follow-up", "fixed");
    assert_eq!(last_event_kind(&fixed), "reply");
    assert!(events_of_kind(&fixed, "reply")[0]["text"]
        .as_str()
        .unwrap()
        .contains("cancelled card"));
    // The request the model answered: the result first, then the customer's note as text.
    let recorded = ws.read("recordings/tool-results/harness/follow-up.jsonl");
    let answered = recorded
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["request"]["messages"].as_array().is_some_and(|m| m.len() == 3))
        .expect("the fixed run's second request");
    let content = answered["request"]["messages"][2]["content"].as_array().unwrap();
    let kinds: Vec<&str> = content.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["tool_result", "text"]);
    assert!(content[1]["text"].as_str().unwrap().contains("cancelled last week"), "{}", content[1]);
}

#[test]
fn the_quiz_has_nine_questions_with_an_explanation_for_every_option() {
    let ws = workshop();
    let run = ws.run(&["quiz", LESSON, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let quiz = run.json();
    let questions = quiz["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 9);
    for q in questions {
        for option in q["options"].as_array().unwrap() {
            assert!(!option["explanation"].as_str().unwrap_or_default().is_empty(), "{option}");
        }
    }
    let key: Vec<String> = questions
        .iter()
        .map(|q| q["answer"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect())
        .collect();
    let run = ws.run(&["quiz", LESSON, "--answers", &key.join(",")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.ends_with("score 9/9\n"), "{}", run.stdout);
}

#[test]
fn hint_after_start_points_at_the_first_failing_check() {
    let ws = workshop();
    assert_eq!(ws.run(&["start", LESSON]).code, 0);
    let run = ws.run(&["hint", LESSON, "--color", "never"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("Hint for one-result-per-call"), "{}", run.stdout);
    assert!(run.stdout.contains("Count the tool_use blocks"), "{}", run.stdout);
}

#[test]
fn crash_text_anywhere_in_the_message_fails_the_crash_check() {
    // The crash's own result is clean, but its text reaches the model some other way: as a
    // trailing text block, or inside the result of another call of the same turn.
    let ws = workshop();
    let solution = std::fs::read_to_string(repo().join(SOLUTION)).unwrap();
    let trailing = solution.replace(
        "    return {\"role\": \"user\", \"content\": content}",
        "    crashes = [o[\"message\"] for o in outcomes if not o[\"ok\"] and o[\"kind\"] == \"crashed\"]\n    if crashes:\n        content.append({\"type\": \"text\", \"text\": \"Details for the team: \" + crashes[0]})\n    return {\"role\": \"user\", \"content\": content}",
    );
    let smuggled = solution.replace(
        "    return {\"role\": \"user\", \"content\": content}",
        "    crashes = [o[\"message\"] for o in outcomes if not o[\"ok\"] and o[\"kind\"] == \"crashed\"]\n    if crashes and len(content) > 1:\n        content[-1][\"content\"] = str(content[-1].get(\"content\")) + \" (\" + crashes[0] + \")\"\n    return {\"role\": \"user\", \"content\": content}",
    );
    for (name, text) in [("trailing.py", &trailing), ("smuggled.py", &smuggled)] {
        assert_ne!(text, &solution, "the solution's last line moved");
        ws.write(&format!("learners/{name}"), text);
        let (_, report) = check_report(&ws, LESSON, &format!("learners/{name}"));
        assert!(
            ids_with(&report, "fail").contains(&"crash-kept-out".to_string()),
            "{name}: {report}"
        );
    }
}

#[test]
fn a_file_that_knows_the_checks_ids_is_graded_on_ids_it_cannot_know() {
    // It hides a crash only when every call id is one written in lesson.toml: the ids are drawn
    // for each file, so check and grade see the crash it forwards everywhere else.
    let ws = workshop();
    let file = lesson_file(LESSON, FIXTURES, "known_ids.py");
    let (run, report) = check_report(&ws, LESSON, &file);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(ids_with(&report, "fail"), ["crash-kept-out"], "{report}");
    let (_, solution) = check_report(&ws, LESSON, SOLUTION);
    assert_eq!(ids_with(&solution, "pass"), ALL);
    ws.write("class/known/results.py", &std::fs::read_to_string(&file).unwrap());
    ws.write("class/honest/results.py", &std::fs::read_to_string(repo().join(SOLUTION)).unwrap());
    let graded = crate::grade::graded(crate::grade::command(&ws, &["grade", LESSON, "class"]));
    assert_eq!(graded.code, 0, "{}", graded.stderr);
    for line in crate::grade::lines(&graded.stdout) {
        let known = line["file"].as_str().unwrap().contains("known");
        let fails = if known { vec!["crash-kept-out"] } else { vec![] };
        assert_eq!(ids_with(&line, "fail"), fails, "{line}");
    }
}

#[test]
fn a_crash_with_its_telling_words_masked_fails_and_the_report_quotes_what_is_left() {
    let ws = workshop();
    let file = lesson_file(LESSON, FIXTURES, "crash_masked.py");
    let (run, report) = check_report(&ws, LESSON, &file);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(ids_with(&report, "fail"), ["crash-kept-out"], "{report}");
    let failed = check(&report, "crash-kept-out");
    let message = failed["message"].as_str().unwrap();
    // The longest piece of the crash that reached the model, quoted as Python would.
    assert!(message.contains("it carries '") && message.contains(", word for word"), "{message}");
    let piece = "it carries 'File \"/srv/lumen/orders/lookup.py\", line 57";
    assert!(message.contains(piece), "{message}");
    assert_eq!(failed["guidance"]["mistake"], "the crash masked", "{failed}");
    let text = ws.run(&["check", LESSON, "--file", &file]);
    let shown = text.stdout.contains("✗ crash-kept-out") && text.stdout.contains("word for word");
    assert!(shown, "{}", text.stdout);
}

#[test]
fn a_sentence_that_quotes_the_crash_replays_by_kind_to_the_end_and_the_note_says_harm() {
    // The traceback's first line in a flagged sentence of the learner's own: no host, but the
    // crash's words. It replays with the reply recorded for another such sentence, to the end.
    let ws = workshop();
    let text =
        std::fs::read_to_string(lesson_file(LESSON, FIXTURES, "crash_first_line.py")).unwrap();
    ws.write("work/tool-results/results.py", &text);
    let json = replay_json(&ws, LESSON, "crash-trace", "yours");
    assert_eq!(last_event_kind(&json), "reply", "{json:#}");
    let reply = events_of_kind(&json, "reply")[0];
    assert_eq!(reply["by_kind"][0]["kind"], "quotes-the-crash", "{reply:#}");
    assert!(reply["by_kind"][0]["sent"]
        .as_str()
        .unwrap()
        .contains("Traceback (most recent call last)"));
    assert!(reply["provenance"].to_string().contains("authored"), "{reply:#}");
    assert!(json["verdict"]["counts"]["leaks"].as_u64().unwrap() >= 1, "{json:#}");
    let note = json["verdict"]["note"].as_str().unwrap();
    assert!(note.starts_with("Harm: text from the crash reached the model"), "{note}");
    let text =
        ws.run(&["watch", LESSON, "--ticket", "crash-trace", "--code", "yours", "--no-anim"]);
    assert!(!text.stdout.contains("none of the lesson's kinds"), "{}", text.stdout);
    // It fails the check that keeps the crash out, as the recorded mistake does.
    let (_, report) = check_report(&ws, LESSON, "work/tool-results/results.py");
    assert_eq!(ids_with(&report, "fail"), ["crash-kept-out"], "{report}");
}
