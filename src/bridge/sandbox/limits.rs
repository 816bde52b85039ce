//! The resource limits every submission's Python (and everything it starts) runs under.

use std::time::Duration;

use rustix::process::Resource;

/// The limits each Python process (and everything it starts) runs under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Bytes of address space (`RLIMIT_AS`).
    pub address_space: u64,
    /// Processes of the real user in all (`RLIMIT_NPROC`): what the user runs now plus a margin.
    pub processes: u64,
    /// Bytes any one file may grow to (`RLIMIT_FSIZE`); Python ignores SIGXFSZ, so a write past
    /// it fails with `OSError` instead of killing the process.
    pub file_size: u64,
    /// Seconds of CPU time (`RLIMIT_CPU`): a backstop for what escapes the deadlines.
    pub cpu_seconds: u64,
}

/// Address space: enough for any honest solution, far below what starves a machine.
const ADDRESS_SPACE: u64 = 1 << 30;
/// New processes a submission's Python may start beyond what the user runs already.
pub(super) const PROCESS_MARGIN: u64 = 64;
/// The processes of a bubblewrap sandbox before the submission starts any: its init and Python.
pub(super) const SANDBOX_PROCESSES: u64 = 2;
const FILE_SIZE: u64 = 16 << 20;
/// Bytes each private file system of a bubblewrap sandbox (`/tmp`, the working folder) may hold:
/// two files of the largest size, so the file-size limit is what a single write meets first.
pub(super) const TMPFS_SIZE: u64 = 2 * FILE_SIZE;
/// `/dev/shm`, for the semaphores of `multiprocessing`.
pub(super) const SHM_SIZE: u64 = 4 << 20;

impl Limits {
    /// The limits for grading with a per-call deadline of `timeout`: CPU time for many calls that
    /// each run up to the deadline, so a slow but honest file gets the same verdict as in `check`.
    pub(crate) fn for_grading(timeout: Duration) -> Limits {
        let cpu = (timeout.as_secs_f64() * 20.0).ceil().max(30.0);
        Limits {
            address_space: ADDRESS_SPACE,
            processes: user_processes() + PROCESS_MARGIN,
            file_size: FILE_SIZE,
            cpu_seconds: cpu as u64,
        }
    }
}

/// `value`, lowered to the limit this process already has, so an operator's tighter `ulimit`
/// stands (and raising past the hard limit would fail). Soft and hard are both set to it, so the
/// submission cannot raise its own limit back. `u64::MAX` is no limit (`RLIM_INFINITY`).
pub(super) fn capped(resource: Resource, value: u64) -> u64 {
    let now = rustix::process::getrlimit(resource);
    // No limit is the largest value, so `min` leaves ours where there is no limit yet.
    value.min(now.current.unwrap_or(u64::MAX)).min(now.maximum.unwrap_or(u64::MAX))
}

/// How many processes the real user of this process runs now (`RLIMIT_NPROC` counts them all).
#[cfg(target_os = "macos")]
fn user_processes() -> u64 {
    let me = rustix::process::getuid().as_raw();
    crate::bridge::reap::darwin::of_real_user(me).len() as u64
}

/// How many processes the real user of this process runs now (`RLIMIT_NPROC` counts them all);
/// 0 where /proc cannot say (only `grade`'s margin is then allowed).
#[cfg(not(target_os = "macos"))]
fn user_processes() -> u64 {
    use std::os::unix::fs::MetadataExt;
    let uid = rustix::process::getuid().as_raw();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    // A process's folder in /proc belongs to its user: one stat each, not a read of its status,
    // on a machine that may run thousands.
    let mut count = 0;
    for entry in entries.flatten() {
        let name: std::ffi::OsString = entry.file_name();
        if name.to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
            && entry.metadata().is_ok_and(|m| m.uid() == uid)
        {
            count += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tighter_limit_of_the_operator_stands() {
        let now = rustix::process::getrlimit(Resource::Cpu);
        let (soft, hard) = (now.current.unwrap_or(u64::MAX), now.maximum.unwrap_or(u64::MAX));
        assert_eq!(capped(Resource::Cpu, 30), 30.min(soft));
        assert_eq!(capped(Resource::Cpu, u64::MAX), soft.min(hard));
    }

    #[test]
    fn limits_scale_cpu_time_with_the_deadline() {
        assert_eq!(Limits::for_grading(Duration::from_secs(1)).cpu_seconds, 30);
        assert_eq!(Limits::for_grading(Duration::from_secs(5)).cpu_seconds, 100);
        let limits = Limits::for_grading(Duration::from_secs(1));
        assert!(limits.processes > PROCESS_MARGIN, "this test's own process counts");
    }
}
