//! Running an untrusted submission's Python (`grade`).
//!
//! Where it works, each submission runs under bubblewrap (`bwrap`), the namespace sandbox
//! Flatpak builds on: its own PID namespace (so every process it starts dies with it, and it sees
//! and signals nothing outside), no network, private IPC and host name, no capabilities, a
//! read-only view of the system folders and the interpreter's own, size-capped private `/tmp` and
//! working folder holding only its copy, a `/proc` of its own and a cleared environment. Resource
//! limits are set on top, between fork and exec, and inherited by everything inside.
//!
//! Without bubblewrap (`--sandbox none`, or `auto` where it cannot run), only the cleared
//! environment, the private folder and the limits hold: the network, the file system the user can
//! reach and the other processes of the user stay open, and `RLIMIT_NPROC` does not bind root.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, ExitStatus};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustix::process::{Resource, Rlimit};

use super::runner::RUNNER;
use super::worker::{Ahead, Worker};

mod bounded;
mod bwrap;
mod folder;
mod limits;
mod view;

pub(crate) use bwrap::{Bubblewrap, Unusable};
pub(crate) use folder::{remove_folders, Folder};
pub(crate) use limits::Limits;

pub(crate) use bounded::RunError;

use bounded::run_bounded;
use limits::{capped, PROCESS_MARGIN, SANDBOX_PROCESSES};
use view::RUNNER_INSIDE;

/// Environment variables passed through as they are: what Python needs to find programs and to
/// decode text. Everything else (tokens, API keys, `PYTHON*`) is dropped.
fn passes(name: &str) -> bool {
    matches!(name, "PATH" | "LANG" | "LANGUAGE" | "TZ") || name.starts_with("LC_")
}

/// What holds for every submission under bubblewrap, in the words of `grade`'s summary.
pub(crate) const HELD_WITH_BWRAP: &str = "own PID namespace (whatever it starts ends with it; it sees and signals nothing outside), no network, private IPC and host name, no capabilities, a read-only system, a private /tmp and folder of 32 MiB each holding only its copy, its own /proc, a cleared environment, and resource limits";

/// What does not hold without bubblewrap, in the words of `grade`'s summary.
pub(crate) const MISSING_WITHOUT: &str = "processes (a file's daemon can outlive its grading and signal the workshop or a classmate), the network, the file system (a file can read and write whatever the grading user can, classmates' files included), and /proc (other processes' environments); what holds is a cleared environment, a private folder, and resource limits (which do not bind root)";

/// How a submission's Python is run. Cheap to clone; the folder belongs to whoever made it.
#[derive(Clone, Debug)]
pub(crate) struct Sandbox {
    /// The working folder, `HOME` and `TMPDIR` of the process: fresh and private to one file.
    pub dir: PathBuf,
    /// The files of `dir` the submission sees (its copy); under bubblewrap, read-only.
    files: Vec<OsString>,
    pub limits: Limits,
    /// What `python -c` runs: the runner (compiled, see `Interpreter`), after, under bubblewrap,
    /// the process limit (see `apply`).
    code: Arc<str>,
    /// The same with the runner's source, for an interpreter that cannot load the compiled one.
    source: Arc<str>,
    bwrap: Option<Arc<Bubblewrap>>,
    /// The sandbox made ahead of the file's turn, until its first start takes it (see `Ahead`).
    ahead: Arc<Mutex<Option<Ahead>>>,
}

