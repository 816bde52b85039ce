//! Running an untrusted submission's Python: a scrubbed environment, a fresh working folder, and
//! resource limits set in the child between fork and exec.
//!
//! This narrows what a file can do to the operator and to the other files graded beside it; it
//! is not a boundary against a determined attacker. The network and reads (and writes) of the
//! file system by the same user stay open: the container a grading job runs in is the outer
//! boundary. `RLIMIT_NPROC` counts every process of the real user and does not bind root.

use std::ffi::OsString;
use std::io::{Read, Seek};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
    /// The runner as its compiled code object, for `-c`: see `Interpreter`.
    runner: Option<Arc<str>>,
}

/// The interpreter that grades, found once: the program itself (not a launcher such as a pyenv
/// shim, which needs the environment the sandbox takes away), and the runner compiled by it.
///
/// A sandboxed file cannot use the runner cached under the user's cache folder: files run as the
/// same user and could rewrite it (or its bytecode) for the files graded after them. Compiling
/// the runner's source costs each start a few milliseconds, so it is compiled here once and
/// handed to every start as a marshalled code object, which loads in a fraction of that.
#[derive(Clone, Debug)]
pub struct Interpreter {
    pub executable: OsString,
    runner: Option<Arc<str>>,
}

/// Run by the interpreter once: print its own path, then the runner (argv[1]) compiled and
/// marshalled, base64-encoded.
const PREPARE: &str = "import sys, marshal, binascii\n\
if sys.version_info[0] != 3: sys.exit(3)\n\
code = marshal.dumps(compile(sys.argv[1], '<workshop runner>', 'exec'))\n\
sys.stdout.write(sys.executable + '\\n' + binascii.b2a_base64(code, newline=False).decode())\n";

impl Interpreter {
    /// Ask `python` where it lives and compile the runner with it. `Err`: why it is no Python 3.
    pub fn find(python: &std::ffi::OsStr) -> Result<Interpreter, String> {
        let out = tempfile::tempfile().map_err(|e| format!("could not make a temporary file ({e})"))?;
        let mut child = Command::new(python)
            .args(["-I", "-c", PREPARE, super::RUNNER])
            .stdin(Stdio::null())
            .stdout(out.try_clone().map_err(|e| e.to_string())?)
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let until = Instant::now() + Duration::from_secs(30);
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err("it did not answer within 30 s".into());
                }
            }
        };
        let mut text = String::new();
        let mut out = out;
        let _ = out.rewind().and_then(|()| out.read_to_string(&mut text));
        let (executable, code) = text.split_once('\n').unwrap_or((text.as_str(), ""));
        if !status.success() || executable.trim().is_empty() {
            return Err(format!("it did not run as Python 3 ({status})"));
        }
        let runner =
            (!code.is_empty() && code.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))).then(|| {
                Arc::from(format!("import marshal, binascii; exec(marshal.loads(binascii.a2b_base64('{code}')))"))
            });
        Ok(Interpreter { executable: OsString::from(executable.trim()), runner })
    }

    /// A sandbox in `dir` for this interpreter.
    pub fn sandbox(&self, dir: PathBuf, limits: Limits) -> Sandbox {
        Sandbox { dir, limits, runner: self.runner.clone() }
    }
}

impl Sandbox {
    /// The code for `python -c`: the compiled runner when there is one, else its source.
    pub(super) fn runner_code(&self) -> &str {
        self.runner.as_deref().unwrap_or(super::RUNNER)
    }

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

/// `value`, lowered to the limit this process already has, so an operator's tighter `ulimit`
/// stands (and raising past the hard limit would fail). Soft and hard are both set to it, so the
/// submission cannot raise its own limit back.
fn capped(resource: Resource, value: u64) -> libc::rlim_t {
    let mut now = libc::rlimit { rlim_cur: libc::RLIM_INFINITY, rlim_max: libc::RLIM_INFINITY };
    // SAFETY: getrlimit(2) writes into a local we own.
    if unsafe { libc::getrlimit(resource, &mut now) } != 0 {
        now = libc::rlimit { rlim_cur: libc::RLIM_INFINITY, rlim_max: libc::RLIM_INFINITY };
    }
    let value = libc::rlim_t::try_from(value).unwrap_or(libc::RLIM_INFINITY);
    // RLIM_INFINITY is the largest value, so `min` leaves ours where there is no limit yet.
    value.min(now.rlim_cur).min(now.rlim_max)
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
    fn a_tighter_limit_of_the_operator_stands() {
        let mut now = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit(2) writes into a local we own.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_CPU, &mut now) }, 0);
        assert_eq!(capped(libc::RLIMIT_CPU, 30), 30.min(now.rlim_cur));
        assert_eq!(capped(libc::RLIMIT_CPU, u64::MAX), now.rlim_cur.min(now.rlim_max));
    }

    #[test]
    fn limits_scale_cpu_time_with_the_deadline() {
        assert_eq!(Limits::for_grading(Duration::from_secs(1)).cpu_seconds, 30);
        assert_eq!(Limits::for_grading(Duration::from_secs(5)).cpu_seconds, 100);
        let limits = Limits::for_grading(Duration::from_secs(1));
        assert!(limits.processes > PROCESS_MARGIN, "this test's own process counts");
    }
}
