//! `workshop check`: which checks each learner file passes, the exit codes, the JSON report for
//! autograders, and snapshots of the text a learner reads.

use crate::common::*;

use serde_json::Value;

const SOLUTION: &str = "lessons/structured-errors/solution/errors.py";

/// Every check id, in the order `check` runs them.
const ALL: [&str; 14] = [
    "fail-flags-failure",
    "fail-names-category",
    "fail-retry-hint",
    "fail-keeps-message",
    "empty-is-not-failure",
    "retry-transient",
    "no-retry-refusals",
    "no-retry-without-flag",
    "retry-follows-flag",
    "harness-old-order",
    "harness-wrong-id",
    "harness-not-yours",
    "harness-flaky-payment",
    "harness-no-orders",
];

/// Grade a fixture with `--format json`.
fn grade(fixture: &str) -> (Run, Value) {
    let w = Workshop::lesson5();
    let file = w.learner(fixture);
    let run = w.run(&["check", "--file", &file, "--format", "json"]);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let report = run.json();
    (run, report)
}

/// The fixture fails exactly `failing`, passes every other check, and exits accordingly.
fn assert_fails_exactly(fixture: &str, failing: &[&str]) -> Value {
    let (run, report) = grade(fixture);
    assert_eq!(ids_with(&report, "fail"), failing, "{fixture}: failing checks\n{}", run.stdout);
    let passing: Vec<&str> = ALL.iter().copied().filter(|id| !failing.contains(id)).collect();
    assert_eq!(ids_with(&report, "pass"), passing, "{fixture}: passing checks");
    assert_eq!(report["passed"], passing.len(), "{fixture}");
    assert_eq!(report["total"], ALL.len(), "{fixture}");
    let (status, code) = if failing.is_empty() { ("pass", 0) } else { ("fail", 1) };
    assert_eq!(report["status"], status, "{fixture}");
    assert_eq!(run.code, code, "{fixture}: exit code\n{}", run.stderr);
    report
}

// Correct files, written in different styles, pass everything.

#[test]
fn check_passes_a_dict_literal_solution() {
    assert_fails_exactly("good_dict_literal.py", &[]);
}

#[test]
fn check_passes_a_solution_built_from_helpers_and_constants() {
    assert_fails_exactly("good_helpers.py", &[]);
}

#[test]
fn check_passes_a_dataclass_turned_into_a_dict() {
    assert_fails_exactly("good_dataclass.py", &[]);
}

#[test]
fn check_passes_a_solution_using_match_statements() {
    assert_fails_exactly("good_match.py", &[]);
}

#[test]
fn check_passes_a_class_based_solution_that_prints_while_it_works() {
    assert_fails_exactly("good_class_chatty.py", &[]);
}

