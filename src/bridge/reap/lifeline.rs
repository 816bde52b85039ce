//! The lifeline: one process forked once per workshop (no exec, so it costs a fraction of a
//! millisecond), in a process group of its own, holding only the read end of a pipe. The
//! workshop writes each worker's pid to it when the worker starts, and the pid negated when the
//! worker is ended; when the pipe closes without a goodbye (the workshop was killed outright),
//! the lifeline kills every group still listed. The workshop's own ways out forget every worker
//! first, so then it kills nothing.
//!
//! On Linux it is forked a while after the first worker starts (the parent-death signal covers
//! that while); where there is no such signal (macOS), before the first worker starts, and every
//! worker announces itself to it before it execs (see `Announced` in `spawn`).

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rustix::process::{Pid, Signal};
use std::sync::Mutex;

/// Groups one lifeline can hold: far more workers than any command runs at once.
const MOST: usize = 4096;

struct Lifeline {
    /// The end the workshop writes (close-on-exec and non-blocking).
    write: OwnedFd,
    /// The end the lifeline reads, until it is forked.
    read: Option<OwnedFd>,
    pid: Option<i32>,
}

static LINE: Mutex<Option<Lifeline>> = Mutex::new(None);

/// A worker's group to kill if the workshop dies.
pub(super) fn watch(pid: i32) {
    send(pid);
}

/// A worker the workshop ends itself: written before it is reaped, so a later reuse of its
/// pid is never the lifeline's business.
pub(super) fn forget(pid: i32) {
    send(-pid);
}

fn send(value: i32) {
    let Ok(mut line) = LINE.lock() else { return };
    if let Some(line) = opened(&mut line) {
        // Four bytes are below PIPE_BUF, so the write is whole or not at all; a full pipe (a
        // lifeline that stopped reading) loses the message rather than blocking the workshop.
        let _ = rustix::io::write(&line.write, &value.to_ne_bytes());
    }
}

/// The line, opened first when it is not yet.
fn opened(line: &mut Option<Lifeline>) -> Option<&Lifeline> {
    if line.is_none() {
        *line = open();
    }
    line.as_ref()
}

fn open() -> Option<Lifeline> {
    let (read, write) = crate::bridge::pipe::cloexec_pipe().ok()?;
    let _ = rustix::io::ioctl_fionbio(&write, true);
    Some(Lifeline { write, read: Some(read), pid: None })
}

/// The lifeline started now (if it was not), and a copy of the pipe's write end, for a child to
/// write its own pid into between fork and exec (`announce`): a sandbox that waits to go on has
/// no parent-death signal of its own, so the lifeline must know its group before it exists. A
/// copy, so the workshop's quitting (which closes the pipe) cannot hand its number to another
/// file before the child writes. `None` when there is no lifeline.
pub(super) fn started_for_a_child() -> Option<OwnedFd> {
    opened(&mut *LINE.lock().ok()?)?;
    start();
    let line = LINE.lock().ok()?;
    let line = line.as_ref().filter(|l| l.pid.is_some())?;
    rustix::io::fcntl_dupfd_cloexec(&line.write, 3).ok()
}

/// In a child between fork and exec: its own pid to a pipe (`fd`: the lifeline's, from
/// `started_for_a_child`, the same message `watch` sends, so a workshop killed from here on
/// leaves the lifeline this group to kill; or the one that tells the workshop). The lifeline
/// lists a pid once, however often it comes. A raw write of four bytes: async-signal-safe, and
/// whole or not at all.
pub(super) fn announce(fd: std::os::fd::RawFd, pid: i32) {
    // SAFETY: `fd` is a pipe's write end the parent holds open until the spawn returns.
    let fd = unsafe { BorrowedFd::borrow_raw(fd) };
    let _ = rustix::io::write(fd, &pid.to_ne_bytes());
}

/// Fork the lifeline, once, after the first worker's pid is in the pipe.
pub(super) fn start() {
    let Ok(mut line) = LINE.lock() else { return };
    let Some(line) = line.as_mut() else { return };
    let Some(read) = line.read.take() else { return };
    // SAFETY: fork(2) in a process with other threads: the child makes only
    // async-signal-safe calls (see `watch_the_pipe`) and never returns from it. libc's: rustix
    // forks only in its `runtime` API, which is not for use beside std.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: in the forked child; the descriptor is the pipe's read end.
        unsafe { watch_the_pipe(read.as_fd()) }
    }
    if pid > 0 {
        line.pid = Some(pid);
    }
    drop(read);
}

/// Whether it was forked already.
#[cfg(target_os = "linux")]
pub(super) fn started() -> bool {
    LINE.lock().map_or(true, |l| l.as_ref().is_some_and(|l| l.read.is_none()))
}