/// Why the interpreter asked for cannot grade: the reason alone, as said after "could not run
/// Python 3 as ...: ".
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotPython3 {
    #[error(transparent)]
    Run(#[from] RunError),
    /// It ran, but did not answer as a Python 3 does.
    #[error("it did not run as Python 3 ({0})")]
    Failed(ExitStatus),
}

/// The interpreter that grades, found once: the program itself (not a launcher such as a pyenv
/// shim, which needs the environment the sandbox takes away), and the runner compiled by it.
///
/// A sandboxed file cannot use the runner cached under the user's cache folder: files run as the
/// same user and could rewrite it (or its bytecode) for the files graded after them. Compiling
/// the runner's source costs each start a few milliseconds, so it is compiled here once and
/// handed to every start as a marshalled code object, which loads in a fraction of that.
#[derive(Clone, Debug)]
pub(crate) struct Interpreter {
    pub executable: OsString,
    runner: Option<Arc<str>>,
    /// The compiled runner itself (marshalled), which a sandbox reads from its view instead of
    /// being handed it on the command line (twice: to bwrap, then by bwrap to Python).
    compiled: Option<Arc<[u8]>>,
    /// The interpreter's own folders (prefixes, the executable's folder), to show in a sandbox.
    dirs: Vec<PathBuf>,
    bwrap: Option<Arc<Bubblewrap>>,
}

/// Run by the interpreter once: its real path (links resolved), the runner (argv[1]) compiled
/// and marshalled, base64-encoded, then the folders the real interpreter lives in, separated by
/// NUL (which no path holds). Started by its real path, the interpreter takes its prefixes from
/// there: the folder of a link to it (`~/bin/python`) is never among them, so never shown.
const PREPARE: &str = "import sys, os, marshal, binascii\n\
if sys.version_info[0] != 3: sys.exit(3)\n\
code = marshal.dumps(compile(sys.argv[1], '<workshop runner>', 'exec'))\n\
exe = os.path.realpath(sys.executable)\n\
dirs = [os.path.realpath(d) for d in (sys.base_prefix, sys.base_exec_prefix, os.path.dirname(exe))]\n\
sys.stdout.write('\\0'.join([exe, binascii.b2a_base64(code, newline=False).decode()] + dirs))\n";

impl Interpreter {
    /// Ask `python` where it lives and compile the runner with it. `Err`: why it is no Python 3.
    pub(crate) fn find(python: &OsStr) -> Result<Interpreter, NotPython3> {
        let mut command = Command::new(python);
        // -S: `site` is most of a start and tells nothing asked here.
        command.args(["-I", "-S", "-c", PREPARE, RUNNER]);
        // As root, asked as the user every submission will run as: what it cannot run is said now.
        demote(&mut command);
        let (status, text, _) = run_bounded(command, Duration::from_secs(30))?;
        let mut parts = text.split('\0');
        let executable = parts.next().unwrap_or("").trim();
        let code = parts.next().unwrap_or("");
        if !status.success() || executable.is_empty() {
            return Err(NotPython3::Failed(status));
        }
        let dirs = parts.filter(|d| d.starts_with('/')).map(PathBuf::from).collect();
        let compiled = base64_decoded(code).map(Arc::from);
        let runner = compiled.is_some().then(|| {
            Arc::from(format!(
                "import marshal, binascii; exec(marshal.loads(binascii.a2b_base64('{code}')))"
            ))
        });
        Ok(Interpreter {
            executable: OsString::from(executable),
            runner,
            compiled,
            dirs,
            bwrap: None,
        })
    }

    /// Run every submission under `bwrap` from now on.
    pub(crate) fn use_bwrap(&mut self, bwrap: Bubblewrap) {
        self.bwrap = Some(Arc::new(bwrap));
    }

    /// Whether submissions run under bubblewrap.
    pub(crate) fn sandboxed(&self) -> bool {
        self.bwrap.is_some()
    }

    /// A sandbox in `dir`, showing the submission the `files` of it, for this interpreter.
    pub(crate) fn sandbox(&self, dir: PathBuf, files: &[&OsStr], limits: Limits) -> Sandbox {
        let runner = self.runner.clone().unwrap_or_else(|| Arc::from(RUNNER));
        let (code, source) = match &self.bwrap {
            // The process limit is the first thing the submission's Python does (see `apply`);
            // `resource` is small (built in, or on Debian's Python a tiny extension module): a start
            // with it measures the same as one without (docs/benchmarks.md).
            // In a user namespace of its own (bwrap makes one unless it is installed setuid) the
            // kernel counts the processes of that namespace against it, so the margin alone is
            // the limit; otherwise the count is the user's, as without bubblewrap.
            Some(_) => {
                let own = capped(Resource::Nproc, PROCESS_MARGIN + SANDBOX_PROCESSES);
                let shared = capped(Resource::Nproc, limits.processes);
                let first = format!(
                    "import resource as _r\n\
                     with open('/proc/self/uid_map') as _f: _n = {shared} if _f.read().split()[:3] == ['0', '0', '4294967295'] else {own}\n\
                     _r.setrlimit(_r.RLIMIT_NPROC, (_n, _n)); del _r, _f, _n\n"
                );
                // The compiled runner is a file of the sandbox's read-only view (see `View`).
                let runner = match self.compiled {
                    Some(_) => format!(
                        "import marshal\nwith open('{RUNNER_INSIDE}', 'rb') as _f: _c = marshal.loads(_f.read())\ndel _f\nexec(_c)"
                    ),
                    None => runner.to_string(),
                };
                (Arc::from(format!("{first}{runner}")), Arc::from(format!("{first}{}", RUNNER)))
            }
            None => (runner, Arc::from(RUNNER)),
        };
        let files = files.iter().map(|f| f.to_os_string()).collect();
        Sandbox {
            dir,
            files,
            limits,
            code,
            source,
            bwrap: self.bwrap.clone(),
            ahead: Arc::default(),
        }
    }
}

impl Sandbox {
    /// Whether it runs under bubblewrap.
    pub(super) fn bwrap(&self) -> bool {
        self.bwrap.is_some()
    }

    /// Under bubblewrap, make this sandbox now for `cfg` (whose sandbox it is), to start Python
    /// in when the file's turn comes: bubblewrap's own work then runs beside the grading before
    /// it. It waits before Python starts, so nothing of the file runs before its turn. Without
    /// bubblewrap there is nothing to make ahead.
    pub(crate) fn make_ahead(&self, cfg: &super::BridgeConfig) {
        if self.bwrap.is_none() {
            return;
        }
        let made = Worker::ahead(cfg, self.runner_code());
        if let (Some(made), Ok(mut slot)) = (made, self.ahead.lock()) {
            *slot = Some(made);
        }
    }

    /// The sandbox made ahead, once.
    pub(super) fn take_ahead(&self) -> Option<Ahead> {
        self.ahead.lock().ok()?.take()
    }

    /// The code for `python -c`: the compiled runner when there is one, else its source.
    pub(super) fn runner_code(&self) -> &str {
        &self.code
    }

    /// The code for `python -c` with the runner's source, for when the compiled one would not load.
    pub(super) fn runner_source(&self) -> &str {
        &self.source
    }

    /// What the submission's Python sees of the environment.
    fn environment(&self) -> Vec<(OsString, OsString)> {
        let mut env: Vec<(OsString, OsString)> =
            std::env::vars_os().filter(|(name, _)| name.to_str().is_some_and(passes)).collect();
        env.push(("HOME".into(), self.dir.clone().into()));
        env.push(("TMPDIR".into(), self.dir.clone().into()));
        env
    }

    /// Set up `cmd` (from `command`) to run inside the sandbox. Called at the spawn site, after
    /// the bridge has set its own arguments and environment; `keep` are the variables of the
    /// bridge to keep (under bubblewrap they reach bwrap itself, not the submission).
    pub(super) fn apply(&self, cmd: &mut Command, keep: &[(&str, &str)]) {
        cmd.env_clear();
        for (name, value) in self.environment() {
            cmd.env(name, value);
        }
        for (name, value) in keep {
            cmd.env(name, value);
        }
        cmd.current_dir(&self.dir);
        // `RLIMIT_NPROC` counts every process of the user, so on bwrap it would let a fork bomb
        // graded beside a classmate (or in another `grade` of the same user) hold the count at
        // the limit and leave the classmate's bwrap unable to make its namespaces. Under
        // bubblewrap the submission's Python sets it on itself first instead (see `sandbox`).
        let processes = match self.bwrap {
            Some(_) => u64::MAX,
            None => self.limits.processes,
        };
        let wanted = [
            (Resource::As, self.limits.address_space),
            (Resource::Nproc, processes),
            (Resource::Fsize, self.limits.file_size),
            (Resource::Cpu, self.limits.cpu_seconds),
        ];
        // Worked out here, in the parent: between fork and exec only async-signal-safe calls.
        let limits = wanted.map(|(resource, value)| (resource, capped(resource, value)));
        // SAFETY: the closure only calls setrlimit(2) (rustix's raw system call), which is
        // async-signal-safe, on values computed before the fork; it allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                for (resource, value) in limits {
                    let value = (value != u64::MAX).then_some(value);
                    rustix::process::setrlimit(
                        resource,
                        Rlimit { current: value, maximum: value },
                    )?;
                }
                Ok(())
            });
        }
        demote(cmd);
    }
}

