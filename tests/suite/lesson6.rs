//! Lesson 6, `uncertain-state`, read as data by the same runner as lesson 5: its starter fails
//! the checks that teach the lesson, its solution passes, likely mistakes fail their own checks,
//! and the lost confirmation replays as a double refund with the starter and a single one with
//! the fix.

use crate::common::*;

use serde_json::Value;

const LESSON: &str = "uncertain-state";
const STARTER: &str = "starter/uncertain-state/refunds.py";
const SOLUTION: &str = "lessons/uncertain-state/solution/refunds.py";

/// Every check id, in the order `check` runs them.
const ALL: [&str; 18] = [
    "fail-flags-uncertain",
    "uncertain-not-retryable",
    "transient-still-retryable",
    "refusals-not-retryable",
    "verify-passed-through",
    "no-verify-without-one",
    "empty-is-not-failure",
    "step-done",
    "step-retry-transient",
    "step-verify-uncertain",
    "step-flag-decides",
    "step-uncertain-beats-flag",
    "step-report-refusal",
    "harness-lost-confirmation",
    "harness-dropped-request",
    "harness-slow-payment",
    "harness-already-refunded",
    "harness-slow-check",
];

/// The checks the starter fails: everything about the uncertain failure, nothing else.
const STARTER_FAILS: [&str; 7] = [
    "uncertain-not-retryable",
    "verify-passed-through",
    "step-verify-uncertain",
    "step-uncertain-beats-flag",
    "harness-lost-confirmation",
    "harness-dropped-request",
    "harness-slow-check",
];

#[test]
fn the_checks_run_in_their_declared_order() {
    let ws = Workshop::new();
    let (_, report) = check_report(&ws, LESSON, SOLUTION);
    let ids = check_ids(&report);
    assert_eq!(ids, ALL);
    assert_eq!(report["lesson"], LESSON);
}

#[test]
fn the_starter_fails_the_checks_about_the_uncertain_failure_and_names_them() {
    let ws = Workshop::new();
    let (run, report) = check_report(&ws, LESSON, STARTER);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(report["status"], "fail");
    assert_eq!(ids_with(&report, "fail"), STARTER_FAILS);
    assert_eq!(report["passed"], ALL.len() - STARTER_FAILS.len());
    // The double refund is what the lost-confirmation check sees.
    let lost = check(&report, "harness-lost-confirmation");
    assert_eq!(lost["got"]["refunds_paid"], 2, "{lost}");
    assert_eq!(lost["got"]["attempts"], 2, "{lost}");
    assert_eq!(lost["got"]["reads"], 0, "{lost}");
    assert_eq!(lost["guidance"]["mistake"], "paid twice", "{lost}");
    // The text report names the first failing check and tells what to do next.
    let text = ws.run(&["check", LESSON, "--file", STARTER, "--color", "never"]);
    assert_eq!(text.code, 1);
    for id in STARTER_FAILS {
        assert!(
            text.stdout.contains(&format!("✗ {id}")),
            "{id} not marked failed:\n{}",
            text.stdout
        );
    }
    assert!(
        text.stdout.contains("✗ uncertain-not-retryable: an uncertain failure never says"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("11/18 passed"), "{}", text.stdout);
}

#[test]
fn the_solution_passes_every_check() {
    let ws = Workshop::new();
    let (run, report) = check_report(&ws, LESSON, SOLUTION);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(report["status"], "pass");
    assert_eq!(ids_with(&report, "pass"), ALL);
}

#[test]
fn deciding_a_retry_by_the_category_name_fails_the_flag_check_only() {
    let ws = Workshop::new();
    let file = ws.learner("l6_step_by_category.py");
    let (run, report) = check_report(&ws, LESSON, &file);
    assert_eq!(run.code, 1);
    assert_eq!(ids_with(&report, "fail"), ["step-flag-decides"]);
    let failed = check(&report, "step-flag-decides");
    assert_eq!(failed["got"], "retry", "{failed}");
    assert_eq!(failed["guidance"]["mistake"], "retry decided by the category's name", "{failed}");
    assert!(failed["call"].as_str().unwrap().contains("'isRetryable': False"), "{failed}");
}

/// The diagnosis each check shows for one learner file: its failing checks, each with the
/// mistake its guidance names, and the advice in words.
fn diagnoses(fixture: &str) -> Vec<(String, String, String)> {
    let ws = Workshop::new();
    let file = ws.learner(fixture);
    let (_, report) = check_report(&ws, LESSON, &file);
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] != "pass")
        .map(|c| {
            let text = |k: &str| c["guidance"][k].as_str().unwrap_or_default().to_string();
            (c["id"].as_str().unwrap().to_string(), text("mistake"), text("says"))
        })
        .collect()
}

