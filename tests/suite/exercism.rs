//! `check --format exercism` as a runner built for Exercism reads it: what could not run is an
//! `error` (not a failure of the learner's), and output is cut at 500 characters, not bytes.

use crate::common::*;

use serde_json::Value;

fn results(w: &Workshop, file: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["check", "--file", file, "--format", "exercism"];
    args.extend_from_slice(extra);
    let run = w.run(&args);
    (run.code, run.json())
}

fn statuses(results: &Value) -> Vec<String> {
    results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["status"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn exercism_a_test_that_could_not_run_is_an_error_not_a_failure() {
    let w = Workshop::lesson5();
    let (code, not_loaded) = results(&w, &w.learner("bad_syntax.py"), &[]);
    assert_eq!(code, 2);
    assert!(statuses(&not_loaded).iter().all(|s| s == "error"), "{not_loaded}");
    // fail hangs twice, so the checks that need it are not run: errors, beside real results.
    let (code, hung) = results(&w, &w.learner("bad_fail_always_loops.py"), &["--timeout", "0.3"]);
    assert_eq!(code, 1);
    let statuses = statuses(&hung);
    assert_eq!(statuses.iter().filter(|s| *s == "error").count(), 5, "{hung}");
    assert!(statuses.iter().any(|s| s == "pass"), "{hung}");
}

#[test]
fn exercism_output_is_cut_at_500_characters_not_bytes() {
    let w = Workshop::lesson5();
    let buggy = std::fs::read_to_string(fixture("bug_no_is_error.py")).unwrap();
    for (count, whole) in [(300, true), (600, false)] {
        let file = format!("learners/prints_{count}.py");
        let printing = buggy.replace(
            "def fail(category: str, message: str) -> Json:",
            &format!(
                "def fail(category: str, message: str) -> Json:\n    print('é' * {count}, end='')"
            ),
        );
        assert_ne!(printing, buggy, "the fixture's fail is found");
        w.write(&file, &printing);
        let (_, results) = results(&w, &file, &[]);
        let output = results["tests"][0]["output"].as_str().unwrap();
        if whole {
            assert_eq!(
                output,
                "é".repeat(count),
                "{count} characters (twice as many bytes) are kept whole"
            );
        } else {
            assert_eq!(output.chars().count(), 500, "{output}");
            assert!(
                output.starts_with("éééé") && output.ends_with("500 characters of output]"),
                "{output}"
            );
        }
    }
}
