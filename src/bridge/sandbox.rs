//! Running an untrusted submission's Python: a scrubbed environment, a fresh working folder, and
//! resource limits set in the child between fork and exec.
//!
//! This narrows what a file can do to the operator and to the other files graded beside it; it
//! is not a boundary against a determined attacker. The network and reads (and writes) of the
//! file system by the same user stay open: the container a grading job runs in is the outer
//! boundary. `RLIMIT_NPROC` counts every process of the real user and does not bind root.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// Environment variables passed through as they are: what Python needs to find programs and to
/// decode text. Everything else (tokens, API keys, `PYTHON*`) is dropped.
fn passes(name: &str) -> bool {
    matches!(name, "PATH" | "LANG" | "LANGUAGE" | "TZ") || name.starts_with("LC_")
}

/// The limits each Python process (and everything it starts) runs under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
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
const PROCESS_MARGIN: u64 = 64;
const FILE_SIZE: u64 = 16 << 20;

impl Limits {
    /// The limits for grading with a per-call deadline of `timeout`: CPU time for many calls that
    /// each run up to the deadline, so a slow but honest file gets the same verdict as in `check`.
    pub fn for_grading(timeout: Duration) -> Limits {
        let cpu = (timeout.as_secs_f64() * 20.0).ceil().max(30.0);
        Limits {
            address_space: ADDRESS_SPACE,
            processes: user_processes() + PROCESS_MARGIN,
            file_size: FILE_SIZE,
            cpu_seconds: cpu as u64,
        }
    }
}

/// How a submission's Python is run. Cheap to clone; the folder belongs to whoever made it.
#[derive(Clone, Debug)]
pub struct Sandbox {
    /// The working folder, `HOME` and `TMPDIR` of the process: fresh and private to one file.
    pub dir: PathBuf,
    pub limits: Limits,
}

impl Sandbox {
    /// Set up `cmd` to run inside the sandbox. Called at the spawn site, after the bridge has
    /// set its own arguments and environment; `keep` are the variables of the bridge to keep.
    pub(super) fn apply(&self, cmd: &mut Command, keep: &[(&str, &str)]) {
        cmd.env_clear();
        for (name, value) in std::env::vars_os() {
            if name.to_str().is_some_and(passes) {
                cmd.env(name, value);
            }
        }
        for (name, value) in keep {
            cmd.env(name, value);
        }
        cmd.env("HOME", &self.dir).env("TMPDIR", &self.dir).current_dir(&self.dir);
        let wanted = [
            (libc::RLIMIT_AS, self.limits.address_space),
            (libc::RLIMIT_NPROC, self.limits.processes),
            (libc::RLIMIT_FSIZE, self.limits.file_size),
            (libc::RLIMIT_CPU, self.limits.cpu_seconds),
        ];
        // Worked out here, in the parent: between fork and exec only async-signal-safe calls.
        let limits = wanted.map(|(resource, value)| (resource, capped(resource, value)));
        // SAFETY: the closure only calls setrlimit(2), which is async-signal-safe, on values
        // computed before the fork; it allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                for (resource, value) in limits {
                    let limit = libc::rlimit { rlim_cur: value, rlim_max: value };
                    if libc::setrlimit(resource, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
    }
}

#[cfg(target_os = "linux")]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(target_os = "linux"))]
type Resource = libc::c_int;

/// `value`, lowered to the hard limit this process already has (raising it would fail). Soft and
/// hard are both set to it, so the submission cannot raise its own limit back.
fn capped(resource: Resource, value: u64) -> libc::rlim_t {
    let mut now = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit(2) writes into a local we own.
    let hard = if unsafe { libc::getrlimit(resource, &mut now) } == 0 { now.rlim_max } else { libc::RLIM_INFINITY };
    let value = libc::rlim_t::try_from(value).unwrap_or(libc::RLIM_INFINITY);
    if hard == libc::RLIM_INFINITY {
        value
    } else {
        value.min(hard)
    }
}

/// How many processes the real user of this process runs now (`RLIMIT_NPROC` counts them all).
fn user_processes() -> u64 {
    // SAFETY: getuid(2) cannot fail.
    let uid = unsafe { libc::getuid() }.to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut count = 0;
    for entry in entries.flatten() {
        let name: OsString = entry.file_name();
        if !name.to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit())) {
            continue;
        }
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        let real = status.lines().find_map(|l| l.strip_prefix("Uid:")).and_then(|l| l.split_whitespace().next());
        if real == Some(uid.as_str()) {
            count += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_python_needs_passes() {
        for name in ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ"] {
            assert!(passes(name), "{name}");
        }
        for name in [
            "GITHUB_TOKEN",
            "ANTHROPIC_API_KEY",
            "HOME",
            "PYTHONPATH",
            "PYTHONSTARTUP",
            "LD_PRELOAD",
            "AWS_SECRET_ACCESS_KEY",
        ] {
            assert!(!passes(name), "{name}");
        }
    }

    #[test]
    fn limits_scale_cpu_time_with_the_deadline() {
        assert_eq!(Limits::for_grading(Duration::from_secs(1)).cpu_seconds, 30);
        assert_eq!(Limits::for_grading(Duration::from_secs(5)).cpu_seconds, 100);
        let limits = Limits::for_grading(Duration::from_secs(1));
        assert!(limits.processes >= PROCESS_MARGIN + 1, "this test's own process counts");
    }
}