#[test]
fn an_empty_verify_on_a_failure_with_no_read_is_named_as_such() {
    let found = diagnoses("l6_verify_none_everywhere.py");
    let ids: Vec<&str> = found.iter().map(|(id, _, _)| id.as_str()).collect();
    assert_eq!(ids, ["transient-still-retryable", "no-verify-without-one"], "{found:?}");
    for (id, mistake, says) in &found {
        assert_eq!(mistake, "verify written where there is none", "{id}");
        assert!(says.contains("verify is not None"), "{id}: {says}");
    }
}

#[test]
fn an_error_that_is_a_bare_string_is_diagnosed_not_just_raised() {
    let found = diagnoses("l6_step_error_is_a_dict.py");
    assert_eq!(found.len(), 1, "{found:?}");
    let (id, mistake, says) = &found[0];
    assert_eq!(id, "step-report-refusal");
    assert_eq!(mistake, "an error taken for a dictionary");
    assert!(says.contains("isinstance(error, dict)"), "{says}");
}

#[test]
fn the_category_read_at_the_top_of_the_result_is_pointed_one_level_down() {
    let found = diagnoses("l6_category_read_at_the_top.py");
    let (id, mistake, says) = &found[0];
    assert_eq!(
        (id.as_str(), mistake.as_str()),
        ("step-verify-uncertain", "an unknown outcome reported")
    );
    // The learner already says "verify": the advice must not stop at telling them to.
    assert!(says.contains("result[\"error\"][\"errorCategory\"]"), "{says}");
    let beats = found.iter().find(|(id, _, _)| id == "step-uncertain-beats-flag").unwrap();
    assert!(beats.2.contains("inside the error"), "{beats:?}");
    for (id, _, says) in &found {
        assert!(!says.is_empty(), "{id} has no diagnosis: {found:?}");
    }
}

#[test]
fn a_rebuilt_verify_is_named_with_the_read_the_call_shows() {
    let ws = Workshop::new();
    let file = ws.learner("l6_rebuilds_verify.py");
    let (_, report) = check_report(&ws, LESSON, &file);
    let passthrough = check(&report, "verify-passed-through");
    assert_eq!(
        passthrough["guidance"]["mistake"], "verify rebuilt instead of passed on",
        "{passthrough}"
    );
    let call = passthrough["call"].as_str().unwrap();
    let says = passthrough["guidance"]["says"].as_str().unwrap();
    // The advice speaks of the read in the call shown, never of the other case's.
    assert!(call.contains("find_refund") && !call.contains("find_payment"), "{call}");
    assert!(!says.contains("find_payment"), "{says}");
    assert!(says.contains("tool and input"), "{says}");
    for id in ["harness-lost-confirmation", "harness-dropped-request", "harness-slow-check"] {
        let ticket = check(&report, id);
        assert_eq!(ticket["guidance"]["mistake"], "reported without a read", "{id}: {ticket}");
    }
}

