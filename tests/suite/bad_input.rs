//! Bad input: each gets a clear message and the right exit code, and nothing panics, hangs or
//! leaves a process behind.

use crate::common::*;

use serde_json::Value;

/// Nothing of the runner's own machinery shows through to the learner.
fn assert_no_runner_frames(text: &str) {
    for leak in ["runner.py", "workshop_runner", "<string>", "Traceback", "panicked"] {
        assert!(!text.contains(leak), "mentions {leak:?}:\n{text}");
    }
}

fn check_json(w: &Workshop, file: &str, extra: &[&str]) -> (Run, Value) {
    let mut args = vec!["check", "--file", file, "--format", "json"];
    args.extend_from_slice(extra);
    let run = w.run(&args);
    assert_no_runner_frames(&run.stdout);
    assert_no_runner_frames(run.stderr.text());
    let report = run.json();
    (run, report)
}

/// A file that does not load: exit 2, status error, every check "error", and `message` names it.
fn assert_not_loaded(fixture: &str, wanted: &[&str]) -> Value {
    let w = Workshop::lesson5();
    let file = w.learner(fixture);
    let (run, report) = check_json(&w, &file, &[]);
    assert_eq!(run.code, 2, "{fixture}: {}", run.stdout);
    assert_eq!(report["status"], "error");
    assert_eq!(report["passed"], 0);
    assert_eq!(ids_with(&report, "error").len(), 14, "{fixture}: every check is an error");
    let message = report["message"].as_str().unwrap();
    for part in wanted {
        assert!(message.contains(part), "{fixture}: {part:?} not in {message:?}");
    }
    report
}

/// The text a learner reads for a file that does not load.
fn not_loaded_text(fixture: &str, extra: &[&str]) -> String {
    let w = Workshop::lesson5();
    let file = w.learner(fixture);
    let mut args = vec!["check", "--file", &file];
    args.extend_from_slice(extra);
    let run = w.run(&args);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_no_runner_frames(&run.stdout);
    assert_no_runner_frames(run.stderr.text());
    assert!(run.stdout.contains(&format!("could not load {file}")), "{}", run.stdout);
    assert!(run.stdout.contains("No check ran."), "{}", run.stdout);
    run.stdout.clone()
}

// Files that do not load.

#[test]
fn check_reports_a_syntax_error_with_file_and_line() {
    assert_not_loaded(
        "bad_syntax.py",
        &["learners/bad_syntax.py, line 6: SyntaxError", "if category == \"empty\""],
    );
    let text = not_loaded_text("bad_syntax.py", &[]);
    // The report wraps to the width: compare the words, not the line breaks.
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("No check ran. Fix the file, then run ./workshop check structured-errors --file learners/bad_syntax.py again."),
        "{text}"
    );
}

#[test]
fn check_reports_an_import_error_with_file_and_line() {
    assert_not_loaded(
        "bad_import.py",
        &[
            "learners/bad_import.py",
            "line 3",
            "ModuleNotFoundError: No module named 'requests_but_not_installed'",
        ],
    );
}

#[test]
fn check_reports_an_exception_at_import_with_file_and_line() {
    assert_not_loaded(
        "bad_exception_at_import.py",
        &["learners/bad_exception_at_import.py", "line 5", "KeyError: 'business'"],
    );
}

#[test]
fn check_reports_a_missing_function_by_name() {
    assert_not_loaded(
        "bad_missing_function.py",
        &["learners/bad_missing_function.py", "no function named should_retry"],
    );
}

#[test]
fn check_reports_sys_exit_at_import() {
    assert_not_loaded("bad_sys_exit_at_import.py", &["line 6", "sys.exit('stopping early')"]);
}