/// The lifeline's pid, which no sweep may take for a stray (a subreaper's: the sweep by marks
/// never meets it, since it carries none).
#[cfg(target_os = "linux")]
pub(super) fn pid() -> Option<i32> {
    LINE.lock().ok().and_then(|l| l.as_ref().and_then(|l| l.pid))
}

/// Close the pipe: every worker is forgotten by now, so the lifeline exits killing nothing.
pub(super) fn end() {
    let line = LINE.lock().ok().and_then(|mut l| l.take());
    // Not waited for: it exits as soon as it reads the end, and init reaps it after us.
    drop(line);
}

/// The lifeline's whole life, in the forked child: async-signal-safe calls only (no
/// allocation, no locks), since the workshop's other threads may have held any lock at the
/// fork. libc's calls where rustix has none: signal dispositions, close_range, `_exit`.
///
/// # Safety
/// Only in a child just forked, with `read` the pipe's read end.
unsafe fn watch_the_pipe(read: BorrowedFd<'_>) -> ! {
    // Its own group, so a Ctrl-C at the terminal does not end it before the workshop, and
    // no signal but SIGKILL ends it at all (the workshop's handlers are not its own). Named,
    // so a person (or a test) looking at the workshop's children can tell it.
    let _ = rustix::process::setpgid(None, None);
    // Elsewhere a name is a thread's only, which nobody listing processes sees.
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::set_name(c"workshop-life");
    for signal in
        [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT, libc::SIGPIPE, libc::SIGTSTP]
    {
        libc::signal(signal, libc::SIG_IGN);
    }
    // Keep only the pipe, as fd 0: no other pipe of the workshop's (a worker's, the test
    // harness's stdout) stays open because the lifeline holds it.
    let _ = rustix::stdio::dup2_stdin(read);
    // close_range is Linux's; elsewhere the loop.
    #[cfg(target_os = "linux")]
    let closed = libc::syscall(libc::SYS_close_range, 1_u32, u32::MAX, 0_u32) == 0;
    #[cfg(not(target_os = "linux"))]
    let closed = false;
    if !closed {
        let open = rustix::process::getrlimit(rustix::process::Resource::Nofile)
            .current
            .unwrap_or(u64::MAX);
        for fd in 1..open.min(65_536) as libc::c_int {
            libc::close(fd);
        }
    }
    let mut groups = [0_i32; MOST];
    let count = read_groups(rustix::stdio::stdin(), &mut groups);
    for &group in &groups[..count] {
        if let Some(group) = Pid::from_raw(group) {
            let _ = rustix::process::kill_process_group(group, Signal::KILL);
        }
    }
    libc::_exit(0)
}

/// The groups to kill, read from `line` (the pipe, as fd 0) until it closes: each worker's pid
/// when it starts, negated when it ends. How many of `groups` are filled.
fn read_groups(line: BorrowedFd<'_>, groups: &mut [i32; MOST]) -> usize {
    let mut count = 0;
    let mut bytes = [0_u8; 4];
    let mut have = 0;
    loop {
        match rustix::io::read(line, &mut bytes[have..]) {
            Ok(0) => break,
            Ok(n) => have += n,
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => break,
        }
        if have < 4 {
            continue;
        }
        have = 0;
        let value = i32::from_ne_bytes(bytes);
        if value > 0 && groups[..count].contains(&value) {
            // Announced by the child itself, then watched by the workshop: one group.
        } else if value > 0 && count < MOST {
            groups[count] = value;
            count += 1;
        } else if let Some(at) = groups[..count].iter().position(|&g| g == -value) {
            count -= 1;
            groups[at] = groups[count];
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_after(messages: &[i32]) -> Vec<i32> {
        let (read, write) = rustix::pipe::pipe().unwrap();
        for value in messages {
            rustix::io::write(&write, &value.to_ne_bytes()).unwrap();
        }
        drop(write);
        let mut groups = [0_i32; MOST];
        let count = read_groups(read.as_fd(), &mut groups);
        groups[..count].to_vec()
    }

    #[test]
    fn a_group_announced_by_its_child_and_watched_by_the_workshop_is_one_group() {
        // Announced, watched, forgotten: nothing to kill (a second entry would outlive the
        // forgetting, and kill the group of whatever reuses the pid).
        assert_eq!(read_after(&[41, 41, -41]), Vec::<i32>::new());
        assert_eq!(read_after(&[41, 52, 41, -52]), vec![41]);
        assert_eq!(read_after(&[41, -41, 41]), vec![41], "a pid used again is watched again");
    }
}
