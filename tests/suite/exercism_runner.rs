//! `bin/run.sh`, Exercism's test-runner interface, tested the way Exercism's runners are: a folder
//! of example solutions (tests/fixtures/exercism/<slug>/<example>/), each with the results.json
//! the runner must write beside it as `expected_results.json`. The runner exits 0 whatever the
//! tests' status, and 2 (with an error object) when it could not grade.

use crate::common::*;

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

fn run_sh(slug: &str, input: &Path, output: &Path) -> Run {
    // A home of its own, as a runner's container has: nothing lands in the real cache.
    let home = tempdir();
    let mut cmd = Command::new(repo().join("bin/run.sh"));
    cmd.env("HOME", home.path())
        .env("XDG_CACHE_HOME", home.path().join(".cache"))
        .arg(slug)
        .arg(format!("{}/", input.display()))
        .arg(format!("{}/", output.display()))
        .env("WORKSHOP_BIN", BIN)
        .env("WORKSHOP_ROOT", repo())
        .env("WORKSHOP_PYTHON", crate::sandbox::grading_python())
        // The examples' expected results were drawn with the tests' sample key.
        .env("WORKSHOP_SEED", "0")
        .env_remove("WORKSHOP_SANDBOX")
        .stdin(Stdio::null());
    let run = run(cmd);
    if run.code == 0 {
        assert!(run.stderr.contains("graded 1 file in"), "grade's summary: {}", run.stderr);
    }
    run
}

fn results(output: &Path) -> Value {
    let text =
        std::fs::read_to_string(output.join("results.json")).expect("results.json is written");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("results.json is not JSON ({e}): {text}"))
}

#[test]
fn every_example_solution_gets_its_expected_results_json_and_exit_0() {
    let update = std::env::var_os("WORKSHOP_UPDATE_EXPECTED").is_some();
    let mut examples = 0;
    let mut statuses = Vec::new();
    for slug in std::fs::read_dir(repo().join("tests/fixtures/exercism")).unwrap().flatten() {
        if !slug.path().is_dir() {
            continue;
        }
        let slug_name = slug.file_name().to_string_lossy().into_owned();
        let mut dirs: Vec<_> =
            std::fs::read_dir(slug.path()).unwrap().flatten().map(|e| e.path()).collect();
        dirs.sort();
        for input in dirs.into_iter().filter(|p| p.is_dir()) {
            let name = input.file_name().unwrap().to_string_lossy().into_owned();
            let output = tempdir();
            let run = run_sh(&slug_name, &input, output.path());
            assert_eq!(
                run.code, 0,
                "{name}: the runner ran, so it exits 0 whatever the tests say: {}",
                run.stderr
            );
            let got = results(output.path());
            let expected_path = input.join("expected_results.json");
            if update {
                std::fs::write(&expected_path, serde_json::to_string_pretty(&got).unwrap() + "\n")
                    .unwrap();
            }
            let expected: Value =
                serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap()).unwrap();
            assert_eq!(got, expected, "{name}: results.json differs from expected_results.json");
            assert!(
                !got.to_string().contains(&input.display().to_string()),
                "{name}: paths are <solution-dir>/..."
            );
            statuses.push(got["status"].as_str().unwrap().to_string());
            examples += 1;
        }
    }
    assert!(examples >= 8, "the examples were found: {examples}");
    for status in ["pass", "fail", "error"] {
        assert!(statuses.iter().any(|s| s == status), "an example for {status}: {statuses:?}");
    }
}

#[test]
fn the_runner_says_why_it_could_not_grade_and_exits_2() {
    let output = tempdir();
    let input = repo().join("tests/fixtures/exercism/structured-errors/passes");
    let unknown = run_sh("no-such-lesson", &input, output.path());
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
    assert!(unknown.stderr.contains("there is no lesson 'no-such-lesson'"), "{}", unknown.stderr);
    let got = results(output.path());
    assert_eq!(got["version"], 3);
    assert_eq!(got["status"], "error");
    assert!(
        got["message"].as_str().unwrap().starts_with("there is no lesson 'no-such-lesson'"),
        "{got}"
    );

    let mut cmd = Command::new(repo().join("bin/run.sh"));
    cmd.arg("structured-errors").stdin(Stdio::null());
    let usage = run(cmd);
    assert_eq!(usage.code, 2);
    assert!(
        usage.stderr.contains("usage: bin/run.sh SLUG INPUT_DIR/ OUTPUT_DIR/"),
        "{}",
        usage.stderr
    );

    // Without Python: still an error object, and the reason.
    let mut cmd = Command::new(repo().join("bin/run.sh"));
    cmd.arg("structured-errors")
        .arg(format!("{}/", input.display()))
        .arg(format!("{}/", output.path().display()))
        .env("WORKSHOP_BIN", BIN)
        .env("WORKSHOP_ROOT", repo())
        .env("WORKSHOP_PYTHON", "/nonexistent/python3")
        .stdin(Stdio::null());
    let no_python = run(cmd);
    assert_eq!(no_python.code, 2, "{}", no_python.stderr);
    assert!(
        no_python.stderr.contains("could not run Python 3 as /nonexistent/python3"),
        "{}",
        no_python.stderr
    );
    let got = results(output.path());
    assert!(
        got["message"].as_str().unwrap().contains("could not run Python 3 as /nonexistent/python3"),
        "{got}"
    );
}

#[test]
fn the_runner_refuses_a_results_json_that_is_a_link_and_writes_nothing_through_it() {
    // Exercism's tracks grade a solution folder that is also the output folder: a solution
    // may hold results.json -> a file outside, which the runner must never write to.
    let outside = tempdir();
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "the operator's file\n").unwrap();
    let solution = tempdir();
    let passes = repo().join("tests/fixtures/exercism/structured-errors/passes/errors.py");
    std::fs::copy(passes, solution.path().join("errors.py")).unwrap();
    std::os::unix::fs::symlink(&victim, solution.path().join("results.json")).unwrap();
    // The error path (no such lesson) and the grading path alike.
    for slug in ["no-such-lesson", "structured-errors"] {
        let run = run_sh(slug, solution.path(), solution.path());
        assert_eq!(run.code, 2, "{slug}: {}", run.stderr);
        assert!(
            run.stderr.contains("results.json is a link, not a file: remove it"),
            "{slug}: {}",
            run.stderr
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "the operator's file\n", "{slug}");
        let link = std::fs::symlink_metadata(solution.path().join("results.json")).unwrap();
        assert!(link.file_type().is_symlink(), "{slug}: the link is left as it was");
    }
}