#[test]
fn check_reports_os_exit_at_import_and_what_was_printed() {
    let report = assert_not_loaded(
        "bad_os_exit_at_import.py",
        &["learners/bad_os_exit_at_import.py", "exited with code 3"],
    );
    assert!(
        !report["message"].as_str().unwrap().contains("about to leave"),
        "output is kept apart from the message"
    );
    let text = not_loaded_text("bad_os_exit_at_import.py", &[]);
    assert!(text.contains("  printed   about to leave"), "{text}");
}

#[test]
fn check_reports_an_import_that_sleeps_as_a_load_timeout() {
    // Loading gets the call deadline plus a start-up allowance of 2 s.
    let text = not_loaded_text("bad_sleep_at_import.py", &["--timeout", "0.2"]);
    assert!(
        text.contains("learners/bad_sleep_at_import.py did not finish loading within 2.2 s"),
        "{text}"
    );
    assert!(text.contains("  printed   warming up"), "{text}");
}

// Calls that misbehave: that check fails, the others still run.

#[test]
fn check_reports_an_infinite_loop_and_runs_the_other_checks() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_loop_in_call.py");
    let run = w.run(&["check", "--file", &file, "--format", "json"]);
    assert_no_runner_frames(&run.stdout);
    let report = run.json();
    assert_eq!(run.code, 1);
    assert_eq!(ids_with(&report, "fail"), ["no-retry-without-flag"]);
    // The harness checks come after the hang and ran in a fresh process.
    assert_eq!(ids_with(&report, "pass").len(), 13);
    let hung = check(&report, "no-retry-without-flag");
    assert_eq!(
        hung["message"],
        "should_retry({'message': 'Error'}) hung: it did not return within 1 s: an infinite loop?"
    );
    assert_eq!(hung["hung"], "should_retry({'message': 'Error'})");
    assert_eq!(hung["output"], "looking for the flag\n");
    let helper = pid_in(&w.path(&format!("{file}.pid")));
    assert!(
        !alive(helper),
        "the process group of the hung call was killed (its helper {helper} too)"
    );
}

#[test]
fn check_timeout_flag_sets_the_deadline_of_each_call() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_loop_in_call.py");
    let (run, report) = check_json(&w, &file, &["--timeout", "0.3"]);
    assert_eq!(run.code, 1);
    let message = check(&report, "no-retry-without-flag")["message"].as_str().unwrap().to_string();
    let hung = "hung: it did not return within 0.3 s: an infinite loop?";
    assert!(message.ends_with(hung), "{message}");
}

#[test]
fn check_reports_sys_exit_in_a_call_with_its_line() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_sys_exit_in_call.py");
    let (run, report) = check_json(&w, &file, &[]);
    assert_eq!(run.code, 1);
    assert_eq!(
        ids_with(&report, "fail"),
        ["no-retry-refusals", "retry-follows-flag", "harness-not-yours"]
    );
    assert_eq!(
        check(&report, "no-retry-refusals")["message"],
        "called sys.exit(4) (learners/bad_sys_exit_in_call.py, line 22: sys.exit(4))"
    );
}

#[test]
fn check_reports_os_exit_in_a_call_and_carries_on_in_a_fresh_process() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_os_exit_in_call.py");
    let (run, report) = check_json(&w, &file, &[]);
    assert_eq!(run.code, 1);
    assert_eq!(
        ids_with(&report, "fail"),
        [
            "fail-flags-failure",
            "fail-names-category",
            "fail-retry-hint",
            "fail-keeps-message",
            "harness-old-order"
        ]
    );
    let died = check(&report, "fail-flags-failure");
    assert_eq!(
        died["message"],
        "the Python process ended during the call: it exited with code 9 (os._exit, or a crash)"
    );
    assert_eq!(died["output"], "giving up on business\n");
    assert_eq!(died["call"].as_str().map(|c| c.starts_with("fail('business', ")), Some(true));
}

