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
use std::io::{Read, Seek};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::runner::RUNNER;

/// Environment variables passed through as they are: what Python needs to find programs and to
/// decode text. Everything else (tokens, API keys, `PYTHON*`) is dropped.
fn passes(name: &str) -> bool {
    matches!(name, "PATH" | "LANG" | "LANGUAGE" | "TZ") || name.starts_with("LC_")
}

/// What holds for every submission under bubblewrap, in the words of `grade`'s summary.
pub(crate) const HELD_WITH_BWRAP: &str = "own PID namespace (whatever it starts ends with it; it sees and signals nothing outside), no network, private IPC and host name, no capabilities, a read-only system, a private /tmp and folder of 32 MiB each holding only its copy, its own /proc, a cleared environment, and resource limits";

/// What does not hold without bubblewrap, in the words of `grade`'s summary.
pub(crate) const MISSING_WITHOUT: &str = "processes (a file's daemon can outlive its grading and signal the workshop or a classmate), the network, the file system (a file can read and write whatever the grading user can, classmates' files included), and /proc (other processes' environments); what holds is a cleared environment, a private folder, and resource limits (which do not bind root)";

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
const PROCESS_MARGIN: u64 = 64;
/// The processes of a bubblewrap sandbox before the submission starts any: its init and Python.
const SANDBOX_PROCESSES: u64 = 2;
const FILE_SIZE: u64 = 16 << 20;
/// Bytes each private file system of a bubblewrap sandbox (`/tmp`, the working folder) may hold:
/// two files of the largest size, so the file-size limit is what a single write meets first.
pub(crate) const TMPFS_SIZE: u64 = 2 * FILE_SIZE;
/// `/dev/shm`, for the semaphores of `multiprocessing`.
const SHM_SIZE: u64 = 4 << 20;

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

/// What a program printed and how it ended, run with a deadline; `Err` when it would not start
/// or did not end in time (then it is killed).
fn run_bounded(mut command: Command, limit: Duration) -> Result<(ExitStatus, String, String), String> {
    let out = tempfile::tempfile().map_err(|e| format!("could not make a temporary file ({e})"))?;
    let err = tempfile::tempfile().map_err(|e| format!("could not make a temporary file ({e})"))?;
    command
        .stdin(Stdio::null())
        .stdout(out.try_clone().map_err(|e| e.to_string())?)
        .stderr(err.try_clone().map_err(|e| e.to_string())?);
    let mut child = command.spawn().map_err(|e| e.to_string())?;
    let until = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("it did not answer within {} s", limit.as_secs()));
            }
        }
    };
    let text = |mut file: std::fs::File| {
        let mut bytes = Vec::new();
        let _ = file.rewind().and_then(|()| file.take(1 << 20).read_to_end(&mut bytes));
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Ok((status, text(out), text(err)))
}

