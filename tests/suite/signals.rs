//! Quitting on a signal: no learner process outlives the workshop, and the exit status is the
//! conventional 128 + the signal's number. On macOS too: there the lifeline is there before the
//! first Python, and what leaves the group is found by its mark.

use crate::common::*;

use std::process::{Child, Stdio};

/// Start a command on the looping fixture (`FILE` in `args`) and wait until its call loops: the
/// pids it started.
fn start_looping(w: &Workshop, args: &[&str]) -> (Child, Vec<u32>) {
    let file = w.learner("bad_loop_with_children.py");
    let pid_file = w.path(&format!("{file}.pids"));
    let mut cmd = w.command(
        &args.iter().map(|a| if *a == "FILE" { file.as_str() } else { a }).collect::<Vec<_>>(),
    );
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    eventually("the learner's call to loop", || pid_file.exists());
    let pids = std::fs::read_to_string(&pid_file)
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    (child, pids)
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on our own child, not yet reaped.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
}

fn exit_code_after(mut child: Child) -> Option<i32> {
    let mut status = None;
    eventually("the workshop to exit", || {
        status = child.try_wait().unwrap();
        status.is_some()
    });
    status.unwrap().code()
}

fn assert_signal_ends_everything(args: &[&str], sig: i32) {
    let w = Workshop::lesson5();
    let (child, pids) = start_looping(&w, args);
    assert!(pids.iter().all(|p| alive(*p)), "{pids:?}");
    signal(&child, sig);
    assert_eq!(exit_code_after(child), Some(128 + sig), "{args:?}");
    for pid in pids {
        eventually(&format!("process {pid} to end"), || !alive(pid));
    }
}

#[test]
fn sigterm_during_check_kills_the_learners_processes_and_exits_143() {
    assert_signal_ends_everything(&["check", "--file", "FILE", "--timeout", "60"], libc::SIGTERM);
}

#[test]
fn sigint_during_check_kills_the_learners_processes_and_exits_130() {
    assert_signal_ends_everything(
        &["check", "--file", "FILE", "--timeout", "60", "--format", "json"],
        libc::SIGINT,
    );
}

#[test]
fn sighup_during_check_watch_kills_the_learners_processes_and_exits_129() {
    assert_signal_ends_everything(
        &["check", "--watch", "--file", "FILE", "--timeout", "60"],
        libc::SIGHUP,
    );
}

#[test]
fn sigterm_during_watch_kills_the_learners_processes() {
    assert_signal_ends_everything(
        &["watch", "structured-errors", "--code", "FILE", "--no-anim", "--timeout", "60"],
        libc::SIGTERM,
    );
}

#[test]
fn sigkill_of_the_workshop_takes_the_looping_python_with_it() {
    let w = Workshop::lesson5();
    let (child, pids) = start_looping(&w, &["check", "--file", "FILE", "--timeout", "60"]);
    // On Linux the lifeline is forked a moment after the first Python: wait for it, by its name
    // (elsewhere it is forked before the first Python starts).
    #[cfg(target_os = "linux")]
    let lifeline = || {
        let children = std::fs::read_dir(format!("/proc/{}/task", child.id()))
            .unwrap()
            .flatten()
            .flat_map(|task| {
                let list =
                    std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
                list.split_whitespace().map(String::from).collect::<Vec<_>>()
            });
        children.into_iter().any(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| c.trim() == "workshop-life")
        })
    };
    #[cfg(target_os = "linux")]
    eventually("the workshop's lifeline to start", lifeline);
    signal(&child, libc::SIGKILL);
    assert_eq!(exit_code_after(child), None);
    let worker = pids[0];
    eventually("the looping Python to die with its parent", || !alive(worker));
    // Its lifeline kills the worker's whole group: the child it started there dies too.
    let child_in_group = pids[1];
    eventually("the learner's child in the worker's group to die", || !alive(child_in_group));
    // One in a new session left the group: not ours to guarantee after a SIGKILL; tidy up.
    for pid in &pids[1..] {
        // SAFETY: kill(2) with a pid the fixture reported; at worst a no-op.
        unsafe {
            libc::kill(*pid as i32, libc::SIGKILL);
        }
    }
}

#[test]
fn a_signal_kills_the_workers_whole_group_even_a_member_the_workshop_never_started() {
    use std::os::unix::process::CommandExt;
    let w = Workshop::lesson5();
    let (child, pids) = start_looping(&w, &["check", "--file", "FILE", "--timeout", "60"]);
    // A process that joins the worker's group from outside the workshop's tree: no sweep of the
    // workshop's children finds it, only a kill of the whole group reaches it.
    let mut joined = std::process::Command::new("sleep")
        .arg("327")
        .process_group(pids[0] as i32)
        .spawn()
        .unwrap();
    signal(&child, libc::SIGTERM);
    assert_eq!(exit_code_after(child), Some(128 + libc::SIGTERM));
    eventually("the member of the worker's group to die", || !alive(joined.id()));
    let _ = joined.wait();
}
