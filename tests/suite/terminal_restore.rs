//! A signal to the player or to `check --watch` leaves the terminal as `q` does: no alternate
//! screen, the cursor shown, and the line discipline cooked (echo and canonical input back on).
//! Run for real in a tmux pane, under `sh -c`, which restores nothing itself.
// Linux only: a process's children are read from /proc to find the workshop's Python.
#![cfg(target_os = "linux")]

use crate::common::*;

use std::process::Command;

struct Tmux {
    socket: std::path::PathBuf,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-S").arg(&self.socket).arg("kill-server").output();
    }
}

fn tmux_missing() -> bool {
    Command::new("tmux").arg("-V").output().map(|o| !o.status.success()).unwrap_or(true)
}

/// The children of a process.
fn children(pid: &str) -> Vec<i32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// Run the workshop with `args` in a tmux pane until `ready` holds of the pane, send it `signal`,
/// and return `stty -a` as the shell saw it afterwards, and tmux's `alternate_on cursor_flag`.
fn signalled_in_tmux(
    w: &Workshop,
    args: &str,
    ready: impl Fn(&Tmux) -> bool,
    signal: i32,
) -> (String, String) {
    let tmux = Tmux { socket: w.path("tmux.sock") };
    let stty = w.path("stty.txt");
    let script = format!("'{BIN}' {args}; stty -a > '{}'; sleep 600", stty.display());
    let root = w.root().to_str().unwrap();
    let shell = format!("sh -c \"{}\"", script.replace('"', "\\\""));
    tmux.cmd(&[
        "new-session",
        "-d",
        "-x",
        "100",
        "-y",
        "30",
        "-c",
        root,
        "-e",
        "TERM=xterm-256color",
        &shell,
    ]);
    eventually("the workshop to take the terminal", || ready(&tmux));
    let shell_pid = tmux.cmd(&["display", "-p", "#{pane_pid}"]);
    let workshop = children(&shell_pid);
    assert_eq!(workshop.len(), 1, "one workshop under the shell: {workshop:?}");
    // SAFETY: kill(2) on the workshop process found above.
    unsafe {
        libc::kill(workshop[0], signal);
    }
    eventually("the shell to run stty after the workshop", || {
        stty.exists() && !w.read("stty.txt").is_empty()
    });
    let pane = tmux.cmd(&["display", "-p", "#{alternate_on} #{cursor_flag}"]);
    (w.read("stty.txt"), pane)
}

fn assert_cooked(stty: &str) {
    let flags: Vec<&str> = stty.split_whitespace().collect();
    for flag in ["icanon", "echo", "isig"] {
        assert!(flags.contains(&flag), "{flag} is on again:\n{stty}");
    }
}

fn check_watch_ready(tmux: &Tmux) -> bool {
    tmux.cmd(&["capture-pane", "-p"]).contains("Watching")
}

#[test]
fn sigterm_to_check_watch_leaves_the_terminal_cooked() {
    if tmux_missing() {
        eprintln!("tmux is not installed: skipped");
        return;
    }
    let w = Workshop::lesson5();
    let file = w.learner("good_helpers.py");
    let (stty, pane) = signalled_in_tmux(
        &w,
        &format!("check --watch --file {file}"),
        check_watch_ready,
        libc::SIGTERM,
    );
    assert_cooked(&stty);
    assert_eq!(pane, "0 1", "alternate screen off, cursor shown");
}

#[test]
fn sigint_to_check_watch_leaves_the_terminal_cooked() {
    if tmux_missing() {
        eprintln!("tmux is not installed: skipped");
        return;
    }
    let w = Workshop::lesson5();
    let file = w.learner("good_helpers.py");
    let (stty, pane) = signalled_in_tmux(
        &w,
        &format!("check --watch --file {file}"),
        check_watch_ready,
        libc::SIGINT,
    );
    assert_cooked(&stty);
    assert_eq!(pane, "0 1");
}

#[test]
fn sigterm_to_the_player_leaves_no_alternate_screen_and_the_cursor_shown() {
    if tmux_missing() {
        eprintln!("tmux is not installed: skipped");
        return;
    }
    let w = Workshop::lesson5();
    let ready = |t: &Tmux| t.cmd(&["display", "-p", "#{alternate_on}"]) == "1";
    let (stty, pane) =
        signalled_in_tmux(&w, "watch structured-errors --code structured", ready, libc::SIGTERM);
    assert_cooked(&stty);
    assert_eq!(pane, "0 1", "alternate screen off, cursor shown");
}
