//! Lesson 5's teaching data at work: the check that grades the rule (the flag decides, not the
//! category's name), the guidance that names a mistake from the shape of a wrong answer, and the
//! hints that go at least two steps.

use crate::common::*;

use serde_json::Value;

const MANIFEST: &str = "lessons/structured-errors/lesson.toml";

/// The checks that call should_retry directly.
const SHOULD_RETRY_CHECKS: [&str; 4] =
    ["retry-transient", "no-retry-refusals", "no-retry-without-flag", "retry-follows-flag"];

fn grade_file(w: &Workshop, file: &str) -> Value {
    let run = w.run(&["check", "--file", file, "--format", "json"]);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run.gave_a_verdict(file);
    run.json()
}

fn grade(fixture: &str) -> Value {
    let w = Workshop::lesson5();
    let file = w.learner(fixture);
    grade_file(&w, &file)
}

fn failing(report: &Value) -> Vec<&str> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] != "pass")
        .map(|c| c["id"].as_str().unwrap())
        .collect()
}

#[test]
fn deciding_retries_by_the_category_name_fails_only_the_flag_check() {
    let report = grade("teach_retry_by_category.py");
    assert_eq!(failing(&report), ["retry-follows-flag"], "{report}");
    for id in SHOULD_RETRY_CHECKS.iter().filter(|id| **id != "retry-follows-flag") {
        assert_eq!(check(&report, id)["status"], "pass", "{id}: {report}");
    }
    let failed = check(&report, "retry-follows-flag");
    assert_eq!(failed["guidance"]["mistake"], "The category's name decides", "{failed}");
    assert!(
        failed["call"].as_str().unwrap().contains("'transient'"),
        "the disagreeing transient case decides: {failed}"
    );
}

#[test]
fn wanting_both_category_and_flag_gets_its_own_guidance() {
    let report = grade("teach_retry_needs_both.py");
    assert_eq!(failing(&report), ["retry-follows-flag"], "{report}");
    assert_eq!(
        check(&report, "retry-follows-flag")["guidance"]["mistake"],
        "Category and flag both required"
    );
}

#[test]
fn the_flag_check_sits_right_after_no_retry_without_flag() {
    let report = grade("teach_empty_is_error_false.py");
    let ids = check_ids(&report);
    let at = ids.iter().position(|id| *id == "no-retry-without-flag").unwrap();
    assert_eq!(ids[at + 1], "retry-follows-flag", "{ids:?}");
}

#[test]
fn two_wrong_retry_flags_get_different_guidance() {
    let beside = grade("teach_flag_top_level.py");
    let text = grade("teach_flag_string.py");
    let beside = check(&beside, "fail-retry-hint");
    let text = check(&text, "fail-retry-hint");
    assert_eq!(beside["status"], "fail");
    assert_eq!(text["status"], "fail");
    assert_eq!(beside["guidance"]["mistake"], "Retry flag beside isError", "{beside}");
    assert_eq!(text["guidance"]["mistake"], "Retry flag as text", "{text}");
    assert_ne!(beside["guidance"]["says"], text["guidance"]["says"]);
}

