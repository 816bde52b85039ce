//! A pipe whose two ends close at exec, so no program the workshop starts holds one by accident.

use std::os::fd::OwnedFd;

/// A pipe, read end first, both ends close-on-exec.
#[cfg(target_os = "linux")]
pub(super) fn cloexec_pipe() -> rustix::io::Result<(OwnedFd, OwnedFd)> {
    rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
}

/// A pipe, read end first, both ends close-on-exec. macOS has no `pipe2`, so the flag is set
/// after the pipe is made, under `FORKING` read, which a worker's start holds for writing: no
/// worker is forked between the two steps with an end it would keep.
#[cfg(not(target_os = "linux"))]
pub(super) fn cloexec_pipe() -> rustix::io::Result<(OwnedFd, OwnedFd)> {
    use rustix::io::{fcntl_setfd, FdFlags};
    let _made = FORKING.read().unwrap_or_else(|e| e.into_inner());
    let (read, write) = rustix::pipe::pipe()?;
    fcntl_setfd(&read, FdFlags::CLOEXEC)?;
    fcntl_setfd(&write, FdFlags::CLOEXEC)?;
    Ok((read, write))
}

/// Held for reading while a pipe is made and for writing while a worker is forked (see
/// `cloexec_pipe`). Taken after the registry's lock (`reap::WORKERS`) where both are held, and
/// no pipe is made while it is held for writing.
#[cfg(not(target_os = "linux"))]
pub(super) static FORKING: std::sync::RwLock<()> = std::sync::RwLock::new(());

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