impl Interpreter {
    /// Ask `python` where it lives and compile the runner with it. `Err`: why it is no Python 3.
    pub(crate) fn find(python: &OsStr) -> Result<Interpreter, String> {
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
            return Err(format!("it did not run as Python 3 ({status})"));
        }
        let dirs = parts.filter(|d| d.starts_with('/')).map(PathBuf::from).collect();
        let runner =
            (!code.is_empty() && code.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))).then(|| {
                Arc::from(format!("import marshal, binascii; exec(marshal.loads(binascii.a2b_base64('{code}')))"))
            });
        Ok(Interpreter { executable: OsString::from(executable), runner, dirs, bwrap: None })
    }

    /// Run every submission under `bwrap` from now on.
    pub(crate) fn use_bwrap(&mut self, bwrap: Bubblewrap) {
        self.bwrap = Some(Arc::new(bwrap));
    }

    /// A sandbox in `dir`, showing the submission the `files` of it, for this interpreter.
    pub(crate) fn sandbox(&self, dir: PathBuf, files: &[&OsStr], limits: Limits) -> Sandbox {
        let runner = self.runner.clone().unwrap_or_else(|| Arc::from(RUNNER));
        let (code, source) = match &self.bwrap {
            // The process limit is the first thing the submission's Python does (see `apply`);
            // `resource` is a built-in module, so it costs the start-up nothing it would notice.
            // In a user namespace of its own (bwrap makes one unless it is installed setuid) the
            // kernel counts the processes of that namespace against it, so the margin alone is
            // the limit; otherwise the count is the user's, as without bubblewrap.
            Some(_) => {
                let own = capped(libc::RLIMIT_NPROC, PROCESS_MARGIN + SANDBOX_PROCESSES);
                let shared = capped(libc::RLIMIT_NPROC, limits.processes);
                let first = format!(
                    "import resource as _r\n\
                     with open('/proc/self/uid_map') as _f: _n = {shared} if _f.read().split()[:3] == ['0', '0', '4294967295'] else {own}\n\
                     _r.setrlimit(_r.RLIMIT_NPROC, (_n, _n)); del _r, _f, _n\n"
                );
                (Arc::from(format!("{first}{runner}")), Arc::from(format!("{first}{}", RUNNER)))
            }
            None => (runner, Arc::from(RUNNER)),
        };
        let files = files.iter().map(|f| f.to_os_string()).collect();
        Sandbox { dir, files, limits, code, source, bwrap: self.bwrap.clone() }
    }
}

/// bubblewrap, found and tried: it started this interpreter in a sandbox with these mounts.
#[derive(Clone, Debug)]
pub(crate) struct Bubblewrap {
    program: PathBuf,
    /// `bubblewrap 0.8.0`, as it says.
    pub version: String,
    /// The read-only view of the system and of the interpreter, as bwrap arguments.
    mounts: Mounts,
}

/// The system's folders, mounted first, and the interpreter's, mounted after the private `/tmp`
/// (an interpreter can live under `/tmp`, such as a venv made there).
#[derive(Clone, Debug, Default)]
struct Mounts {
    system: Vec<OsString>,
    interpreter: Vec<OsString>,
}

/// Why bubblewrap cannot sandbox here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unusable {
    /// False when there is no `bwrap` program at all.
    pub installed: bool,
    pub why: String,
}

/// What `probe` runs inside: the process is in a PID namespace of its own (a low PID) and the
/// root it sees is read-only; `resource` (which every submission's first line imports) is there.
const PROBE: &str = "import os, sys, resource\n\
ok = os.getpid() < 100 and not os.access('/', os.W_OK)\n\
sys.stdout.write('sandboxed' if ok else 'not held: pid %d (its own PID namespace would give a low one), root writable: %s' % (os.getpid(), os.access('/', os.W_OK)))\n";

