//! A closed or full standard output: a reader who went away (`| head -1`) ends a command quietly
//! with status 0; a full disk is an error with status 2. Never a panic.

use crate::common::*;

use std::process::Stdio;

/// A pipe whose reading end is already closed: every write to it fails with a broken pipe, so
/// the test does not depend on when a real `head` would have exited.
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    Stdio::from(writer)
}

fn dev_full() -> Stdio {
    Stdio::from(
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full exists on Linux"),
    )
}

/// A run whose stdout went to `out`: only its stderr and status can be seen.
fn run_into(ws: &Workshop, args: &[&str], out: Stdio) -> (String, i32) {
    let mut cmd = ws.command(args);
    cmd.stdout(out).stderr(Stdio::piped());
    let done = cmd.output().expect("the workshop binary runs");
    (String::from_utf8_lossy(&done.stderr).into_owned(), done.status.code().unwrap_or(-1))
}

fn started() -> Workshop {
    let ws = Workshop::new();
    ws.work_file_from("good_match.py");
    ws
}

/// Every command that prints, with a closed pipe for its stdout.
const PRINTING: &[&[&str]] = &[
    &["watch", "--no-anim"],
    &["watch", "--no-anim", "--ticket", "old-order"],
    &["watch", "--format", "json"],
    &["doctor"],
    &["check"],
    &["check", "--format", "json"],
    &["completions", "fish"],
    &["completions", "bash"],
    &["list"],
    &["lesson", "--no-pager"],
    &["quiz", "--format", "json"],
    &["hint"],
    &["solution", "--reveal"],
    &["start", "structured-errors"],
];

#[test]
fn a_closed_pipe_ends_every_command_quietly_with_status_0() {
    for args in PRINTING {
        let ws = started();
        if args[0] == "start" {
            std::fs::remove_file(ws.path("work/structured-errors/errors.py")).unwrap();
        }
        let (stderr, code) = run_into(&ws, args, closed_pipe());
        assert!(!stderr.contains("panicked"), "{args:?} panicked:\n{stderr}");
        assert_eq!(code, 0, "{args:?} exit {code}:\n{stderr}");
        assert!(
            !stderr.contains("could not write"),
            "{args:?} reported a closed pipe as an error:\n{stderr}"
        );
    }
}

#[test]
fn a_check_whose_reader_left_still_saves_the_grade() {
    let ws = started();
    let (stderr, code) = run_into(&ws, &["check"], closed_pipe());
    assert_eq!(code, 0, "{stderr}");
    let progress = ws.read("work/.progress.json");
    assert!(progress.contains("\"passed\""), "{progress}");
}

#[test]
fn a_full_disk_is_reported_with_status_2() {
    for args in [
        &["check"][..],
        &["check", "--format", "json"],
        &["doctor"],
        &["watch", "--no-anim"],
        &["completions", "fish"],
    ] {
        let ws = started();
        let (stderr, code) = run_into(&ws, args, dev_full());
        assert!(!stderr.contains("panicked"), "{args:?} panicked:\n{stderr}");
        assert_eq!(code, 2, "{args:?} exit {code}:\n{stderr}");
        assert!(stderr.contains("error: could not write the output: "), "{args:?}:\n{stderr}");
        assert!(stderr.contains("No space left on device"), "{args:?}:\n{stderr}");
    }
}

#[test]
fn a_real_head_sees_the_first_line_and_the_command_succeeds() {
    // A course of its own, so its first lesson (doctor's first line) is known.
    let ws = Workshop::foundations();
    ws.work_file_from("good_match.py");
    let script = format!("set -o pipefail; '{BIN}' doctor | head -1");
    let mut cmd = std::process::Command::new("bash");
    ws.at_home(&mut cmd).args(["-c", &script]).current_dir(ws.root()).stdin(Stdio::null());
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "structured-errors\n");
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}
