//! `check --format exercism`: the results object of the Exercism test-runner interface, version 3
//! (exercism/docs, building/tooling/test-runners/interface.md), so a runner built for Exercism
//! can hand our grade to its website unchanged.

use serde_json::{json, Map, Value};

use crate::checks::{CheckResult, Report, Status};
use crate::lesson::Lesson;
use crate::text::pyrepr;

/// The interface's limit on a test's `output`, in characters.
pub(crate) const OUTPUT_LIMIT: usize = 500;

/// The results object, pretty-printed, with nothing in it that acts on a terminal (as
/// `grade --format exercism` writes it).
pub(crate) fn results(report: &Report, lesson: &Lesson) -> String {
    let value = results_value(report, |id| lesson.check(id).and_then(|t| t.task));
    let json = serde_json::to_string_pretty(&value).unwrap_or_else(|e| {
        format!("{{\"version\": 3, \"status\": \"error\", \"message\": \"{e}\"}}")
    });
    crate::text::inert::json(json)
}

/// The interface's limit on the top-level `message`, in characters.
pub(crate) const MESSAGE_LIMIT: usize = 65_535;

/// The results object; `task` gives a check's task number, when the lesson groups its checks.
/// Values and messages are shortened as in `check --format json`, so a file that returns
/// megabytes still gets a small object.
pub(crate) fn results_value(report: &Report, task: impl Fn(&str) -> Option<u32>) -> Value {
    let report = &crate::render::check::shortened(report);
    let mut top = Map::new();
    top.insert("version".into(), json!(3));
    top.insert("status".into(), json!(status(report.status)));
    // Only an error carries a top-level message; the interface wants it absent (or null) otherwise.
    if report.status == Status::Error {
        let mut message = report.message.clone();
        if !report.load_output.trim().is_empty() {
            message.push_str("\n\nPrinted while loading:\n");
            message.push_str(report.load_output.trim_end());
        }
        top.insert(
            "message".into(),
            json!(crate::text::shorten::shorten_text(&message, MESSAGE_LIMIT - 40)),
        );
    }
    let tests: Vec<Value> = report.checks.iter().map(|c| test(c, task(&c.id))).collect();
    top.insert("tests".into(), Value::Array(tests));
    Value::Object(top)
}

fn status(status: Status) -> &'static str {
    match status {
        Status::Pass => "pass",
        Status::Fail => "fail",
        // Exercism knows pass, fail and error only.
        Status::Error | Status::NotRun => "error",
    }
}

fn test(check: &CheckResult, task: Option<u32>) -> Value {
    let mut test = Map::new();
    test.insert("name".into(), json!(check.name));
    test.insert("status".into(), json!(status(check.status)));
    if let Some(call) = &check.call {
        test.insert("test_code".into(), json!(call));
    }
    if check.status != Status::Pass {
        let mut message = check.message.clone();
        if let Some(expected) = &check.expected {
            message.push_str(&format!("\nexpected {}", pyrepr::repr(expected)));
        }
        if let Some(got) = &check.got {
            message.push_str(&format!("\ngot {}", pyrepr::repr(got)));
        }
        test.insert("message".into(), json!(message));
    }
    if !check.output.is_empty() {
        test.insert("output".into(), json!(capped(&check.output)));
    }
    if let Some(task) = task {
        test.insert("task_id".into(), json!(task));
    }
    Value::Object(test)
}

/// The learner's output within the interface's 500 characters, with a note when cut.
fn capped(output: &str) -> String {
    if output.chars().count() <= OUTPUT_LIMIT {
        return output.to_string();
    }
    let note = "\n[cut: tests may show at most 500 characters of output]";
    let keep = OUTPUT_LIMIT - note.chars().count();
    let mut text: String = output.chars().take(keep).collect();
    text.push_str(note);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_output_is_cut_to_the_interface_limit_with_a_note() {
        let long = "é".repeat(2000);
        let cut = capped(&long);
        assert_eq!(cut.chars().count(), OUTPUT_LIMIT);
        assert!(cut.ends_with("500 characters of output]"));
        assert_eq!(capped("short"), "short");
        let exact = "x".repeat(OUTPUT_LIMIT);
        assert_eq!(capped(&exact), exact);
    }
}