#[test]
fn the_text_report_shows_the_guidance_under_likely() {
    let w = Workshop::lesson5();
    let file = w.learner("teach_flag_string.py");
    let run = w.run(&["check", "--file", &file]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let flat = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    let likely = flat
        .find("likely Retry flag as text.")
        .unwrap_or_else(|| panic!("no guidance:\n{}", run.stdout));
    assert!(flat[likely..].contains("Write the boolean."), "{}", run.stdout);
    assert!(
        !flat.contains("hint Besides the kind of failure"),
        "guidance replaces the first hint:\n{}",
        run.stdout
    );
}

#[test]
fn an_explicit_is_error_false_on_the_empty_answer_passes_everything() {
    let report = grade("teach_empty_is_error_false.py");
    assert_eq!(failing(&report), Vec::<&str>::new(), "{report}");
    assert_eq!(report["status"], "pass");
}

#[test]
fn a_canned_sentence_per_category_fails_fail_keeps_message() {
    let report = grade("teach_canned_messages.py");
    assert_eq!(failing(&report), ["fail-keeps-message"], "{report}");
}

#[test]
fn a_fail_that_remembers_its_first_message_per_category_fails_fail_keeps_message() {
    // Within one run every category used to get one sample sentence, so remembering the first
    // one passed; two sentences of one category now tell it apart.
    let report = grade("teach_remembers_first_message.py");
    assert_eq!(failing(&report), ["fail-keeps-message"], "{report}");
}

#[test]
fn every_check_has_at_least_two_hints() {
    let text = std::fs::read_to_string(repo().join(MANIFEST)).unwrap();
    let manifest: toml::Value = toml::from_str(&text).unwrap();
    let checks = manifest["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 14);
    for c in checks {
        let hints = c["hints"].as_array().map(Vec::len).unwrap_or(0);
        assert!(hints >= 2, "{} has {hints} hint(s)", c["id"]);
    }
}

#[test]
fn hint_counts_the_steps_of_the_new_check() {
    let w = Workshop::lesson5();
    w.work_file_from("teach_retry_by_category.py");
    let run = w.run(&["hint", "--check", "retry-follows-flag"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("Step 1 of 3"), "{}", run.stdout);
}

#[test]
fn the_draft_is_gone_once_its_content_is_lesson_data() {
    assert!(!repo().join("lessons/structured-errors/teaching-draft.toml").exists());
    let text = std::fs::read_to_string(repo().join(MANIFEST)).unwrap();
    let manifest: toml::Value = toml::from_str(&text).unwrap();
    // Every ticket's notes follow what the run did, the last one for any other run.
    for ticket in manifest["tickets"].as_array().unwrap() {
        let notes = ticket.get("notes").and_then(toml::Value::as_array).expect("notes are a list");
        assert!(notes.len() >= 3, "notes of {}", ticket["id"]);
        assert!(
            notes[..notes.len() - 1].iter().all(|n| n.get("when").is_some()),
            "notes of {}",
            ticket["id"]
        );
        assert!(notes.last().unwrap().get("when").is_none(), "notes of {}", ticket["id"]);
    }
}

/// A learner file made from the reference fix with one part replaced.
struct Variant {
    empty: &'static str,
    error: &'static str,
    retry: &'static str,
}

const EMPTY: &str = r#"{"orders": [], "message": message}"#;
const ERROR: &str = r#"{"isError": True, "error": {"errorCategory": category, "isRetryable": category == "transient", "message": message}}"#;
const RETRY: &str = r#"error.get("isRetryable") is True"#;

impl Variant {
    fn fail(error: &'static str) -> Variant {
        Variant { empty: EMPTY, error, retry: RETRY }
    }
    fn empty(empty: &'static str) -> Variant {
        Variant { empty, error: ERROR, retry: RETRY }
    }
    fn retry(retry: &'static str) -> Variant {
        Variant { empty: EMPTY, error: ERROR, retry }
    }
    fn source(&self) -> String {
        format!(
            "def fail(category, message):\n    if category == \"empty\":\n        return {}\n    return {}\n\n\ndef should_retry(error):\n    return {}\n",
            self.empty, self.error, self.retry
        )
    }
}

/// Each mistake the lesson names, written as a learner might, gets that mistake's guidance on the
/// check it fails, and no other entry's: the `when` lists tell the shapes apart.
#[test]
// A table of cases, one per named mistake: long as data, not as logic.
#[allow(clippy::too_many_lines)]
fn each_named_mistake_is_recognised_on_its_check() {
    let cases: Vec<(Variant, &str, &str)> = vec![
        (
            Variant::fail(
                r#"{"isError": "true", "error": {"errorCategory": category, "isRetryable": category == "transient", "message": message}}"#,
            ),
            "fail-flags-failure",
            "The flag is text",
        ),
        (
            Variant::fail(
                r#"{"isError": 1, "error": {"errorCategory": category, "isRetryable": category == "transient", "message": message}}"#,
            ),
            "fail-flags-failure",
            "The flag is a number",
        ),
        (
            Variant::fail(
                r#"{"is_error": True, "error": {"errorCategory": category, "isRetryable": category == "transient", "message": message}}"#,
            ),
            "fail-flags-failure",
            "API spelling in a tool result",
        ),
        (
            Variant::fail(
                r#"{"error": {"isError": True, "errorCategory": category, "isRetryable": category == "transient", "message": message}}"#,
            ),
            "fail-flags-failure",
            "The flag went inside the error",
        ),
        (
            Variant::fail(
                r#"{"isError": category == "transient", "error": {"errorCategory": category, "isRetryable": category == "transient", "message": message}}"#,
            ),
            "fail-flags-failure",
            "Only retryable failures flagged",
        ),
        (
            Variant::fail(
                r#"{"error": {"errorCategory": category, "isRetryable": category == "transient", "message": message}}"#,
            ),
            "fail-flags-failure",
            "No failure flag",
        ),
        (
            Variant::fail(r#"{"isError": True, "error": category + ": " + message}"#),
            "fail-names-category",
            "The error is a sentence",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "errorCategory": category, "error": {"isRetryable": category == "transient", "message": message}}"#,
            ),
            "fail-names-category",
            "Category beside the flag",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "error": {"type": category, "isRetryable": category == "transient", "message": message}}"#,
            ),
            "fail-names-category",
            "Category under another key",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "error": {"errorCategory": "business", "isRetryable": category == "transient", "message": message}}"#,
            ),
            "fail-names-category",
            "One category for everything",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "error": {"errorCategory": category.capitalize(), "isRetryable": category == "transient", "message": message}}"#,
            ),
            "fail-names-category",
            "Category capitalised or renamed",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "error": {"isRetryable": category == "transient", "message": message}}"#,
            ),
            "fail-names-category",
            "No category",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "error": {"errorCategory": category, "retryable": category == "transient", "message": message}}"#,
            ),
            "fail-retry-hint",
            "Retry flag under another name",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "error": dict({"errorCategory": category, "message": message}, **({"isRetryable": True} if category == "transient" else {}))}"#,
            ),
            "fail-retry-hint",
            "Flag only where it is true",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "error": {"errorCategory": category, "isRetryable": True, "message": message}}"#,
            ),
            "fail-retry-hint",
            "Every failure retryable",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "error": {"errorCategory": category, "isRetryable": category != "transient", "message": message}}"#,
            ),
            "fail-retry-hint",
            "The wrong kinds marked retryable",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "error": {"errorCategory": category, "isRetryable": category in ("transient", "permission"), "message": message}}"#,
            ),
            "fail-retry-hint",
            "The wrong kinds marked retryable",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "message": message, "error": {"errorCategory": category, "isRetryable": category == "transient"}}"#,
            ),
            "fail-keeps-message",
            "Message outside the error",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "error": {"errorCategory": category, "isRetryable": category == "transient", "message": "Error"}}"#,
            ),
            "fail-keeps-message",
            "Still the word Error",
        ),
        (
            Variant::empty(
                r#"{"isError": False, "orders": [], "message": message, "error": {"isRetryable": False}}"#,
            ),
            "empty-is-not-failure",
            "isError false, error still there",
        ),
        (
            Variant::empty(
                r#"{"isError": True, "error": {"errorCategory": "empty", "isRetryable": False, "message": message}}"#,
            ),
            "empty-is-not-failure",
            "Nothing found reported as a failure",
        ),
        (Variant::empty("[]"), "empty-is-not-failure", "Not a dictionary"),
        (Variant::empty(r#"{"orders": []}"#), "empty-is-not-failure", "The message left behind"),
        (Variant::retry("True"), "no-retry-refusals", "Retrying everything"),
        (Variant::retry(r#"error.get("message")"#), "no-retry-refusals", "Returning a non-boolean"),
        (
            Variant::retry(r#"error.get("errorCategory") in ("transient", "business")"#),
            "no-retry-refusals",
            "Some refusals still retried",
        ),
        (
            Variant::retry(r#"error.get("isRetryable", True)"#),
            "no-retry-without-flag",
            "No flag taken as yes",
        ),
        (Variant::retry("True"), "harness-old-order", "should_retry still says yes"),
        (
            Variant::fail(
                r#"{"isError": True, "error": {"errorCategory": category, "isRetryable": True, "message": message}}"#,
            ),
            "harness-old-order",
            "The refusal marked retryable",
        ),
        (
            Variant {
                empty: EMPTY,
                error: r#"{"isError": True, "error": {"errorCategory": category, "isRetryable": str(category == "transient").lower(), "message": message}}"#,
                retry: r#"error.get("isRetryable")"#,
            },
            "harness-old-order",
            "\"false\" read as yes",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "error": {"errorCategory": category, "isRetryable": True, "message": message}}"#,
            ),
            "harness-wrong-id",
            "A typo treated as a passing fault",
        ),
        (Variant::retry("True"), "harness-wrong-id", "should_retry overrules the flag"),
        (
            Variant::fail(
                r#"{"isError": True, "error": {"errorCategory": category, "isRetryable": True, "message": message}}"#,
            ),
            "harness-not-yours",
            "Access treated as a glitch",
        ),
        (Variant::retry("True"), "harness-not-yours", "should_retry overrules the flag"),
        (
            Variant::fail(
                r#"{"isError": True, "isRetryable": category == "transient", "error": {"errorCategory": category, "message": message}}"#,
            ),
            "harness-flaky-payment",
            "The flag never reaches should_retry",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "error": {"errorCategory": category, "isRetryable": "true" if category == "transient" else "false", "message": message}}"#,
            ),
            "harness-flaky-payment",
            "Retry flag as text",
        ),
        (
            Variant::fail(
                r#"{"isError": True, "error": {"errorCategory": category, "isRetryable": False, "message": message}}"#,
            ),
            "harness-flaky-payment",
            "The timeout marked final",
        ),
        (Variant::retry("False"), "harness-flaky-payment", "should_retry never says yes"),
        (
            Variant::empty(
                r#"{"isError": False, "orders": [], "message": message, "error": {"isRetryable": False}}"#,
            ),
            "harness-no-orders",
            "An error key on a success",
        ),
        (
            Variant::empty(
                r#"{"isError": True, "error": {"errorCategory": "empty", "isRetryable": True, "message": message}}"#,
            ),
            "harness-no-orders",
            "Nothing found, asked three times",
        ),
        (
            Variant::empty(
                r#"{"isError": True, "error": {"errorCategory": "empty", "isRetryable": False, "message": message}}"#,
            ),
            "harness-no-orders",
            "Nothing found, reported as failed",
        ),
    ];
    let w = Workshop::lesson5();
    let numbered: Vec<_> = cases.iter().enumerate().collect();
    let each = map_at_once(&numbered, |(i, (variant, id, mistake))| {
        let file = format!("learners/variant_{i}.py");
        w.write(&file, &variant.source());
        let report = grade_file(&w, &file);
        let got = check(&report, id);
        let right = got["status"] == "fail" && got["guidance"]["mistake"] == *mistake;
        (!right).then(|| format!("{id}, wanted {mistake:?}: {got}\n{}", variant.source()))
    });
    let wrong: Vec<String> = each.into_iter().flatten().collect();
    assert!(
        wrong.is_empty(),
        "{} of {} mistakes not recognised:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

#[test]
fn a_call_that_raises_gets_the_advice_for_that_mistake() {
    // should_retry written for the whole result: KeyError 'error', the lesson's spot-the-bug.
    let report = grade("teach_retry_reads_whole_result.py");
    let transient = check(&report, "retry-transient");
    assert_eq!(transient["status"], "fail");
    assert_eq!(
        transient["guidance"]["mistake"], "Looking for the error inside the error",
        "{transient}"
    );
    // Square brackets on a missing flag: its own advice on its own check.
    let report = grade("bug_retry_keyerror.py");
    let missing = check(&report, "no-retry-without-flag");
    assert_eq!(missing["guidance"]["mistake"], "Crashing on a missing flag", "{missing}");
}