#[test]
fn dropping_verify_fails_the_passthrough_check_and_the_tickets_that_need_a_read() {
    let ws = Workshop::new();
    let file = ws.learner("l6_drops_verify.py");
    let (_, report) = check_report(&ws, LESSON, &file);
    assert_eq!(
        ids_with(&report, "fail"),
        [
            "verify-passed-through",
            "harness-lost-confirmation",
            "harness-dropped-request",
            "harness-slow-check"
        ]
    );
    let passthrough = check(&report, "verify-passed-through");
    let message = passthrough["message"].as_str().unwrap();
    assert!(
        message
            .starts_with("error.verify: expected {'tool': 'find_refund', 'input': {'order_id': '"),
        "{message}"
    );
    assert!(message.ends_with("'}}, got missing"), "{message}");
    assert_eq!(passthrough["guidance"]["mistake"], "verify dropped", "{passthrough}");
    // Without a read to run, the harness reports the unknown: paid once, but the model is told nothing is known.
    let lost = check(&report, "harness-lost-confirmation");
    assert_eq!(lost["got"]["refunds_paid"], 1, "{lost}");
    assert_eq!(lost["got"]["reads"], 0, "{lost}");
    assert_eq!(lost["got"]["failed"], true, "{lost}");
}

#[test]
fn lost_confirmation_pays_twice_with_the_starter_and_once_with_the_fix() {
    let ws = Workshop::new();
    let run = ws.run(&[
        "watch",
        LESSON,
        "--ticket",
        "lost-confirmation",
        "--compare",
        "--code",
        "structured",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let both = run.json();
    assert_eq!(both["compare"], true);
    let runs = both["runs"].as_array().unwrap();
    let paid = |code: &str| {
        let replay =
            runs.iter().find(|r| r["code"] == code).unwrap_or_else(|| panic!("no {code} run"));
        assert_eq!(
            replay["events"].as_array().unwrap().last().unwrap()["kind"],
            "reply",
            "{code} ends in a reply"
        );
        replay["verdict"]["refunds_paid"]["2217"].clone()
    };
    assert_eq!(paid("starter"), 2);
    assert_eq!(paid("structured"), 1);
    assert!(both["split_at"].as_u64().is_some(), "{}", both["split_at"]);
    let structured = runs.iter().find(|r| r["code"] == "structured").unwrap();
    let verify: Vec<&Value> =
        structured["events"].as_array().unwrap().iter().filter(|e| e["kind"] == "verify").collect();
    assert_eq!(verify.len(), 1, "{structured}");
    assert_eq!(verify[0]["tool"], "find_refund");
    assert_eq!(verify[0]["found"], true);
}

#[test]
fn lost_confirmation_compare_in_text_splits_and_says_the_order_was_refunded_twice() {
    let ws = Workshop::new();
    let run = ws.run(&[
        "watch",
        LESSON,
        "--ticket",
        "lost-confirmation",
        "--compare",
        "--code",
        "structured",
        "--no-anim",
        "--color",
        "never",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let split = run.stdout.find("the runs split here").expect("a split marker");
    let starter = run.stdout.find("── starter ──").expect("the starter run");
    let structured = run.stdout.find("── structured ──").expect("the structured run");
    assert!(split < starter && starter < structured, "{}", run.stdout);
    let twice = run
        .stdout
        .find("Order 2217 was refunded 2 times")
        .expect("the double refund in the verdict");
    assert!(
        starter < twice && twice < structured,
        "the double refund is the starter's:\n{}",
        run.stdout
    );
    assert_eq!(
        run.stdout.matches("Agent replies").count(),
        2,
        "both runs reach the reply:\n{}",
        run.stdout
    );
}

#[test]
fn doctor_passes_for_the_lesson() {
    let run = Workshop::new().run(&["doctor", LESSON]);
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    for runtime in ["harness", "sdk"] {
        for ticket in [
            "lost-confirmation",
            "dropped-request",
            "slow-payment",
            "already-refunded",
            "slow-check",
        ] {
            for code in ["starter", "structured"] {
                let line = format!("✓ {runtime}/{ticket} with {code}: ");
                assert!(run.stdout.contains(&line), "{line} missing from:\n{}", run.stdout);
            }
        }
    }
    assert!(
        run.stdout.contains("✓ check starter fails as it should (11/18 checks pass)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("✓ check structured passes as it should (18/18 checks pass)"),
        "{}",
        run.stdout
    );
}

#[test]
fn start_copies_the_lesson_file_and_check_then_grades_it_without_naming_the_lesson() {
    let ws = Workshop::new();
    assert_eq!(ws.run(&["start", LESSON]).code, 0);
    assert_eq!(
        ws.read("work/uncertain-state/refunds.py"),
        std::fs::read_to_string(repo().join(STARTER)).unwrap()
    );
    // The one lesson started is the one assumed.
    let run = ws.run(&["check", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.json()["lesson"], LESSON);
    assert!(
        run.stderr.contains("(lesson uncertain-state: the one you started last."),
        "{}",
        run.stderr
    );
}

#[test]
fn list_shows_lesson_6_after_lesson_5() {
    let run = Workshop::new().run(&["list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Other lessons may come before, between or after: only the order of these two is asked.
    let lines: Vec<&str> = run.stdout.lines().filter(|l| !l.trim().is_empty()).collect();
    let at = |id: &str| {
        lines.iter().position(|l| l.contains(id)).unwrap_or_else(|| panic!("{id}: {}", run.stdout))
    };
    let (five, six) = (at("structured-errors"), at("uncertain-state"));
    assert!(five < six, "{}", run.stdout);
    assert!(lines[five].contains('5') && lines[six].contains('6'), "{}", run.stdout);
    assert!(
        lines[six].contains("A timeout is not a no") && lines[six].ends_with("not started"),
        "{}",
        run.stdout
    );
}

#[test]
fn with_two_lessons_and_none_started_a_command_asks_which() {
    let ws = Workshop::new();
    let run = ws.run(&["check"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("name a lesson"), "{}", run.stderr);
    for id in ["structured-errors", "uncertain-state"] {
        assert!(run.stderr.contains(id), "{id} offered in:\n{}", run.stderr);
    }
}

/// The text of one `## ` section of the lesson.
fn section(name: &str) -> String {
    let text = std::fs::read_to_string(repo().join("lessons/uncertain-state/lesson.md")).unwrap();
    let start = text.find(&format!("## {name}\n")).unwrap_or_else(|| panic!("no section {name}"));
    let rest = &text[start + 3..];
    rest[..rest.find("\n## ").unwrap_or(rest.len())].to_string()
}

#[test]
fn the_rules_of_next_step_are_listed_in_the_order_they_are_decided() {
    let rules = section("One question instead of two");
    let at = |word: &str| {
        rules.find(&format!("`\"{word}\"`:")).unwrap_or_else(|| panic!("no rule for {word}"))
    };
    assert!(
        at("done") < at("verify") && at("verify") < at("retry") && at("retry") < at("report"),
        "{rules}"
    );
    assert!(rules.contains("whatever the flag says"), "{rules}");
    assert!(
        rules.contains("an unknown outcome is verified first; for the rest, the flag decides"),
        "{rules}"
    );
}

#[test]
fn the_quiz_asks_about_idempotency_keys_only_where_the_text_teaches_them() {
    let quiz: toml::Value = toml::from_str(
        &std::fs::read_to_string(repo().join("lessons/uncertain-state/quiz.toml")).unwrap(),
    )
    .unwrap();
    let questions = quiz["questions"].as_array().unwrap();
    let asks = questions
        .iter()
        .find(|q| q["options"].to_string().contains("idempotency key"))
        .expect("a question on keys");
    let taught = section(asks["section"].as_str().unwrap());
    assert!(taught.contains("**idempotency key**"), "{taught}");
}
