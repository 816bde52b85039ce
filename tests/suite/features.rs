//! Tests that would catch a feature quietly broken: each fails if the feature is replaced by
//! something that looks the same from the outside (the reference replayed for the learner's
//! code, "wrote" printed with nothing written, import output dropped).

use crate::common::*;

use serde_json::Value;

const WORK: &str = "work/structured-errors/errors.py";

/// A learner file unlike both the starter and the reference: every failure is reported as a
/// validation error that a retry cannot help (the starter has no category, the reference says
/// `business` for the old order).
const EVERYTHING_IS_VALIDATION: &str = r#"from kit.api import Json


def fail(category: str, message: str) -> Json:
    if category == "empty":
        return {"orders": [], "message": message}
    return {"isError": True, "error": {"errorCategory": "validation", "isRetryable": False, "message": message}}


def should_retry(error: Json) -> bool:
    return error.get("isRetryable") is True
"#;

fn first_attempt(replay: &Value) -> &Value {
    replay["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "attempt")
        .expect("an attempt")
}

fn watch_json(ws: &Workshop, extra: &[&str]) -> Value {
    let mut args = vec!["watch", "--ticket", "old-order", "--format", "json"];
    args.extend_from_slice(extra);
    let run = ws.run(&args);
    assert_eq!(run.code, 0, "{args:?}\n{}\n{}", run.stdout, run.stderr);
    run.json()
}

#[test]
fn watch_code_yours_replays_the_work_file_not_the_reference() {
    let ws = Workshop::lesson5();
    ws.write(WORK, EVERYTHING_IS_VALIDATION);
    let replay = watch_json(&ws, &["--code", "yours"]);
    assert_eq!(replay["code"], "yours");
    let attempt = first_attempt(&replay);
    assert_eq!(attempt["category"], "validation", "{attempt}");
    assert_eq!(attempt["retryable"], false, "{attempt}");
    // And the same in the cards a learner reads.
    let cards = ws.run(&["watch", "--ticket", "old-order", "--code", "yours"]);
    assert!(cards.stdout.contains("category validation, not retryable"), "{}", cards.stdout);
    // The reference, for contrast, says business: the test tells the two apart.
    let reference = watch_json(&ws, &["--code", "structured"]);
    assert_eq!(first_attempt(&reference)["category"], "business");
}

#[test]
fn watch_after_start_replays_the_work_file_by_default() {
    let ws = Workshop::lesson5();
    assert_eq!(ws.run(&["start", "structured-errors"]).code, 0);
    ws.write(WORK, EVERYTHING_IS_VALIDATION);
    let replay = watch_json(&ws, &[]);
    assert_eq!(replay["code"], "yours");
    assert_eq!(first_attempt(&replay)["category"], "validation", "{replay}");
}

#[test]
fn record_writes_every_file_it_says_it_wrote() {
    let ws = Workshop::lesson5();
    let dir = ws.path("recordings/structured-errors");
    let mut before = Vec::new();
    for runtime in ["harness", "sdk"] {
        for entry in std::fs::read_dir(dir.join(runtime)).unwrap().flatten() {
            before.push((entry.path(), std::fs::read_to_string(entry.path()).unwrap()));
            std::fs::remove_file(entry.path()).unwrap();
        }
    }
    assert!(!before.is_empty());
    let run = ws.run(&["record"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let wrote: Vec<&str> = run.stdout.lines().filter(|l| l.starts_with("wrote ")).collect();
    assert_eq!(wrote.len(), before.len(), "{}", run.stdout);
    for line in wrote {
        let rel = line.strip_prefix("wrote ").and_then(|l| l.split(" (").next()).unwrap();
        assert!(ws.path(rel).is_file(), "said it wrote {rel}, and there is no such file");
    }
    for (path, text) in before {
        let again = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{} was not written: {e}", path.display()));
        assert_eq!(again, text, "{}", path.display());
    }
}

/// The reference with a line printed when it is imported.
fn chatty(ws: &Workshop, body: &str) -> String {
    ws.write("learners/chatty.py", &format!("print('loading my helpers')\n{body}"));
    "learners/chatty.py".to_string()
}

#[test]
fn check_json_reports_what_the_file_printed_at_import() {
    let ws = Workshop::lesson5();
    let file = chatty(&ws, &ws.read("lessons/structured-errors/solution/errors.py"));
    let run = ws.run(&["check", "--file", &file, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = run.json();
    assert_eq!(report["output"], "loading my helpers\n", "{report}");
    for check in report["checks"].as_array().unwrap() {
        assert_eq!(check["output"], "", "import output is not any call's: {check}");
    }
}

#[test]
fn check_text_shows_import_output_on_a_failing_run_only() {
    let ws = Workshop::lesson5();
    let failing = chatty(&ws, &ws.read("starter/structured-errors/errors.py"));
    let run = ws.run(&["check", "--file", &failing]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("  at import loading my helpers\n"), "{}", run.stdout);

    let passing = chatty(&ws, &ws.read("lessons/structured-errors/solution/errors.py"));
    let run = ws.run(&["check", "--file", &passing]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("loading my helpers"), "{}", run.stdout);
}