/// The bytes of standard base64 text (`A-Z a-z 0-9 + /`, `=` padding, no line breaks), as
/// Python's `binascii.b2a_base64` writes it; `None` for anything else, or nothing.
fn base64_decoded(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let body = text.trim_end_matches('=');
    if text.is_empty() || !text.len().is_multiple_of(4) || text.len() - body.len() > 2 {
        return None;
    }
    let mut bytes = Vec::with_capacity(body.len() * 3 / 4);
    let (mut bits, mut held) = (0u32, 0u32);
    for c in body.bytes() {
        bits = (bits << 6) | u32::from(value(c)?);
        held += 6;
        if held >= 8 {
            held -= 8;
            bytes.push((bits >> held) as u8);
            bits &= (1 << held) - 1;
        }
    }
    Some(bytes)
}

/// The user and group a submission runs as when `grade` runs as root: `nobody`, who owns nothing
/// the sandbox shows. Under bubblewrap, uid 0 in the sandbox would be the host's root (a user
/// namespace made by root maps root to itself), free to write whatever root owns and the
/// sandbox shows, such as kernel settings; without it, the submission would simply be root.
pub(crate) const GRADER: u32 = 65_534;

/// Whether this process runs as root, so its submissions run as [`GRADER`].
pub(crate) fn as_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// As root, make `cmd` drop to [`GRADER`] before it execs: bwrap then makes its namespaces as an
/// ordinary user. std changes the group, then the user (giving up the supplementary groups, as
/// root), before any `pre_exec` step, so the spawner's parent-death signal, which a change of
/// user clears, is asked after it.
fn demote(cmd: &mut Command) {
    if as_root() {
        cmd.uid(GRADER).gid(GRADER);
    }
}

