//! The lifeline: one process forked once per workshop (no exec, so it costs a fraction of a
//! millisecond), in a process group of its own, holding only the read end of a pipe. The
//! workshop writes each worker's pid to it when the worker starts, and the pid negated when the
//! worker is ended; when the pipe closes without a goodbye (the workshop was killed outright),
//! the lifeline kills every group still listed. The workshop's own ways out forget every worker
//! first, so then it kills nothing.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Mutex;

/// Groups one lifeline can hold: far more workers than any command runs at once.
const MOST: usize = 4096;

struct Line {
    /// The end the workshop writes (close-on-exec and non-blocking).
    write: OwnedFd,
    /// The end the lifeline reads, until it is forked.
    read: Option<OwnedFd>,
    pid: Option<i32>,
}

static LINE: Mutex<Option<Line>> = Mutex::new(None);

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
    if line.is_none() {
        *line = open();
    }
    if let Some(line) = line.as_ref() {
        let bytes = value.to_ne_bytes();
        // SAFETY: write(2) of a local buffer to a descriptor we own. Four bytes are below
        // PIPE_BUF, so the write is whole or not at all; a full pipe (a lifeline that stopped
        // reading) loses the message rather than blocking the workshop.
        unsafe {
            libc::write(line.write.as_raw_fd(), bytes.as_ptr().cast(), bytes.len());
        }
    }
}

fn open() -> Option<Line> {
    let mut fds = [0; 2];
    // SAFETY: pipe2(2) fills the two-element array it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: fcntl(2) on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(write.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(write.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
    Some(Line { write, read: Some(read), pid: None })
}

/// Fork the lifeline, once, after the first worker's pid is in the pipe.
pub(super) fn start() {
    let Ok(mut line) = LINE.lock() else { return };
    let Some(line) = line.as_mut() else { return };
    let Some(read) = line.read.take() else { return };
    // SAFETY: fork(2) in a process with other threads: the child makes only
    // async-signal-safe calls (see `watch_the_pipe`) and never returns from it.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: in the forked child; the descriptor is the pipe's read end.
        unsafe { watch_the_pipe(read.as_raw_fd()) }
    }
    if pid > 0 {
        line.pid = Some(pid);
    }
    drop(read);
}

/// Whether it was forked already.
pub(super) fn started() -> bool {
    LINE.lock().map_or(true, |l| l.as_ref().is_some_and(|l| l.read.is_none()))
}

/// The lifeline's pid, which no sweep may take for a stray.
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
/// fork.
///
/// # Safety
/// Only in a child just forked, with `read` the pipe's read end.
unsafe fn watch_the_pipe(read: libc::c_int) -> ! {
    // Its own group, so a Ctrl-C at the terminal does not end it before the workshop, and
    // no signal but SIGKILL ends it at all (the workshop's handlers are not its own). Named,
    // so a person (or a test) looking at the workshop's children can tell it.
    libc::setpgid(0, 0);
    libc::prctl(libc::PR_SET_NAME, c"workshop-life".as_ptr() as libc::c_ulong, 0, 0, 0);
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT, libc::SIGPIPE, libc::SIGTSTP] {
        libc::signal(signal, libc::SIG_IGN);
    }
    // Keep only the pipe, as fd 0: no other pipe of the workshop's (a worker's, the test
    // harness's stdout) stays open because the lifeline holds it.
    libc::dup2(read, 0);
    if libc::syscall(libc::SYS_close_range, 1_u32, u32::MAX, 0_u32) != 0 {
        let mut limit = libc::rlimit { rlim_cur: 1024, rlim_max: 1024 };
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
        for fd in 1..limit.rlim_cur.min(65_536) as libc::c_int {
            libc::close(fd);
        }
    }
    let mut groups = [0_i32; MOST];
    let mut count = 0;
    let mut bytes = [0_u8; 4];
    let mut have = 0;
    loop {
        let n = libc::read(0, bytes.as_mut_ptr().add(have).cast(), 4 - have);
        if n == 0 {
            break;
        }
        if n < 0 {
            if *libc::__errno_location() == libc::EINTR {
                continue;
            }
            break;
        }
        have += n as usize;
        if have < 4 {
            continue;
        }
        have = 0;
        let value = i32::from_ne_bytes(bytes);
        if value > 0 && count < MOST {
            groups[count] = value;
            count += 1;
        } else if let Some(at) = groups[..count].iter().position(|&g| g == -value) {
            count -= 1;
            groups[at] = groups[count];
        }
    }
    for &group in &groups[..count] {
        libc::kill(-group, libc::SIGKILL);
    }
    libc::_exit(0)
}