#[test]
fn check_closes_stdin_so_reading_it_never_hangs() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_reads_stdin.py");
    // Give the child a stdin that would block for ever if the runner passed it on.
    let mut cmd = w.command(&["check", "--file", &file, "--format", "json"]);
    cmd.stdin(std::process::Stdio::piped());
    let child = cmd.stdout(std::process::Stdio::piped()).spawn().unwrap();
    let out = child.wait_with_output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(ids_with(&report, "fail"), ["no-retry-without-flag"]);
    let failed = check(&report, "no-retry-without-flag");
    assert_eq!(
        failed["message"],
        "raised EOFError: EOF when reading a line (learners/bad_reads_stdin.py, line 24: answer = input(\"Retry this one? [y/n] \"))"
    );
    assert_eq!(failed["output"], "Retry this one? [y/n] ");
}

#[test]
fn check_caps_megabytes_of_output_and_shows_the_start() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_prints_megabytes.py");
    let (run, report) = check_json(&w, &file, &[]);
    assert_eq!(run.code, 1);
    assert_eq!(ids_with(&report, "fail"), ["fail-flags-failure"]);
    let output = check(&report, "fail-flags-failure")["output"].as_str().unwrap().to_string();
    assert!(
        output.starts_with("tracing line 0000 of the fail function for transient\n"),
        "{output:.200}"
    );
    assert!(output.len() < 9 * 1024, "capped at 8 KiB and a note, not {} bytes", output.len());
    assert!(
        output.trim_end().ends_with("more bytes not shown"),
        "{}",
        &output[output.len() - 200..]
    );
    assert!(
        run.stdout.len() < 20 * 1024,
        "the whole report stays small: {} bytes",
        run.stdout.len()
    );

    let text = w.run(&["check", "--file", &file]);
    assert!(text
        .stdout
        .contains("  printed   tracing line 0000 of the fail function for transient\n"));
    assert!(text.stdout.contains("more lines (--format json shows them)"), "{}", text.stdout);
    assert!(text.stdout.contains("more bytes not shown"), "{}", text.stdout);
    assert!(text.stdout.lines().count() < 60, "{}", text.stdout);
}

#[test]
fn check_keeps_writes_to_fd_1_out_of_the_protocol() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_writes_fd1.py");
    let (run, report) = check_json(&w, &file, &[]);
    // The fake answers claimed isError true and should_retry True; none was believed.
    assert_eq!(run.code, 1);
    assert_eq!(ids_with(&report, "fail"), ["fail-flags-failure"]);
    assert_eq!(
        check(&report, "fail-flags-failure")["output"],
        "{\"id\": 1, \"ok\": true, \"value\": {\"isError\": true}}\n{\"id\": 2, \"ok\": true, \"value\": null}\nand some stderr\n"
    );
}

#[test]
fn check_shows_the_repr_of_a_returned_set() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_returns_set.py");
    let (run, report) = check_json(&w, &file, &[]);
    assert_eq!(run.code, 1);
    let message = check(&report, "fail-flags-failure")["message"].as_str().unwrap().to_string();
    assert!(
        message.starts_with(
            "returned a value that is not JSON: result is a set, which is not JSON: {"
        ),
        "{message}"
    );
    assert!(message.contains("'isError'") && message.contains("True"), "{message}");
    assert_eq!(
        ids_with(&report, "pass"),
        [
            "empty-is-not-failure",
            "retry-transient",
            "no-retry-refusals",
            "no-retry-without-flag",
            "retry-follows-flag",
            "harness-no-orders"
        ]
    );
}

#[test]
fn check_shows_the_repr_of_a_returned_object() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_returns_object.py");
    let (run, report) = check_json(&w, &file, &[]);
    assert_eq!(run.code, 1);
    let message = check(&report, "retry-transient")["message"].as_str().unwrap().to_string();
    assert!(
        message.starts_with(
            "returned a value that is not JSON: result is a Decision, which is not JSON: <"
        ),
        "{message}"
    );
    assert!(message.contains("Decision object at 0x"), "{message}");
    assert_eq!(ids_with(&report, "fail").len(), 8);
}