#[test]
fn check_passes_the_reference_solution() {
    let w = Workshop::lesson5();
    let run = w.run(&["check", "--file", SOLUTION, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(ids_with(&run.json(), "pass").len(), ALL.len());
}

// One bug fails the checks it breaks and no others.

#[test]
fn check_fails_only_the_flag_when_is_error_is_missing() {
    let report = assert_fails_exactly("bug_no_is_error.py", &["fail-flags-failure"]);
    let first = check(&report, "fail-flags-failure");
    assert_eq!(first["message"], "isError: expected True, got missing");
    assert_eq!(first["expected"], serde_json::json!({"isError": true}));
    assert!(first["call"].as_str().unwrap().starts_with("fail('transient', "), "{first}");
}

#[test]
fn check_fails_only_the_flag_when_is_error_is_the_string_true() {
    let report = assert_fails_exactly("bug_is_error_string.py", &["fail-flags-failure"]);
    assert_eq!(
        check(&report, "fail-flags-failure")["message"],
        "isError: expected True, got 'true'"
    );
}

#[test]
fn check_fails_only_the_flag_when_is_error_is_one_not_a_boolean() {
    let report = assert_fails_exactly("bug_is_error_one.py", &["fail-flags-failure"]);
    assert_eq!(check(&report, "fail-flags-failure")["message"], "isError: expected True, got 1");
}

#[test]
fn check_fails_only_the_category_when_categories_are_renamed() {
    let report = assert_fails_exactly("bug_wrong_category.py", &["fail-names-category"]);
    assert_eq!(
        check(&report, "fail-names-category")["message"],
        "error.errorCategory: expected 'transient', got 'timeout'"
    );
}

#[test]
fn check_fails_the_hint_and_the_refusal_tickets_when_everything_is_retryable() {
    let report = assert_fails_exactly(
        "bug_always_retryable.py",
        &["fail-retry-hint", "harness-old-order", "harness-wrong-id", "harness-not-yours"],
    );
    assert_eq!(
        check(&report, "fail-retry-hint")["message"],
        "error.isRetryable: expected False, got True"
    );
    // The refusal was tried three times: the harness's cap, not once.
    assert_eq!(check(&report, "harness-old-order")["got"]["attempts"], 3);
    assert_eq!(check(&report, "harness-old-order")["message"], "attempts: expected 1, got 3");
}

#[test]
fn check_fails_the_hint_and_the_flaky_payment_when_is_retryable_is_missing() {
    let report = assert_fails_exactly(
        "bug_retryable_missing.py",
        &["fail-retry-hint", "harness-flaky-payment"],
    );
    assert_eq!(
        check(&report, "fail-retry-hint")["message"],
        "error.isRetryable: expected True, got missing"
    );
    assert_eq!(check(&report, "harness-flaky-payment")["got"]["attempts"], 1);
}

#[test]
fn check_fails_only_the_message_check_when_the_message_is_replaced() {
    let report = assert_fails_exactly("bug_message_replaced.py", &["fail-keeps-message"]);
    let message = check(&report, "fail-keeps-message")["message"].as_str().unwrap().to_string();
    assert!(message.starts_with("error.message: expected 'The payment service"), "{message}");
    assert!(message.ends_with("got 'The transient check did not pass.'"), "{message}");
}

#[test]
fn check_fails_the_empty_checks_when_empty_is_treated_as_a_failure() {
    let report = assert_fails_exactly(
        "bug_empty_is_failure.py",
        &["empty-is-not-failure", "harness-no-orders"],
    );
    assert_eq!(check(&report, "harness-no-orders")["got"]["failed"], true);
}

#[test]
fn check_accepts_mcp_explicit_is_error_false_on_the_empty_answer() {
    // MCP spells "not an error" as `isError: False`; the harness reads it as a success, and so
    // does the shape check.
    assert_fails_exactly("empty_is_error_false.py", &[]);
}

#[test]
fn check_fails_the_refusal_checks_when_should_retry_always_says_yes() {
    assert_fails_exactly(
        "bug_retry_always.py",
        &[
            "no-retry-refusals",
            "no-retry-without-flag",
            "retry-follows-flag",
            "harness-old-order",
            "harness-wrong-id",
            "harness-not-yours",
        ],
    );
}

#[test]
fn check_fails_every_decision_when_should_retry_reads_the_whole_result() {
    let report = assert_fails_exactly(
        "bug_retry_reads_result.py",
        &[
            "retry-transient",
            "no-retry-refusals",
            "no-retry-without-flag",
            "retry-follows-flag",
            "harness-old-order",
            "harness-wrong-id",
            "harness-not-yours",
            "harness-flaky-payment",
        ],
    );
    let message = check(&report, "retry-transient")["message"].as_str().unwrap().to_string();
    assert_eq!(
        message,
        "raised KeyError: 'error' (learners/bug_retry_reads_result.py, line 21: return error[\"error\"][\"isRetryable\"])"
    );
    let harness = check(&report, "harness-old-order")["message"].as_str().unwrap().to_string();
    assert!(harness.starts_with("during attempt 1: raised KeyError: 'error'"), "{harness}");
}

#[test]
fn check_fails_only_the_missing_flag_check_when_should_retry_raises_key_error() {
    let report = assert_fails_exactly("bug_retry_keyerror.py", &["no-retry-without-flag"]);
    let failed = check(&report, "no-retry-without-flag");
    assert_eq!(
        failed["message"],
        "raised KeyError: 'isRetryable' (learners/bug_retry_keyerror.py, line 21: return error[\"isRetryable\"])"
    );
    assert_eq!(failed["call"], "should_retry({'message': 'Error'})");
}

#[test]
fn check_fails_the_transient_decisions_when_should_retry_returns_none() {
    let report = assert_fails_exactly(
        "bug_retry_returns_none.py",
        &["retry-transient", "retry-follows-flag", "harness-flaky-payment"],
    );
    let failed = check(&report, "retry-transient");
    assert_eq!(failed["message"], "should_retry returned None: expected a yes (True)");
    assert_eq!(failed["got"], Value::Null);
    assert_eq!(failed["output"], "this one can be retried\n");
}

#[test]
fn check_grades_the_starter_as_two_of_fourteen() {
    let w = Workshop::lesson5();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let run = w.run(&["check", "structured-errors", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = run.json();
    assert_eq!(ids_with(&report, "pass"), ["retry-transient", "harness-flaky-payment"]);
    assert_eq!(report["passed"], 2);
}

// The JSON report.

#[test]
fn check_json_report_has_the_documented_fields() {
    let (_, report) = grade("bug_no_is_error.py");
    let keys: Vec<&str> = report.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["lesson", "file", "status", "message", "checks", "passed", "total", "output"]
    );
    assert_eq!(report["lesson"], "structured-errors");
    assert_eq!(report["file"], "learners/bug_no_is_error.py");
    for c in report["checks"].as_array().unwrap() {
        let keys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
        // `guidance` only when the lesson recognises the mistake in what came back.
        let fields = ["id", "name", "status", "message", "output", "call", "expected", "got"];
        let with_guidance = [&fields[..], &["guidance"]].concat();
        let want: &[&str] = if c.get("guidance").is_some() { &with_guidance } else { &fields };
        assert_eq!(keys, want, "{c}");
        assert!(!c["name"].as_str().unwrap().is_empty());
    }
    let passed = check(&report, "fail-names-category");
    assert_eq!(passed["status"], "pass");
    assert_eq!(passed["message"], "");
    assert_eq!(passed["call"], Value::Null);
    let ids = check_ids(&report);
    assert_eq!(ids, ALL);
}

#[test]
fn check_json_names_the_first_check_to_fix() {
    let (_, report) = grade("bug_retry_always.py");
    assert_eq!(report["message"], "8 of 14 checks pass; the first to fix is no-retry-refusals");
}

// Arguments.

#[test]
fn check_without_a_lesson_grades_the_only_lesson() {
    let w = Workshop::lesson5();
    let file = w.learner("good_match.py");
    let run = w.run(&["check", "--file", &file]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with("structured-errors · learners/good_match.py\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn check_finds_a_file_flag_relative_to_the_current_folder() {
    let w = Workshop::lesson5();
    w.learner("good_helpers.py");
    let mut cmd = w.command(&["check", "--file", "good_helpers.py"]);
    cmd.current_dir(w.path("learners"));
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn check_reports_a_file_flag_that_does_not_exist() {
    let w = Workshop::lesson5();
    let run = w.run(&["check", "--file", "nowhere/errors.py"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("there is no file at"), "{}", run.stderr);
    assert!(run.stderr.contains("nowhere/errors.py"), "{}", run.stderr);
}

#[test]
fn check_refuses_a_timeout_out_of_range() {
    let w = Workshop::lesson5();
    let file = w.learner("good_match.py");
    for bad in ["0", "-1", "nan", "100000"] {
        let run = w.run(&["check", "--file", &file, &format!("--timeout={bad}")]);
        assert_eq!(run.code, 2, "--timeout {bad}: {}", run.stdout);
        assert!(run.stderr.contains("--timeout"), "{}", run.stderr);
    }
}

#[test]
fn check_of_another_file_says_all_green_and_nothing_more() {
    let w = Workshop::lesson5();
    let run = w.run(&["check", "--file", SOLUTION]);
    assert_eq!(run.code, 0);
    let words = flat(&run.stdout);
    assert!(words.ends_with("14/14 passed: every check is green."), "{}", run.stdout);
}

#[test]
fn green_is_a_door_to_the_replay_the_quiz_and_the_next_lesson() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    w.work_file_from("good_dataclass.py");
    let run = w.run(&["check", "structured-errors"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let door = &run.stdout
        [run.stdout.find("What next:\n").unwrap_or_else(|| panic!("no door:\n{}", run.stdout))..];
    let at = |what: &str| door.find(what).unwrap_or_else(|| panic!("{what}:\n{door}"));
    // In this order: your code beside the starter, the quiz, then the next lesson by name.
    assert!(
        at("./workshop watch structured-errors --compare")
            < at("./workshop quiz structured-errors"),
        "{door}"
    );
    assert!(
        at("./workshop quiz structured-errors") < at("./workshop start uncertain-state"),
        "{door}"
    );
    assert!(door.contains("lesson 6: A timeout is not a no"), "{door}");
    insta::assert_snapshot!("check_green_door", door);

    // Once the next lesson is started, the door goes back to it rather than starting it again.
    assert_eq!(w.run(&["start", "uncertain-state"]).code, 0);
    assert_eq!(w.run(&["quiz", "structured-errors", "--answers", "A,A,A,A,A,A,A,A,A,A,A"]).code, 0);
    let again = w.run(&["check", "structured-errors"]);
    assert!(again.stdout.contains("./workshop check uncertain-state"), "{}", again.stdout);
    assert!(again.stdout.contains("lesson 6, where you left it"), "{}", again.stdout);
    assert!(again.stdout.contains("(last score 2/11)"), "{}", again.stdout);

    // The only lesson, done: every lesson is.
    let w6 = Workshop::only("uncertain-state");
    assert_eq!(w6.run(&["start", "uncertain-state"]).code, 0);
    w6.write(
        "work/uncertain-state/refunds.py",
        &w6.read("lessons/uncertain-state/solution/refunds.py"),
    );
    let last = w6.run(&["check"]);
    assert!(last.stdout.contains("Every lesson of the course is done."), "{}", last.stdout);
    assert!(!last.stdout.contains("./workshop start"), "{}", last.stdout);
}

#[test]
fn check_ascii_marks_replace_the_unicode_ones() {
    let w = Workshop::lesson5();
    let file = w.learner("bug_no_is_error.py");
    let run = w.run(&["check", "--file", &file, "--ascii"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("XX fail-flags-failure"), "{}", run.stdout);
    assert!(run.stdout.contains("ok fail-names-category"), "{}", run.stdout);
    assert!(!run.stdout.contains('✓') && !run.stdout.contains('✗'), "{}", run.stdout);
    // The wider marks are counted: nothing runs past the width, and wrapped names line up.
    for line in run.stdout.lines() {
        assert!(line.chars().count() <= 80, "{} columns: {line}", line.chars().count());
    }
    let name_at = |l: &str| l.find("should_retry").unwrap();
    let first = run.stdout.lines().find(|l| l.contains("retry-follows-flag")).unwrap();
    let next = run.stdout.lines().skip_while(|l| !l.contains("retry-follows-flag")).nth(1).unwrap();
    assert_eq!(next.len() - next.trim_start().len(), name_at(first), "{first}\n{next}");
}

#[test]
fn the_empty_answer_expects_no_is_error_key_it_may_leave_out() {
    let w = Workshop::lesson5();
    let file = w.learner("bug_empty_is_failure.py");
    let report = w.run(&["check", "--file", &file, "--format", "json"]).json();
    let empty = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "empty-is-not-failure")
        .unwrap();
    assert_eq!(empty["status"], "fail");
    assert_eq!(
        empty["expected"],
        serde_json::json!({"orders": [], "message": empty["expected"]["message"]}),
        "{empty}"
    );
}

#[test]
fn check_text_expands_only_the_first_failure() {
    let w = Workshop::lesson5();
    let file = w.learner("bug_always_retryable.py");
    let run = w.run(&["check", "--file", &file]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout.matches("  expected  ").count(), 1, "{}", run.stdout);
    assert!(run.stdout.contains("✗ fail-retry-hint: "), "{}", run.stdout);
    assert!(!run.stdout.contains("✗ harness-old-order: "), "{}", run.stdout);
}

// Snapshots of the text a learner reads (plain styles: stdout is not a terminal).

fn text(w: &Workshop, args: &[&str]) -> String {
    let run = w.run(args);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    format!("exit {}\n{}", run.code, run.stdout)
}

#[test]
fn snapshot_check_of_the_starter() {
    let w = Workshop::lesson5();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    insta::assert_snapshot!("check_starter", text(&w, &["check", "structured-errors"]));
}

#[test]
fn snapshot_check_of_the_solution() {
    let w = Workshop::lesson5();
    insta::assert_snapshot!("check_solution", text(&w, &["check", "--file", SOLUTION]));
}

#[test]
fn snapshot_check_of_a_single_bug() {
    let w = Workshop::lesson5();
    let file = w.learner("bug_always_retryable.py");
    insta::assert_snapshot!("check_single_bug", text(&w, &["check", "--file", &file]));
}

#[test]
fn snapshot_check_of_a_syntax_error() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_syntax.py");
    insta::assert_snapshot!("check_syntax_error", text(&w, &["check", "--file", &file]));
}

#[test]
fn snapshot_check_of_a_call_that_times_out() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_loop_in_call.py");
    insta::assert_snapshot!("check_timeout", text(&w, &["check", "--file", &file]));
}

#[test]
fn check_stops_calling_a_function_that_hung_twice_and_reports_its_checks_as_not_run() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_fail_always_loops.py");
    let log = format!("{file}.log");
    let run = w.run(&["check", "--file", &file, "--format", "json", "--timeout", "0.3"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(w.read(&log).lines().count(), 2, "fail was called twice, then no more");
    let report = run.json();
    assert_eq!(
        ids_with(&report, "pass"),
        ["retry-transient", "no-retry-refusals", "no-retry-without-flag", "retry-follows-flag"]
    );
    let not_run = ids_with(&report, "not_run");
    assert_eq!(not_run, ALL[9..].to_vec(), "the harness checks need fail");
    let first_hang = "fail('transient', ";
    for id in &not_run {
        let message = check(&report, id)["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!(
                "not run: fail hung twice in this run, so it is not called again; the first call that hung was {first_hang}"
            )),
            "{id}: {message}"
        );
    }
    let text = w.run(&["check", "--file", &file, "--timeout", "0.3"]);
    assert!(text.stdout.contains("not run"), "{}", text.stdout);
    assert!(text.stdout.contains("harness-old-order, harness-wrong-id"), "{}", text.stdout);
    assert!(flat(&text.stdout).contains("fail hung twice in this run"), "{}", text.stdout);
    // The reason is said once, after the ids, without the report's own "not run: " again.
    assert!(!flat(&text.stdout).contains("not run: fail"), "{}", text.stdout);
}

#[test]
fn what_a_file_prints_at_import_is_in_the_json_report_and_in_a_failing_text_report() {
    let w = Workshop::lesson5();
    let starter =
        std::fs::read_to_string(repo().join("starter/structured-errors/errors.py")).unwrap();
    w.write("mine.py", &format!("print('warming up the refund desk')\n{starter}"));
    let run = w.run(&["check", "--file", "mine.py", "--format", "json"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.json()["output"], "warming up the refund desk\n");
    let text = w.run(&["check", "--file", "mine.py"]);
    assert!(
        text.stdout.contains("at import") && text.stdout.contains("warming up the refund desk"),
        "{}",
        text.stdout
    );

    let solution =
        std::fs::read_to_string(repo().join("lessons/structured-errors/solution/errors.py"))
            .unwrap();
    w.write("green.py", &format!("print('all set')\n{solution}"));
    let green = w.run(&["check", "--file", "green.py"]);
    assert_eq!(green.code, 0);
    assert!(!green.stdout.contains("all set"), "a passing report stays short:\n{}", green.stdout);
    assert_eq!(
        w.run(&["check", "--file", "green.py", "--format", "json"]).json()["output"],
        "all set\n"
    );
}

#[test]
fn the_harness_asks_should_retry_only_while_an_attempt_remains() {
    let w = Workshop::lesson5();
    let run =
        w.run(&["check", "--file", "starter/structured-errors/errors.py", "--format", "json"]);
    let report = run.json();
    let got = &check(&report, "harness-old-order")["got"];
    assert_eq!(got["attempts"], 3, "{got}");
    // Three attempts, two questions: after the last attempt there is nothing left to decide.
    assert_eq!(got["answers"].as_array().map(Vec::len), Some(2), "{got}");
}

#[test]
fn every_line_of_a_check_report_fits_a_narrow_terminal() {
    let w = Workshop::lesson5();
    let file = w.learner("bug_always_retryable.py");
    let mut cmd = w.command(&["check", "--file", &file]);
    cmd.env("COLUMNS", "50");
    let run = run(cmd);
    for line in run.stdout.lines() {
        assert!(
            line.chars().count() <= 50,
            "{} columns: {line}\n{}",
            line.chars().count(),
            run.stdout
        );
    }
    let flat = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&format!("./workshop check structured-errors --file {file} again")),
        "{}",
        run.stdout
    );
}

#[test]
fn check_hands_the_learners_python_no_key_or_token() {
    let w = Workshop::lesson5();
    let file = "learners/noted.py";
    let solution =
        std::fs::read_to_string(repo().join("lessons/structured-errors/solution/errors.py"))
            .unwrap();
    w.write(file, &format!("{ENVIRONMENT_NOTE}\n{solution}"));
    let mut cmd = w.command(&["check", "--file", file, "--format", "json"]);
    cmd.env("ANTHROPIC_API_KEY", "sk-ant-not-for-learners-0123456789")
        .env("GITHUB_TOKEN", "ghp_not_for_learners")
        .env("XDG_CONFIG_HOME", w.root())
        .env("PYTHONPATH", w.root());
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_only_the_allowed_environment(&w.read(&format!("{file}.env")));
}

#[test]
fn a_ticket_check_shows_what_the_code_printed_during_its_attempts() {
    let w = Workshop::lesson5();
    let starter =
        std::fs::read_to_string(repo().join("starter/structured-errors/errors.py")).unwrap();
    let chatty = starter.replace(
        "    return {\"error\": {\"message\": \"Error\"}}",
        "    print(f\"building a {category} failure\")\n    return {\"error\": {\"message\": \"Error\"}}",
    );
    assert_ne!(chatty, starter, "the starter still builds its failure the way this test expects");
    w.write("chatty.py", &chatty);
    let run = w.run(&["check", "--file", "chatty.py", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = run.json();
    let old_order = check(&report, "harness-old-order");
    assert_eq!(old_order["status"], "fail", "{old_order}");
    // The starter's should_retry says yes to everything: three attempts, each printed.
    assert_eq!(old_order["output"], "building a business failure\n".repeat(3), "{old_order}");
}

#[test]
fn green_offers_the_next_unfinished_lesson_and_says_when_every_lesson_is_done() {
    let w = Workshop::course(&["structured-errors", "uncertain-state"]);
    assert_eq!(w.run(&["start", "uncertain-state"]).code, 0);
    let fix = w.read("lessons/uncertain-state/solution/refunds.py");
    w.write("work/uncertain-state/refunds.py", &fix);
    let last = w.run(&["check", "uncertain-state"]);
    assert_eq!(last.code, 0, "{}", last.stderr);
    // The course's last lesson, with lesson 5 never started: lesson 5 is next.
    assert!(!last.stdout.contains("last lesson of the course"), "{}", last.stdout);
    assert!(last.stdout.contains("./workshop start structured-errors"), "{}", last.stdout);
    assert!(last.stdout.contains("lesson 5: Structured tool errors"), "{}", last.stdout);
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let fix = w.read("lessons/structured-errors/solution/errors.py");
    w.write("work/structured-errors/errors.py", &fix);
    let all = w.run(&["check", "structured-errors"]);
    assert_eq!(all.code, 0, "{}", all.stderr);
    assert!(!all.stdout.contains("./workshop start uncertain-state"), "{}", all.stdout);
    assert!(flat(&all.stdout).contains("Every lesson of the course is done."), "{}", all.stdout);
}