#[cfg(test)]
mod tests {
    use super::view::View;
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

    /// The sandbox of `errors.py` in `/tmp/workshop-grade-x`, under `bwrap` when one is given.
    fn sandbox_of(bwrap: Option<Bubblewrap>) -> Sandbox {
        let mut python = Interpreter {
            executable: "/usr/bin/python3".into(),
            runner: Some(Arc::from("exec(compiled)")),
            compiled: Some(Arc::from(&b"compiled"[..])),
            dirs: Vec::new(),
            bwrap: None,
        };
        if let Some(bwrap) = bwrap {
            python.use_bwrap(bwrap);
        }
        let limits = Limits::for_grading(Duration::from_secs(1));
        python.sandbox(PathBuf::from("/tmp/workshop-grade-x"), &[OsStr::new("errors.py")], limits)
    }

    #[test]
    fn base64_is_read_as_python_writes_it() {
        assert_eq!(base64_decoded("aGVsbG8gd29ybGQ=").as_deref(), Some(&b"hello world"[..]));
        assert_eq!(base64_decoded("YQ==").as_deref(), Some(&b"a"[..]));
        assert_eq!(base64_decoded("YWJj").as_deref(), Some(&b"abc"[..]));
        assert_eq!(base64_decoded("/+8A").as_deref(), Some(&[0xff, 0xef, 0][..]));
        for bad in ["", "YQ=", "Y===", "YQ==\n", "YQ!=", "a b="] {
            assert_eq!(base64_decoded(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn without_bubblewrap_the_command_is_python_itself() {
        let command = sandbox_of(None).command(OsStr::new("python3"), None);
        assert_eq!(command.get_program(), "python3");
        assert_eq!(command.get_args().count(), 0);
    }

    #[test]
    fn under_bubblewrap_the_submission_gets_namespaces_a_private_folder_and_no_environment() {
        // An interpreter in a venv under /tmp: shown over the private /tmp, not hidden by it.
        let venv = tempfile::tempdir().unwrap();
        let venv_path = venv.path().canonicalize().unwrap();
        let view =
            Arc::new(View::build(std::slice::from_ref(&venv_path), Some(b"compiled")).unwrap());
        let bwrap = Bubblewrap {
            program: "/usr/bin/bwrap".into(),
            version: "bubblewrap 0.8.0".into(),
            view: view.clone(),
        };
        let sandbox = sandbox_of(Some(bwrap));
        let command = sandbox.command(OsStr::new("/usr/bin/python3"), None);
        assert_eq!(command.get_program(), "/usr/bin/bwrap");
        let args: Vec<String> =
            command.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        let text = args.join(" ");
        let root = view.path().canonicalize().unwrap();
        for wanted in [
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--die-with-parent",
            "--cap-drop ALL",
            &format!("--ro-bind {} / --ro-bind /usr /usr", root.display()),
            "--proc /proc --remount-ro /proc",
            "--dev-bind /dev/null /dev/null",
            "--size 4194304 --tmpfs /dev/shm",
            "--size 33554432 --tmpfs /tmp",
            "--size 33554432 --tmpfs /tmp/workshop-grade-x",
            "--ro-bind /tmp/workshop-grade-x/errors.py /tmp/workshop-grade-x/errors.py",
            "--chdir /tmp/workshop-grade-x",
            "--clearenv",
            "--setenv HOME /tmp/workshop-grade-x",
        ] {
            assert!(text.contains(wanted), "{wanted} missing: {text}");
        }
        assert!(text.ends_with("-- /usr/bin/python3"), "{text}");
        // The read-only view is the root, under everything else; bwrap's own /dev is not asked
        // for (its pseudo-terminals made it nest a second user namespace).
        assert!(text.starts_with("--unshare"), "{text}");
        let at = |w: &str| args.iter().position(|a| a == w).unwrap();
        assert!(args.iter().position(|a| a == "/").unwrap() < at("/usr"));
        assert!(!args.windows(2).any(|w| w[0] == "--dev" || w == ["--remount-ro", "/"]), "{text}");
        // Its session is started before bwrap runs (see `command`), never by bwrap's init.
        assert!(!args.iter().any(|a| a == "--new-session"), "{text}");
        let private_tmp =
            args.windows(2).position(|w| w[0] == "--tmpfs" && w[1] == "/tmp").unwrap();
        assert!(at(venv_path.to_str().unwrap()) > private_tmp, "{text}");
        assert!(!args.iter().any(|a| a.contains("GITHUB_TOKEN")));
        // The runner is read from the view, not handed over on the command line.
        assert!(sandbox.runner_code().contains(RUNNER_INSIDE), "{}", sandbox.runner_code());
        assert!(!sandbox.runner_code().contains("a2b_base64"), "{}", sandbox.runner_code());
        assert!(sandbox_of(None).runner_code().contains("exec(compiled)"));
    }
}