#[test]
fn check_reports_a_lone_surrogate_in_a_returned_string() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_lone_surrogate.py");
    let (run, report) = check_json(&w, &file, &[]);
    assert_eq!(run.code, 1);
    assert_eq!(
        ids_with(&report, "fail"),
        [
            "fail-flags-failure",
            "fail-names-category",
            "fail-retry-hint",
            "fail-keeps-message",
            "harness-old-order"
        ]
    );
    let failed = check(&report, "fail-flags-failure");
    let message = failed["message"].as_str().unwrap();
    assert!(
        message.contains("result.error.message is a string with a lone surrogate"),
        "{message}"
    );
    assert!(message.ends_with("\\ud800'"), "{message}");
    // Printing one is harmless: it arrives escaped.
    assert_eq!(failed["output"], "odd text: \\udc80\n");
}

#[test]
fn check_leaves_no_child_process_running() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_child_process.py");
    let (run, report) = check_json(&w, &file, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(report["status"], "pass");
    // This run's own children, by pid: a suite running elsewhere on the machine has its own.
    let pids = w.read("children.pids");
    assert_eq!(pids.lines().count(), 2, "the fixture started both: {pids}");
    for pid in pids.lines() {
        assert!(!alive(pid.trim().parse().unwrap()), "child {pid} is gone");
    }
}

// Processes outside the group are found as re-parented orphans on Linux (a child subreaper), by
// the mark they inherit on macOS.
#[test]
fn check_leaves_no_child_started_in_a_new_session() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_new_session_child.py");
    let (run, _) = check_json(&w, &file, &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    // This run's own stray, by pid: a suite running elsewhere on the machine has its own.
    let pid = w.read("stray.pid");
    let gone = !alive(pid.trim().parse().unwrap());
    assert!(gone, "a child outside the process group is gone too: {pid}");
}

#[test]
fn check_ends_and_leaves_no_daemon_that_holds_its_pipes() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_daemon.py");
    let pid_file = w.path(&format!("{file}.pid"));
    // Not a speed test: the daemon lives 60 s, so a command that waited for it would still run.
    let run = run_within(
        w.command(&["check", "--file", &file, "--format", "json"]),
        30,
        "check waited for the daemon",
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    let pid = std::fs::read_to_string(&pid_file).expect("the daemon wrote its pid");
    assert!(!alive(pid.trim().parse().unwrap()), "the daemon (pid {pid}) is gone");
}