impl Bubblewrap {
    /// Find bwrap (`WORKSHOP_BWRAP`, else on PATH) and start `python` under it once, with the
    /// sandbox every submission gets. `Err` says why it cannot be used here.
    pub(crate) fn probe(python: &Interpreter) -> Result<Bubblewrap, Unusable> {
        let named = std::env::var_os("WORKSHOP_BWRAP").filter(|p| !p.is_empty());
        let program = match &named {
            Some(path) => Some(PathBuf::from(path)).filter(|p| p.is_file()),
            None => on_path("bwrap"),
        };
        let Some(program) = program else {
            let why = match named {
                Some(path) => format!("there is no bwrap at {} (from WORKSHOP_BWRAP)", Path::new(&path).display()),
                None => "bubblewrap is not installed (no bwrap on PATH)".into(),
            };
            return Err(Unusable { installed: false, why });
        };
        let unusable = |why: String| Unusable { installed: true, why };
        let mut version = Command::new(&program);
        version.arg("--version");
        let version = match run_bounded(version, Duration::from_secs(10)) {
            Ok((status, out, _)) if status.success() && !out.trim().is_empty() => out.trim().to_string(),
            Ok((status, _, err)) => {
                return Err(unusable(format!("{} --version failed ({status}): {}", program.display(), last_line(&err))))
            }
            Err(why) => return Err(unusable(format!("{} would not run: {why}", program.display()))),
        };
        let bwrap = Bubblewrap { program, version, mounts: mounts(&python.dirs) };
        let folder = Folder::new().map_err(|e| unusable(format!("could not make a folder to try it in: {e}")))?;
        let probe = OsStr::new("probe.py");
        folder
            .write(probe, b"")
            .map_err(|e| unusable(format!("could not write in {}: {e}", folder.path().display())))?;
        let sandbox = Sandbox {
            dir: folder.path().to_path_buf(),
            files: vec![probe.to_os_string()],
            limits: Limits::for_grading(Duration::from_secs(1)),
            code: Arc::from(PROBE),
            source: Arc::from(PROBE),
            bwrap: Some(Arc::new(bwrap.clone())),
        };
        let mut command = sandbox.command(&python.executable);
        command.args(["-I", "-S", "-c", PROBE]);
        sandbox.apply(&mut command, &[]);
        let what = format!("{} could not start Python in a sandbox", bwrap.version);
        match run_bounded(command, Duration::from_secs(20)) {
            Ok((_, out, _)) if out == "sandboxed" => Ok(bwrap),
            Ok((_, out, _)) if out.starts_with("not held: ") => Err(unusable(format!(
                "{} started Python, but the sandbox did not hold ({})",
                bwrap.version,
                out.trim_start_matches("not held: ")
            ))),
            Ok((status, out, err)) => {
                let said = if err.trim().is_empty() { out } else { err };
                let said = last_line(&said);
                Err(unusable(if said.is_empty() { format!("{what} ({status})") } else { format!("{what}: {said}") }))
            }
            Err(why) => Err(unusable(format!("{what}: {why}"))),
        }
    }
}

fn last_line(text: &str) -> String {
    text.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").chars().take(300).collect()
}

/// `name` in a folder of PATH, as an executable file.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// The read-only view every sandbox gets: `/usr` and the top-level folders of libraries and
/// programs (recreated as the links they are on merged-/usr systems), the few files of `/etc` the
/// dynamic loader, the time zone and Debian's alternatives need, and the interpreter's own
/// folders wherever it lives (a pyenv under a home folder). Nothing else of the host: no home
/// folders, no other users' files, no sockets under `/run`, and not the submissions.
fn mounts(interpreter: &[PathBuf]) -> Mounts {
    let mut args: Vec<OsString> = Vec::new();
    let push = |args: &mut Vec<OsString>, words: &[&OsStr]| args.extend(words.iter().map(|w| w.to_os_string()));
    let ro = OsStr::new("--ro-bind");
    let mut covered: Vec<PathBuf> = vec![PathBuf::from("/usr")];
    push(&mut args, &[ro, OsStr::new("/usr"), OsStr::new("/usr")]);
    for top in ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] {
        let Ok(meta) = std::fs::symlink_metadata(top) else { continue };
        if meta.file_type().is_symlink() {
            if let Ok(target) = std::fs::read_link(top) {
                push(&mut args, &[OsStr::new("--symlink"), target.as_os_str(), OsStr::new(top)]);
            }
        } else if meta.is_dir() {
            push(&mut args, &[ro, OsStr::new(top), OsStr::new(top)]);
        }
        covered.push(PathBuf::from(top));
    }
    let try_ro = OsStr::new("--ro-bind-try");
    for file in [
        // The dynamic loader reads only its cache at run time (`ld.so.conf` is ldconfig's), and
        // each file shown is a mount that costs every start.
        "/etc/ld.so.cache",
        "/etc/localtime",
        "/etc/alternatives",
        "/nix/store",
    ] {
        push(&mut args, &[try_ro, OsStr::new(file), OsStr::new(file)]);
    }
    // Each folder at its real place only: the interpreter is started by its real path, and the
    // folder of a link to it (which may hold anything of the operator's) is never shown.
    let mut binds: Vec<(PathBuf, PathBuf)> = Vec::new();
    for dir in interpreter {
        let Ok(real) = dir.canonicalize() else { continue };
        let inside = |c: &PathBuf| real.starts_with(c);
        if real == Path::new("/") || covered.iter().any(inside) || binds.iter().any(|(_, d)| real.starts_with(d)) {
            continue;
        }
        binds.retain(|(_, d)| !d.starts_with(&real));
        binds.push((real.clone(), real));
    }
    binds.sort();
    let mut own = Vec::new();
    for (source, dest) in &binds {
        push(&mut own, &[ro, source.as_os_str(), dest.as_os_str()]);
    }
    Mounts { system: args, interpreter: own }
}

