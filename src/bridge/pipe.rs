//! A pipe whose two ends close at exec, so no program the workshop starts holds one by accident.

use std::os::fd::OwnedFd;

/// A pipe, read end first, both ends close-on-exec.
#[cfg(target_os = "linux")]
pub(super) fn cloexec_pipe() -> rustix::io::Result<(OwnedFd, OwnedFd)> {
    rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
}

/// A pipe, read end first, both ends close-on-exec. macOS has no `pipe2`, so the flag is set
/// after the pipe is made, as the standard library does for its own pipes there; a process
/// started in between gets it closed anyway (see `close_inherited` in `reap::spawn`).
#[cfg(not(target_os = "linux"))]
pub(super) fn cloexec_pipe() -> rustix::io::Result<(OwnedFd, OwnedFd)> {
    use rustix::io::{fcntl_setfd, FdFlags};
    let (read, write) = rustix::pipe::pipe()?;
    fcntl_setfd(&read, FdFlags::CLOEXEC)?;
    fcntl_setfd(&write, FdFlags::CLOEXEC)?;
    Ok((read, write))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_ends_of_the_pipe_close_at_exec() {
        let (read, write) = cloexec_pipe().unwrap();
        for end in [&read, &write] {
            assert!(rustix::io::fcntl_getfd(end).unwrap().contains(rustix::io::FdFlags::CLOEXEC));
        }
    }
}