// Linux only: only a child subreaper finds it, and macOS has none.
#[cfg(target_os = "linux")]
#[test]
fn check_leaves_no_daemon_even_one_that_execs_with_an_empty_environment() {
    // No environment variable of the workshop's reaches it: only the subreaper finds it.
    let w = Workshop::lesson5();
    let file = w.learner("bad_scrubbed_daemon.py");
    let run = w.run(&["check", "--file", &file, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let daemon = pid_in(&w.path(&format!("{file}.pid")));
    assert!(!alive(daemon), "the daemon {daemon} outlived the check");
}

#[test]
fn check_grades_files_named_like_standard_modules() {
    // A learner's traceback.py or os.py must neither replace the runner's modules nor expose it.
    let w = Workshop::lesson5();
    w.write(
        "learners/traceback.py",
        &std::fs::read_to_string(fixture("bug_retry_keyerror.py")).unwrap(),
    );
    w.write("learners/os.py", &std::fs::read_to_string(fixture("good_dataclass.py")).unwrap());
    let (run, report) = check_json(&w, "learners/traceback.py", &[]);
    assert_eq!(run.code, 1);
    assert_eq!(ids_with(&report, "fail"), ["no-retry-without-flag"]);
    assert_eq!(
        check(&report, "no-retry-without-flag")["message"],
        "raised KeyError: 'isRetryable' (learners/traceback.py, line 21: return error[\"isRetryable\"])"
    );
    let (run, _) = check_json(&w, "learners/os.py", &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

// No Python.

#[test]
fn check_without_the_interpreter_named_by_workshop_python() {
    let w = Workshop::lesson5();
    let file = w.learner("good_match.py");
    let mut cmd = w.command(&["check", "--file", &file, "--format", "json"]);
    cmd.env("WORKSHOP_PYTHON", "/nonexistent/bin/python3");
    let run = run(cmd);
    assert_eq!(run.code, 2);
    // An autograder still gets a report on stdout, with the reason in it.
    let report = run.json();
    assert_eq!(report["status"], "error");
    assert!(report["message"].as_str().unwrap().contains("there is no such program"), "{report}");
    assert!(
        report["checks"].as_array().unwrap().iter().all(|c| c["status"] == "error"),
        "{report}"
    );
    assert!(
        run.stderr
            .contains("/nonexistent/bin/python3 (from WORKSHOP_PYTHON): there is no such program"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("Install Python 3"), "{}", run.stderr);
}

#[test]
fn check_without_python3_on_path() {
    let w = Workshop::lesson5();
    let file = w.learner("good_match.py");
    let empty = tempdir();
    let mut cmd = w.command(&["check", "--file", &file]);
    cmd.env("PATH", empty.path()).env_remove("WORKSHOP_PYTHON");
    let run = run(cmd);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("python3 (looked up on PATH): there is no such program"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("WORKSHOP_PYTHON"), "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"));
}

#[test]
fn check_with_an_interpreter_that_is_not_python() {
    let w = Workshop::lesson5();
    let file = w.learner("good_match.py");
    let mut cmd = w.command(&["check", "--file", &file]);
    cmd.env("WORKSHOP_PYTHON", "false");
    let run = run(cmd);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains(
            "could not run Python 3 as false (from WORKSHOP_PYTHON): it exited with code 1"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn check_with_a_runner_of_another_version_of_the_wire_names_both_versions() {
    use std::os::unix::fs::PermissionsExt;
    let w = Workshop::lesson5();
    let file = w.learner("good_match.py");
    // Says hello as a runner would, in a version this workshop does not speak.
    let fake = w.root().join("other-python");
    std::fs::write(&fake, "#!/bin/sh\necho '{\"hello\": true, \"protocol\": 99, \"pid\": 1}'\n")
        .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut cmd = w.command(&["check", "--file", &file]);
    cmd.env("WORKSHOP_PYTHON", &fake);
    let run = run(cmd);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("its runner speaks version 99 of the workshop's protocol"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains(&format!("this workshop speaks version {}", 1)), "{}", run.stderr);
}

// Lessons and work files that are not there.

#[test]
fn check_of_an_unknown_lesson_lists_the_known_ones() {
    let w = Workshop::lesson5();
    let run = w.run(&["check", "no-such-lesson"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("there is no lesson 'no-such-lesson'"), "{}", run.stderr);
    assert!(run.stderr.contains("structured-errors"), "{}", run.stderr);
}

#[test]
fn check_refuses_a_lesson_id_with_a_path_in_it() {
    let w = Workshop::lesson5();
    for id in ["../structured-errors", "a/b", "..", "lessons/structured-errors"] {
        let run = w.run(&["check", id]);
        assert_eq!(run.code, 2, "{id}");
        assert!(run.stderr.contains("is not a lesson id"), "{id}: {}", run.stderr);
    }
}

#[test]
fn check_before_start_says_to_run_start() {
    let w = Workshop::lesson5();
    let run = w.run(&["check", "structured-errors"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("work/structured-errors/errors.py does not exist yet"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("run ./workshop start structured-errors first"), "{}", run.stderr);
}

// Only the runner's own answer to each request counts.

#[test]
fn check_grades_a_file_that_forks_without_exiting_on_its_parents_answers_only() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_forks_without_exit.py");
    let (run, report) = check_json(&w, &file, &[]);
    assert_eq!(report["passed"], 14, "{}", run.stdout);
    assert_eq!(run.code, 0);
}

#[test]
fn check_reports_a_line_forged_on_the_answer_channel_at_import_as_a_load_error() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_forges_answers.py");
    w.write(&format!("{file}.forge"), "import");
    let run = w.run(&["check", "--file", &file, "--format", "json"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let report = run.json();
    assert_eq!(report["status"], "error");
    let message = report["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("{file}: a line that is not the workshop runner's answer")),
        "{message}"
    );
    assert!(message.contains("while it loaded"), "{message}");
}

/// `check --format json` of the forging fixture in one of its modes: the report, which must be
/// an error naming the file, and its message.
fn forged(mode: &str, timeout: &str) -> (serde_json::Value, String) {
    let w = Workshop::lesson5();
    let file = w.learner("bad_forges_answers.py");
    w.write(&format!("{file}.forge"), mode);
    let run = w.run(&["check", "--file", &file, "--format", "json", "--timeout", timeout]);
    assert_eq!(run.code, 2, "{mode}: {}", run.stdout);
    let report = run.json();
    assert_eq!(report["status"], "error", "{mode}: {report}");
    let message = report["message"].as_str().unwrap().to_string();
    assert!(
        message
            .starts_with(&format!("{file}: a line that is not the workshop runner's answer came")),
        "{message}"
    );
    assert!(
        message.ends_with("nothing from that Python process is trusted, so this is no grade."),
        "{message}"
    );
    for check in report["checks"].as_array().unwrap() {
        assert_eq!(check["status"], "error", "{mode}: {check}");
        assert_eq!(
            check["message"],
            "not graded: an answer did not come from the workshop's runner"
        );
    }
    (report, message)
}

#[test]
fn check_grades_nothing_of_a_file_that_forges_a_line_on_the_answer_channel_in_a_call() {
    let (_, message) = forged("call", "1");
    assert!(message.contains("during the call to fail ({\"id\": 99"), "{message}");
}

#[test]
fn check_grades_nothing_of_a_file_that_forges_the_answer_to_its_own_call() {
    // The forged answer passes fail-flags-failure. The runner's own (the starter's bare error)
    // came after it, and is what the next call found in place of its answer.
    let (_, message) = forged("same-id", "1");
    assert!(
        message
            .contains("during the call to fail ({\"ok\":true,\"value\":{\"error\":{\"message\":\"Error\"}},\"id\":1,"),
        "{message}"
    );
}

#[test]
fn check_grades_nothing_of_a_file_that_forges_an_answer_and_never_returns() {
    let (_, message) = forged("same-id-then-loop", HANG_TIMEOUT);
    assert!(
        message.contains("came before the call to fail (an answer to the call before it, which was still running)"),
        "{message}"
    );
}

#[test]
fn check_grades_nothing_of_a_file_that_forges_the_answer_to_the_last_call() {
    // Nothing is called after it: the runner's own answer, behind the forged one, is found
    // when the runner is asked, once the checks are done, to answer at once.
    let (_, message) = forged("last", "1");
    assert!(
        message.contains("came after the last call ({\"ok\":true,\"value\":{\"orders\":[]"),
        "{message}"
    );
}

// Big values and floods of output stay small.

fn check_huge(w: &Workshop, size: usize, format: &str) -> Run {
    let file = w.learner("bad_returns_huge.py");
    w.write(&format!("{file}.size"), &size.to_string());
    w.run(&["check", "--file", &file, "--format", format, "--timeout", "20"])
}

#[test]
fn check_reports_a_value_over_8_mib_as_too_big_with_its_size() {
    let w = Workshop::lesson5();
    let run = check_huge(&w, 10_000_000, "json");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = run.json();
    let message = check(&report, "fail-flags-failure")["message"].as_str().unwrap().to_string();
    assert_eq!(
        message,
        "returned a value of 9.5 MiB as JSON, more than the 8 MiB a call may return: return something smaller"
    );
}

#[test]
fn check_grades_a_value_of_exactly_8_mib_as_the_value_it_is() {
    // {"isError": "x..."} is 15 bytes more than its string: exactly the limit as JSON, so its
    // answer line (the value in the runner's envelope) is a little over it. However the pipe
    // cuts it (at most 64 KiB a read), some read ends in the last 64 KiB before its end: the
    // line is taken whole there, not as one too long to be the runner's.
    let w = Workshop::lesson5();
    let size = 8 * 1024 * 1024 - 15;
    let run = check_huge(&w, size, "json");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = run.json();
    let failed = check(&report, "fail-flags-failure");
    let message = failed["message"].as_str().unwrap();
    assert!(message.starts_with("isError: expected True, got 'xxx"), "{message}");
    let got = failed["got"]["isError"].as_str().unwrap();
    assert!(
        got.starts_with("xxx") && got.ends_with(" more characters]"),
        "{}",
        &got[got.len() - 60..]
    );
}

#[test]
fn check_shortens_a_2_mb_wrong_value_in_its_reports() {
    let w = Workshop::lesson5();
    let run = check_huge(&w, 2_000_000, "json");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.len() < 1_000_000, "the JSON report is {} bytes", run.stdout.len());
    let report = run.json();
    let failed = check(&report, "fail-flags-failure");
    let got = failed["got"]["isError"].as_str().unwrap();
    assert!(got.ends_with(" more characters]"), "{}", &got[got.len() - 60..]);
    assert!(failed["message"].as_str().unwrap().contains("more characters]"));
    let text = check_huge(&w, 2_000_000, "text");
    assert_eq!(text.code, 1);
    assert!(text.stdout.len() < 100_000, "the text report is {} bytes", text.stdout.len());
    assert!(text.stdout.contains("more characters]"), "{}", text.stdout);
}

#[test]
fn check_reports_a_value_nested_too_deep_for_json_as_the_learners() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_nests_deeply.py");
    let (run, report) = check_json(&w, &file, &[]);
    assert_eq!(run.code, 1);
    let message = check(&report, "fail-flags-failure")["message"].as_str().unwrap().to_string();
    assert_eq!(
        message,
        "returned a value that is not JSON: result nests lists and dicts more than 100 levels deep (or contains itself), too deep to carry"
    );
}

/// A file-size limit on the workshop and everything it starts: a capture that went to a file
/// would hit it.
#[cfg(target_os = "linux")]
fn with_file_size_limit(cmd: &mut std::process::Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit(2) in the forked child before exec, with a valid struct.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

// Kept to Linux, where it was written and run: file-size limits are POSIX, but how a cut write
// reads on macOS has not been tried.
#[cfg(target_os = "linux")]
#[test]
fn check_caps_output_written_to_fd_1_by_python_and_by_a_child_process_where_it_is_written() {
    let w = Workshop::lesson5();
    let file = w.learner("bad_floods_fd1.py");
    let mut cmd = w.command(&["check", "--file", &file, "--format", "json", "--timeout", "30"]);
    with_file_size_limit(&mut cmd, 4 << 20);
    let first = run(cmd);
    assert_eq!(first.code, 0, "{}\n{}", first.stdout, first.stderr);
    assert_eq!(first.json()["passed"], 14);
    // The first check passed, so its output is not in the report; grade once more, failing.
    let w = Workshop::lesson5();
    let text = std::fs::read_to_string(fixture("bad_floods_fd1.py"))
        .unwrap()
        .replace("\"isError\": True", "\"isError\": 1");
    w.write("learners/flood.py", &text);
    let mut cmd =
        w.command(&["check", "--file", "learners/flood.py", "--format", "json", "--timeout", "30"]);
    with_file_size_limit(&mut cmd, 4 << 20);
    let run = run(cmd);
    let report = run.json();
    let output = check(&report, "fail-flags-failure")["output"].as_str().unwrap().to_string();
    assert!(output.starts_with("flood flood"), "{output:.100}");
    assert!(output.len() < 10_000, "{} bytes kept", output.len());
    let more: u64 = output.rsplit("… ").next().unwrap().split(' ').next().unwrap().parse().unwrap();
    assert_eq!(more, 40 * 600_000 + 16_000_000 - 8 * 1024, "{output:.100}");
}

#[test]
fn timeouts_below_10_ms_are_refused_by_check_watch_and_record() {
    let w = Workshop::lesson5();
    let file = w.learner("good_match.py");
    let commands: [&[&str]; 4] = [
        &["check", "--file", &file],
        &["check", "--watch", "--file", &file],
        &["watch", "structured-errors", "--ticket", "old-order", "--no-anim"],
        &["record", "structured-errors"],
    ];
    for args in commands {
        for bad in ["0.001", "0.0099"] {
            let mut all = args.to_vec();
            all.extend(["--timeout", bad]);
            let run = w.run(&all);
            assert_eq!(run.code, 2, "{all:?}: {}", run.stdout);
            let wanted =
                format!("{bad} s is out of range: give at least 0.01 (10 ms) and at most 600");
            assert!(run.stderr.contains(&wanted), "{all:?}: {}", run.stderr);
        }
    }
}

/// Every file below `dir`, for a test that looks for what a command left behind.
#[cfg(target_os = "linux")]
fn files_under(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    found
}

// Kept to Linux, where it was written and run: file-size limits are POSIX, but how a cut write
// reads on macOS has not been tried.
#[cfg(target_os = "linux")]
#[test]
fn under_a_file_size_limit_of_zero_commands_end_with_a_message_not_by_sigxfsz() {
    let w = Workshop::lesson5();
    let mut cmd = w.command(&["start", "structured-errors"]);
    with_file_size_limit(&mut cmd, 0);
    let start = run(cmd);
    assert_eq!(start.code, 2, "exit 153 is death by SIGXFSZ: {}", start.stderr);
    assert!(
        start.stderr.starts_with("error: could not write work/structured-errors/errors.py: File too large (os error 27). A file-size limit is in force (ulimit -f): raise it (ulimit -f unlimited) and try again"),
        "{}",
        start.stderr
    );
    let left = files_under(&w.path("work"));
    assert!(left.iter().all(|name| name == ".gitkeep"), "start left {left:?}");

    // Started without the limit, a first check under it may find the world's host not yet
    // written to the cache folder (`start` may have written it, in the background): then it
    // cannot write it (on disk or in memory) and ends with exit 2 and the same next step.
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let mut cmd = w.command(&["check", "--format", "json"]);
    with_file_size_limit(&mut cmd, 0);
    let first = run(cmd);
    assert!(first.code == 1 || first.code == 2, "{}", first.stderr);
    // Either way the same next step: the host could not be written, or the progress was not.
    assert!(
        first.stderr.contains("File too large (os error 27). A file-size limit is in force"),
        "{}",
        first.stderr
    );
    // Once a check without the limit has written it, a check under the limit grades and says
    // its progress was not saved.
    assert_eq!(w.run(&["check", "--format", "json"]).code, 1);
    let before = w.read("work/.progress.json");
    let mut cmd = w.command(&["check", "--format", "json"]);
    with_file_size_limit(&mut cmd, 0);
    let check = run(cmd);
    assert_eq!(check.code, 1, "{}", check.stderr);
    assert_eq!(check.json()["passed"], 2);
    assert!(
        check
            .stderr
            .contains("warning: progress was not saved (File too large (os error 27). A file-size limit is in force"),
        "{}",
        check.stderr
    );
    assert_eq!(w.read("work/.progress.json"), before);
    let left = files_under(&w.path("work"));
    assert!(!left.iter().any(|name| name.contains("tmp")), "check left {left:?}");
}
