//! The lesson's world is out of every submission's reach, and what a file's run does to it is
//! that file's fault alone (issue 43, items 1, 2, 5 and 8): real ptrace, real writes through
//! /proc, a real SIGSTOP and a real name of 8 MiB, run as an ordinary user where that is what
//! makes the attack possible.

use crate::common::*;
use crate::grade::{command, grade_temp, graded, lines};
use crate::sandbox::{bounded, needs_bwrap};
#[cfg(target_os = "linux")]
use crate::sandbox::{grader, Class};

/// That the reaching attack found the world (and any classmate's Python started beside it) and
/// reached none of them, from what it printed.
#[cfg(target_os = "linux")]
fn held(printed: &str) {
    let counts: Vec<u32> =
        printed.trim().split([':', ';']).filter_map(|part| part.trim().parse().ok()).collect();
    assert_eq!(counts.len(), 3, "{printed}");
    assert!(counts[0] >= 1, "the attack found the world: {printed}");
    assert_eq!(counts[1..], [0, 0], "nothing traced, nothing written: {printed}");
}

// Linux only: the world is kept from its user's tracing by PR_SET_DUMPABLE, Linux's (see
// docs/operators.md), and the attack finds it through /proc.
#[cfg(target_os = "linux")]
#[test]
fn a_file_checked_as_an_ordinary_user_can_neither_trace_the_world_nor_write_into_it() {
    let Some(grader) = grader() else { return };
    let class = Class::new();
    class.attack("a", "reaches_the_world.py", 0);
    let run = class.grade(
        &grader,
        &["check", "structured-errors", "--file", "class/a/errors.py", "--format", "json"],
        &[],
        None,
    );
    let report = run.json();
    held(report["output"].as_str().unwrap());
    // Graded on its own code: the one bug of the attack's learner code fails, nothing forged.
    assert_eq!(report["status"], "fail", "{report}");
    assert_eq!(run.code, 1, "{}", run.stderr);
}

// Linux only: as above.
#[cfg(target_os = "linux")]
#[test]
fn a_file_graded_without_a_sandbox_as_the_worlds_user_cannot_reach_the_world() {
    let Some(grader) = grader() else { return };
    let class = Class::new();
    class.attack("a_reaches", "reaches_the_world.py", 0);
    class.classmate("b_classmate");
    class.classmate("c_classmate");
    let run = class.grade(
        &grader,
        &["grade", "structured-errors", "class", "--sandbox", "none"],
        &[],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("world"), "nothing blames the world: {}", run.stderr);
    let reports = lines(&run.stdout);
    held(reports[0]["output"].as_str().unwrap());
    assert_eq!(reports[0]["status"], "fail", "{}", reports[0]);
    for report in &reports[1..] {
        assert_eq!(report["status"], "pass", "{report}");
    }
}

// Linux only: the attack finds the world through /proc. Graded one at a time and side by side:
// side by side, a classmate's run may be the one that finds the world stopped, and is not blamed.
#[cfg(target_os = "linux")]
#[test]
fn a_file_that_stops_the_world_is_that_files_error_and_the_next_save_is_graded_afresh() {
    let Some(grader) = grader() else { return };
    each_at_once(&["1", "2"], |&jobs| {
        let class = Class::new();
        class.attack("a_stops", "stops_the_world.py", 0);
        class.classmate("b_classmate");
        class.classmate("c_classmate");
        let args = ["grade", "structured-errors", "class", "--sandbox", "none", "--jobs", jobs];
        let run = class.grade(&grader, &args, &[], None);
        assert_eq!(run.code, 0, "grade exits as usual: {}", run.stderr);
        assert!(!run.stderr.contains("fix the world"), "{}", run.stderr);
        let reports = lines(&run.stdout);
        assert_eq!(reports[0]["status"], "error", "--jobs {jobs}: {}", reports[0]);
        let message = reports[0]["message"].as_str().unwrap();
        assert!(
            message.contains("class/a_stops/errors.py: its run upset the lesson's world"),
            "{message}"
        );
        assert!(
            message.contains("stopped by a signal (SIGSTOP) from outside, so it could not answer"),
            "{message}"
        );
        assert!(message.contains("the file's doing, not the world's"), "{message}");
        assert!(!message.contains("fix the world file"), "{message}");
        for report in &reports[1..] {
            assert_eq!(report["status"], "pass", "--jobs {jobs}, a classmate: {report}");
        }
    });
}

/// A class of the uncertain-state lesson: the file naming a read of 8 MiB first, then two copies
/// of the reference solution.
fn huge_name_class() -> (Workshop, tempfile::TempDir) {
    let w = Workshop::only("uncertain-state");
    let solution =
        std::fs::read_to_string(repo().join("lessons/uncertain-state/solution/refunds.py"))
            .unwrap();
    w.write("class/a_huge/refunds.py", &std::fs::read_to_string(fixture("huge_read.py")).unwrap());
    w.write("class/b_solution/refunds.py", &solution);
    w.write("class/c_solution/refunds.py", &solution);
    (w, grade_temp())
}

fn assert_only_the_huge_name_is_blamed(run: &Run) {
    assert_eq!(run.code, 0, "grade exits as usual: {}", run.stderr);
    assert!(!run.stderr.contains("fix the world"), "{}", run.stderr);
    let reports = lines(&run.stdout);
    assert_eq!(reports.len(), 3, "{}", run.stdout);
    assert_eq!(reports[0]["status"], "error", "{}", reports[0]);
    let message = reports[0]["message"].as_str().unwrap();
    assert!(
        message.contains("class/a_huge/refunds.py: its run upset the lesson's world"),
        "{message}"
    );
    assert!(message.contains("more than the 8 MiB one answer may carry"), "{message}");
    for report in &reports[1..] {
        assert_eq!(report["status"], "pass", "a classmate keeps its grade: {report}");
    }
}

#[test]
fn a_name_of_8_mib_is_that_files_error_and_its_classmates_are_graded_as_if_alone() {
    if !needs_bwrap() {
        return;
    }
    each_at_once(&["1", "2"], |&jobs| {
        let (w, tmp) = huge_name_class();
        let mut cmd = command(
            &w,
            &["grade", "uncertain-state", "class", "--sandbox", "bwrap", "--jobs", jobs],
        );
        cmd.env("TMPDIR", tmp.path());
        assert_only_the_huge_name_is_blamed(&graded(cmd));
    });
}

#[test]
fn check_of_a_name_of_8_mib_blames_the_file_not_the_world() {
    let (w, _tmp) = huge_name_class();
    let mut cmd = w.command(&["check", "uncertain-state", "--file", "class/a_huge/refunds.py"]);
    cmd.stdin(std::process::Stdio::null());
    let run = bounded(cmd, None);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    let said = format!("{}{}", run.stdout, run.stderr.text());
    assert!(said.contains("its run upset the lesson's world"), "{said}");
    assert!(!said.contains("fix the world file"), "{said}");
    // The world serves the next file as if nothing had happened.
    let next = w.run(&["check", "uncertain-state", "--file", "class/b_solution/refunds.py"]);
    assert_eq!(next.code, 0, "{}\n{}", next.stdout, next.stderr);
}
