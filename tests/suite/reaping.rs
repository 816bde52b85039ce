//! When the workshop ends what the learner's code started: a stray at the deadline of the call
//! that started it (not only when the command ends), with or without bubblewrap; and, when the
//! workshop is killed outright, the groups of Pythons started after the first one was ended. (A stray's whole group, and the sweep where the kernel
//! lists no children, are tested in `bridge::reap` itself: neither can be set up from outside.)
// Linux only: the fixtures tell a stray's state and find strays by their mark through /proc.
#![cfg(target_os = "linux")]

use crate::common::*;
use crate::grade::{command, graded, lines};

use std::process::Stdio;

/// A lesson-5 file whose `fail` starts a child in a new session (its pid appended to `strays`)
/// and then loops; `should_retry` first raises if a child of an earlier call still runs, so a
/// report shows whether each was ended before the next process of the file was called.
fn stray_maker(strays: &std::path::Path) -> String {
    format!(
        r#"import subprocess

from kit.api import Json

STRAYS = {strays:?}


def _running(pid):
    try:
        with open(f"/proc/{{pid}}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def fail(category: str, message: str) -> Json:
    child = subprocess.Popen(["sleep", "331"], start_new_session=True)
    with open(STRAYS, "a") as out:
        out.write(f"{{child.pid}}\n")
    # Memory written to, so that ending this process takes the kernel a while: a sweep that
    # did not wait for it to be gone would look for its child before the child was ours.
    held = bytearray(b"x") * (192 << 20)
    while held:
        pass


def should_retry(error: Json) -> bool:
    try:
        with open(STRAYS) as listed:
            pids = listed.read().split()
    except OSError:
        pids = []
    running = [pid for pid in pids if _running(pid)]
    if running:
        raise RuntimeError("still running: " + " ".join(running))
    return error.get("isRetryable") is True
"#,
        strays = strays.to_str().unwrap()
    )
}

fn strays_in(path: &std::path::Path) -> Vec<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect()
}

#[test]
fn a_child_in_a_new_session_ends_at_its_calls_deadline_not_with_the_command() {
    let w = Workshop::lesson5();
    let strays = w.path("strays");
    w.write("maker.py", &stray_maker(&strays));
    // A whole second (not HANG_TIMEOUT): time for the maker to write all its memory first.
    let run = w.run(&["check", "--file", "maker.py", "--timeout", "1", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = run.json();
    assert_eq!(strays_in(&strays).len(), 2, "fail hung twice, each time with a child: {report}");
    // Called in a fresh process after both hangs: neither child was running any more.
    let retry = check(&report, "retry-transient");
    assert_eq!(retry["status"], "pass", "{retry}");
}

#[test]
fn without_bubblewrap_a_files_new_session_child_ends_before_the_next_file_is_graded() {
    let w = Workshop::lesson5();
    let strays = w.path("strays");
    let maker = stray_maker(&strays);
    w.write("class/a/errors.py", &maker).write("class/b/errors.py", &maker);
    if crate::sandbox::is_root() {
        // As root, grade runs each file as nobody, who must reach the file the strays are noted in.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(w.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(&strays, "").unwrap();
        std::fs::set_permissions(&strays, std::fs::Permissions::from_mode(0o666)).unwrap();
    }
    let run = graded(command(
        &w,
        // A whole second, as above.
        &["grade", "class", "--jobs", "1", "--sandbox", "none", "--timeout", "1"],
    ));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("sandbox:"), "{}", run.stderr);
    let reports = lines(&run.stdout);
    assert_eq!(strays_in(&strays).len(), 4, "each file's fail hung twice, each time with a child");
    for report in &reports {
        let retry = check(report, "retry-transient");
        assert_eq!(retry["status"], "pass", "{}: {retry}", report["file"]);
    }
}

#[test]
fn a_workshop_killed_outright_takes_the_group_of_a_python_started_after_the_first_was_ended() {
    // The first Python hangs with a child in its group and is ended at its deadline, with a
    // sweep for strays; the second (the next call) starts a child in its group and loops.
    let w = Workshop::lesson5();
    let first = w.path("first");
    let second = w.path("second.pid");
    let code = format!(
        "import os, subprocess\n\nfrom kit.api import Json\n\n\ndef fail(category: str, message: str) -> Json:\n    child = subprocess.Popen([\"sleep\", \"333\"])\n    if os.path.exists({first:?}):\n        with open({second:?} + '.tmp', 'w') as out:\n            out.write(str(child.pid))\n        os.rename({second:?} + '.tmp', {second:?})\n    else:\n        open({first:?}, 'w').close()\n    while True:\n        pass\n\n\ndef should_retry(error: Json) -> bool:\n    return False\n",
        first = first.to_str().unwrap(),
        second = second.to_str().unwrap()
    );
    w.write("twice.py", &code);
    // The deadline ends the first call; the second is killed with the workshop long before its own.
    let mut cmd = w.command(&["check", "--file", "twice.py", "--timeout", "1"]);
    let mut workshop = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let in_group = pid_in(&second);
    // SAFETY: kill(2) on our own child, not yet reaped.
    unsafe {
        libc::kill(workshop.id() as i32, libc::SIGKILL);
    }
    let _ = workshop.wait();
    let mut ended = true;
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while alive(in_group) {
        if std::time::Instant::now() > until {
            ended = false;
            // SAFETY: kill(2) with the pid the fixture wrote; tidying up.
            unsafe {
                libc::kill(in_group as i32, libc::SIGKILL);
            }
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(ended, "the second Python's child {in_group} outlived the workshop killed outright");
}

/// The processes still running (not zombies) whose environment holds `entry` (a test's own
/// `HOME=...`, which every process a command starts is given).
fn running_with(entry: &str) -> Vec<u32> {
    let Ok(procs) = std::fs::read_dir("/proc") else { return Vec::new() };
    procs
        .flatten()
        .filter_map(|p| p.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|e| e == entry.as_bytes()))
        })
        .filter(|pid| alive(*pid))
        .collect()
}

/// `check` starts two Pythons before it reads the lesson (the learner's and the world's), `watch`
/// its world's as soon as the lesson is read, and a shim is asked first which interpreter it
/// runs. A command that fails before it uses them (a ticket or a file that is not there) ends
/// every one: nothing with the test's home in its environment is left running when the command
/// returns. The shim here takes its time, so the command ends while it is being asked.
#[test]
fn nothing_a_command_started_ahead_outlives_it() {
    let w = Workshop::lesson5();
    let shim = w.path("python-shim");
    std::fs::write(&shim, format!("#!/bin/sh\nsleep 0.3\nexec '{}' \"$@\"\n", python())).unwrap();
    std::fs::set_permissions(&shim, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let home = format!("HOME={}", w.home().display());
    let commands: [&[&str]; 2] = [
        &["watch", "structured-errors", "--ticket", "no-such-ticket", "--no-anim"],
        &["check", "structured-errors", "--file", "no-such-file.py"],
    ];
    for interpreter in [std::path::Path::new(python()), shim.as_path()] {
        for args in commands {
            let mut cmd = w.command(args);
            cmd.env("WORKSHOP_PYTHON", interpreter);
            let run = crate::common::run(cmd);
            assert_eq!(run.code, 2, "{args:?}\n{}", run.stderr);
            assert!(run.stderr.contains("error: "), "{args:?}\n{}", run.stderr);
            let left = running_with(&home);
            assert!(
                left.is_empty(),
                "{args:?} with {interpreter:?}: {left:?} outlived the command"
            );
        }
    }
}