impl Sandbox {
    /// Whether it runs under bubblewrap.
    pub(super) fn bwrap(&self) -> bool {
        self.bwrap.is_some()
    }

    /// The code for `python -c`: the compiled runner when there is one, else its source.
    pub(super) fn runner_code(&self) -> &str {
        &self.code
    }

    /// The code for `python -c` with the runner's source, for when the compiled one would not load.
    pub(super) fn runner_source(&self) -> &str {
        &self.source
    }

    /// The command that starts `python` in this sandbox, before the bridge adds Python's own
    /// arguments: `bwrap <namespaces and mounts> -- python`, or `python` itself without bubblewrap.
    pub(super) fn command(&self, python: &OsStr) -> Command {
        let Some(bwrap) = &self.bwrap else { return Command::new(python) };
        let mut command = Command::new(&bwrap.program);
        let size = |bytes: u64| ["--size".to_string(), bytes.to_string()];
        command
            .args(["--unshare-user-try", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"])
            .args(["--unshare-cgroup-try", "--hostname", "workshop-sandbox"])
            // Everything inside dies with bwrap, which dies with the workshop (see `reap`); a new
            // session has no controlling terminal to type into; root gets no capabilities.
            .args(["--die-with-parent", "--new-session", "--cap-drop", "ALL"])
            .args(&bwrap.mounts.system)
            // bwrap leaves most of its /proc writable, /proc/sys among it: host-wide kernel settings
            // (core_pattern, drop_caches) for a sandbox whose uid is root's. All of it read-only.
            .args(["--proc", "/proc", "--remount-ro", "/proc", "--dev", "/dev"])
            .args(size(SHM_SIZE))
            .args(["--tmpfs", "/dev/shm", "--remount-ro", "/dev"])
            .args(size(TMPFS_SIZE))
            .args(["--tmpfs", "/tmp"])
            .args(&bwrap.mounts.interpreter)
            .args(size(TMPFS_SIZE))
            .arg("--tmpfs")
            .arg(&self.dir);
        for file in &self.files {
            let path = self.dir.join(file);
            command.arg("--ro-bind").arg(&path).arg(&path);
        }
        command.args(["--remount-ro", "/"]).arg("--chdir").arg(&self.dir).arg("--clearenv");
        for (name, value) in self.environment() {
            command.arg("--setenv").arg(name).arg(value);
        }
        command.arg("--").arg(python);
        command
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
            (libc::RLIMIT_AS, self.limits.address_space),
            (libc::RLIMIT_NPROC, processes),
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
        demote(cmd);
    }
}

/// The user and group a submission runs as when `grade` runs as root: `nobody`, who owns nothing
/// the sandbox shows. Under bubblewrap, uid 0 in the sandbox would be the host's root (a user
/// namespace made by root maps root to itself), free to write whatever root owns and the
/// sandbox shows, such as kernel settings; without it, the submission would simply be root.
pub(crate) const GRADER: u32 = 65_534;

/// Whether this process runs as root, so its submissions run as [`GRADER`].
pub(crate) fn as_root() -> bool {
    // SAFETY: geteuid(2) cannot fail and takes nothing.
    unsafe { libc::geteuid() == 0 }
}

/// As root, make `cmd` drop to [`GRADER`] (no supplementary groups) before it execs: bwrap then
/// makes its namespaces as an ordinary user. Registered before the spawner's own step (the
/// parent-death signal, which a change of user would clear), as every `pre_exec` runs in order.
fn demote(cmd: &mut Command) {
    if !as_root() {
        return;
    }
    // SAFETY: setgroups(2), setgid(2) and setuid(2) are async-signal-safe, take values fixed
    // before the fork, and allocate nothing.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setgroups(0, std::ptr::null()) != 0 || libc::setgid(GRADER) != 0 || libc::setuid(GRADER) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Folders made for submissions that still exist: removed by `remove_folders` if the workshop
/// quits on a signal, when no destructor runs. `None` once they were removed: the workshop is
/// quitting, and no folder is made after (a grading thread may still be on its way to one).
static FOLDERS: Mutex<Option<Vec<PathBuf>>> = Mutex::new(Some(Vec::new()));

/// A fresh folder for one submission, readable by its owner only (0700), with an unpredictable
/// name; removed when dropped, and on SIGINT, SIGTERM and SIGHUP. As root, it belongs to
/// [`GRADER`], the user the submission runs as.
pub(crate) struct Folder {
    dir: tempfile::TempDir,
}

impl Folder {
    pub(crate) fn new() -> std::io::Result<Folder> {
        // Made under the lock, so a quit either comes first (and none is made) or removes it.
        let mut folders = FOLDERS.lock().unwrap_or_else(|e| e.into_inner());
        let Some(list) = folders.as_mut() else {
            return Err(std::io::Error::other("the workshop is quitting"));
        };
        let dir = tempfile::Builder::new()
            .prefix("workshop-grade-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()?;
        list.push(dir.path().to_path_buf());
        drop(folders);
        let folder = Folder { dir };
        folder.hand_over(folder.path())?;
        Ok(folder)
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Write a file the submission will read: its own copy, as root handed to [`GRADER`].
    pub(crate) fn write(&self, name: &OsStr, bytes: &[u8]) -> std::io::Result<PathBuf> {
        let path = self.path().join(name);
        std::fs::write(&path, bytes)?;
        self.hand_over(&path)?;
        Ok(path)
    }

    fn hand_over(&self, path: &Path) -> std::io::Result<()> {
        match as_root() {
            true => std::os::unix::fs::chown(path, Some(GRADER), Some(GRADER)),
            false => Ok(()),
        }
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let mut folders = FOLDERS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(list) = folders.as_mut() {
            list.retain(|f| f != self.dir.path());
        }
    }
}

/// The workshop is quitting on a signal: remove every submission's folder now, and make no more.
/// Called after the workers were killed, so nothing writes into them meanwhile.
pub(crate) fn remove_folders() {
    let folders = FOLDERS.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
    for folder in folders {
        let _ = std::fs::remove_dir_all(folder);
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
    use std::os::unix::fs::MetadataExt;
    // SAFETY: getuid(2) cannot fail.
    let uid = unsafe { libc::getuid() };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    // A process's folder in /proc belongs to its user: one stat each, not a read of its status,
    // on a machine that may run thousands.
    let mut count = 0;
    for entry in entries.flatten() {
        let name: OsString = entry.file_name();
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

    fn words(args: &[OsString]) -> Vec<String> {
        args.iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn the_interpreters_folders_are_shown_once_and_the_system_is_not_shown_twice() {
        let home = tempfile::tempdir().unwrap();
        let prefix = home.path().join("py");
        std::fs::create_dir_all(prefix.join("bin")).unwrap();
        let real = prefix.canonicalize().unwrap();
        let Mounts { system, interpreter } =
            mounts(&[prefix.clone(), prefix.join("bin"), PathBuf::from("/usr/lib"), PathBuf::from("/")]);
        let args = words(&[system, interpreter].concat());
        let shown = real.to_string_lossy().into_owned();
        let binds: Vec<&[String]> = args.windows(3).filter(|w| w[0] == "--ro-bind").collect();
        assert!(binds.iter().any(|w| w[1] == shown && w[2] == shown), "{args:?}");
        assert_eq!(binds.iter().filter(|w| w[2].starts_with(&shown)).count(), 1, "the bin folder is inside: {args:?}");
        assert_eq!(binds.iter().filter(|w| w[2] == "/usr").count(), 1, "{args:?}");
        assert!(!binds.iter().any(|w| w[2] == "/" || w[2] == "/usr/lib"), "{args:?}");
        assert!(!args.iter().any(|a| a == "/home" || a == "/root" || a == "/run" || a == "/tmp"), "{args:?}");
    }

    #[test]
    fn a_folder_is_private_and_goes_when_dropped() {
        let folder = Folder::new().unwrap();
        let path = folder.path().to_path_buf();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o700);
        let copy = folder.write(OsStr::new("errors.py"), b"x = 1").unwrap();
        assert_eq!(std::fs::read(&copy).unwrap(), b"x = 1");
        drop(folder);
        assert!(!path.exists(), "dropping removes it");
        // Removal on a quit (which also closes the list for good) is `grade_trust`'s signal tests.
    }

    /// The sandbox of `errors.py` in `/tmp/workshop-grade-x`, under `bwrap` when one is given.
    fn sandbox_of(bwrap: Option<Bubblewrap>) -> Sandbox {
        let mut python =
            Interpreter { executable: "/usr/bin/python3".into(), runner: None, dirs: Vec::new(), bwrap: None };
        if let Some(bwrap) = bwrap {
            python.use_bwrap(bwrap);
        }
        let limits = Limits::for_grading(Duration::from_secs(1));
        python.sandbox(PathBuf::from("/tmp/workshop-grade-x"), &[OsStr::new("errors.py")], limits)
    }

    #[test]
    fn without_bubblewrap_the_command_is_python_itself() {
        let command = sandbox_of(None).command(OsStr::new("python3"));
        assert_eq!(command.get_program(), "python3");
        assert_eq!(command.get_args().count(), 0);
    }

    #[test]
    fn under_bubblewrap_the_submission_gets_namespaces_a_private_folder_and_no_environment() {
        // An interpreter in a venv under /tmp: shown over the private /tmp, not hidden by it.
        let venv = tempfile::tempdir().unwrap();
        let venv_path = venv.path().canonicalize().unwrap();
        let mounts = mounts(std::slice::from_ref(&venv_path));
        let bwrap = Bubblewrap { program: "/usr/bin/bwrap".into(), version: "bubblewrap 0.8.0".into(), mounts };
        let command = sandbox_of(Some(bwrap)).command(OsStr::new("/usr/bin/python3"));
        assert_eq!(command.get_program(), "/usr/bin/bwrap");
        let args: Vec<String> = command.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        let text = args.join(" ");
        for wanted in [
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--die-with-parent",
            "--new-session",
            "--cap-drop ALL",
            "--proc /proc --remount-ro /proc",
            "--dev /dev",
            "--size 33554432 --tmpfs /tmp",
            "--size 33554432 --tmpfs /tmp/workshop-grade-x",
            "--ro-bind /tmp/workshop-grade-x/errors.py /tmp/workshop-grade-x/errors.py",
            "--remount-ro /",
            "--chdir /tmp/workshop-grade-x",
            "--clearenv",
            "--setenv HOME /tmp/workshop-grade-x",
        ] {
            assert!(text.contains(wanted), "{wanted} missing: {text}");
        }
        assert!(text.ends_with("-- /usr/bin/python3"), "{text}");
        // The private file systems come before the read-only remount of the root.
        let at = |w: &str| args.iter().position(|a| a == w).unwrap();
        let root_read_only = args.windows(2).position(|w| w[0] == "--remount-ro" && w[1] == "/").unwrap();
        assert!(at("--tmpfs") < root_read_only);
        let private_tmp = args.windows(2).position(|w| w[0] == "--tmpfs" && w[1] == "/tmp").unwrap();
        assert!(at(venv_path.to_str().unwrap()) > private_tmp, "{text}");
        assert!(!args.iter().any(|a| a.contains("GITHUB_TOKEN")));
    }
}
