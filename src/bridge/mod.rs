//! The learner's Python: one process per command, spoken to on a private channel (requests in
//! Python's `marshal` format, answers as JSON lines).
//!
//! `runner.py` moves the protocol off fds 0 and 1 before the learner's file loads, so whatever the
//! learner's process (or anything it starts) writes to fds 1 and 2 lands in a capture pipe, which
//! this side drains while it waits, keeping the first `OUTPUT_CAP` bytes of each call and counting
//! the rest. Every call has a deadline;
//! a process that hangs or dies is killed with everything it started (`reap`), and the next call
//! starts a fresh one.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

mod cache;
mod reap;
pub(crate) use reap::quitting;
pub(crate) mod sandbox;
mod shim;

const RUNNER: &str = include_str!("runner.py");

/// How Python gets the runner: `-c` with the source compiled on every start, or (the fast way)
/// an import of a copy in the user's cache folder, whose bytecode Python caches beside it.
/// Compiling the runner costs about as much as the interpreter's own start-up, so this is most
/// of what keeps a `check` close to a bare `python3 -I` run.
fn runner_code() -> &'static str {
    static CODE: OnceLock<String> = OnceLock::new();
    CODE.get_or_init(|| cached_runner().unwrap_or_else(|| RUNNER.to_string()))
}

/// Where the cached copy of the runner lives, and its module name.
static CACHED: OnceLock<(PathBuf, String)> = OnceLock::new();

/// Remove the compiled cached runner (every interpreter's), so the next import compiles it
/// afresh. False when there was none to remove.
fn forget_compiled_runner() -> bool {
    let Some((dir, module)) = CACHED.get() else { return false };
    let Ok(entries) = std::fs::read_dir(dir.join("__pycache__")) else { return false };
    let prefix = format!("{module}.");
    let mut removed = false;
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            removed |= std::fs::remove_file(entry.path()).is_ok();
        }
    }
    removed
}

/// `import sys; sys.path.insert(0, <cache>); import workshop_runner_<hash>`, once the copy is in
/// place; `None` when there is no private cache folder to write to.
fn cached_runner() -> Option<String> {
    let dir = crate::files::cache_dir()?;
    // FNV-1a of the source: a new runner gets a new module name, so no stale bytecode is used.
    let hash = crate::fnv::fnv1a(RUNNER.as_bytes());
    let module = format!("workshop_runner_{hash:016x}");
    let path = dir.join(format!("{module}.py"));
    if std::fs::read(&path).ok().as_deref() != Some(RUNNER.as_bytes()) {
        std::fs::create_dir_all(&dir).ok()?;
        let temp = dir.join(format!(".{module}.{}.tmp", std::process::id()));
        std::fs::write(&temp, RUNNER).ok()?;
        if std::fs::rename(&temp, &path).is_err() {
            let _ = std::fs::remove_file(&temp);
            return None;
        }
    }
    cache::vet(&dir, &module);
    let _ = CACHED.set((dir.clone(), module.clone()));
    let dir = crate::pyrepr::string(dir.to_str()?);
    Some(format!("import sys; sys.path.insert(0, {dir}); import {module}"))
}

/// A request as the runner reads it: its length (4 bytes, little-endian), then the value in
/// Python's `marshal` format, which the interpreter reads with a module built into it, where JSON
/// would cost every start the loading of `_json`. Only the plain types JSON has are written
/// (None, booleans, integers, floats, strings, lists, dicts), in codes every Python 3 reads.
fn request_frame(value: &Value) -> Vec<u8> {
    let mut out = vec![0; 4];
    marshal(value, &mut out);
    let length = u32::try_from(out.len() - 4).unwrap_or(u32::MAX);
    out[..4].copy_from_slice(&length.to_le_bytes());
    out
}

fn marshal(value: &Value, out: &mut Vec<u8>) {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
    match value {
        Value::Null => out.push(b'N'),
        Value::Bool(true) => out.push(b'T'),
        Value::Bool(false) => out.push(b'F'),
        Value::Number(n) => {
            if let Some(small) = n.as_i64().and_then(|i| i32::try_from(i).ok()) {
                out.push(b'i');
                out.extend_from_slice(&small.to_le_bytes());
            } else if let Some(big) = n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from)) {
                // A long: its magnitude in 15-bit digits, least significant first; the count
                // carries the sign.
                let mut digits = Vec::new();
                let mut rest = big.unsigned_abs();
                while rest > 0 {
                    digits.push((rest & 0x7fff) as u16);
                    rest >>= 15;
                }
                let n = digits.len() as i32;
                out.push(b'l');
                out.extend_from_slice(&(if big < 0 { -n } else { n }).to_le_bytes());
                for digit in digits {
                    out.extend_from_slice(&digit.to_le_bytes());
                }
            } else {
                out.push(b'g');
                out.extend_from_slice(&n.as_f64().unwrap_or(f64::NAN).to_le_bytes());
            }
        }
        Value::String(s) => {
            out.push(b'u');
            out.extend_from_slice(&count(s.len()));
            out.extend_from_slice(s.as_bytes());
        }
        Value::Array(items) => {
            out.push(b'[');
            out.extend_from_slice(&count(items.len()));
            for item in items {
                marshal(item, out);
            }
        }
        Value::Object(map) => {
            out.push(b'{');
            for (key, item) in map {
                marshal(&Value::String(key.clone()), out);
                marshal(item, out);
            }
            out.push(b'0');
        }
    }
}

/// The environment variables the learner's Python gets (and everything it starts): what it needs
/// to find programs, decode text and tell the time, its home and temporary folder, and a pyenv
/// shim's choice of interpreter. Everything else (API keys, tokens, `PYTHON*`) stays with the
/// workshop.
fn passed_on(name: &str) -> bool {
    matches!(name, "PATH" | "LANG" | "LANGUAGE" | "TZ" | "HOME" | "TMPDIR" | "PYENV_VERSION" | "PYENV_ROOT")
        || name.starts_with("LC_")
}

/// How much of the learner's output one call keeps.
pub(crate) const OUTPUT_CAP: usize = 8 * 1024;

/// The largest answer one call may give, as JSON. A bigger value is reported with its size.
pub(crate) const ANSWER_LIMIT: usize = 8 * 1024 * 1024;

/// Room in an answer line beyond the value: the envelope and a location.
const ANSWER_SLACK: usize = 64 * 1024;

/// How often a wait looks up to see whether the bridge was stopped.
const STOP_CHECK: Duration = Duration::from_millis(20);

/// Set from another thread, it ends a bridge's Python within a moment: the wait running then
/// ends (a call as `Unavailable`, a load as an error) and no new process starts. For a caller
/// that must quit without waiting out a deadline (the player, on `q`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Stop(Arc<AtomicBool>);

impl Stop {
    pub(crate) fn stop(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub(crate) fn is_stopped(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

fn stopped_message() -> String {
    "stopped: the workshop is quitting".into()
}

/// Loading gets the call deadline plus this, for the interpreter's own start-up on a busy machine.
const STARTUP_ALLOWANCE: Duration = Duration::from_secs(2);

/// What to run and how.
#[derive(Clone, Debug)]
pub(crate) struct BridgeConfig {
    pub python: OsString,
    /// The learner's file, as the process opens it.
    pub file: PathBuf,
    /// The file as messages name it (usually relative to the workshop root).
    pub shown_as: String,
    /// Functions the file must define.
    pub functions: Vec<String>,
    pub timeout: Duration,
    /// For untrusted files: a scrubbed environment, a fresh folder and resource limits.
    pub sandbox: Option<sandbox::Sandbox>,
}

impl BridgeConfig {
    /// The interpreter: `WORKSHOP_PYTHON`, else `python3` from PATH.
    pub(crate) fn default_python() -> OsString {
        std::env::var_os("WORKSHOP_PYTHON").filter(|p| !p.is_empty()).unwrap_or_else(|| OsString::from("python3"))
    }

    /// The interpreter a learner's file runs with: [`default_python`](Self::default_python),
    /// started directly rather than through a version manager's shim (see `shim`), once per
    /// command.
    pub(crate) fn learner_python() -> OsString {
        static BEHIND: OnceLock<OsString> = OnceLock::new();
        BEHIND.get_or_init(|| shim::behind(&BridgeConfig::default_python())).clone()
    }

    fn timeout_text(&self) -> String {
        seconds(self.timeout)
    }
}

/// `1 s`, `0.5 s`: a duration as the learner reads it.
pub(crate) fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

/// Where in the learner's file something happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Location {
    /// The file as messages name it.
    pub file: String,
    pub line: u32,
    pub function: Option<String>,
    pub code: String,
}

/// How one call of a learner's function ended.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Outcome {
    Returned(Value),
    /// It raised; the message is `Type: text`.
    Raised {
        message: String,
        location: Option<Location>,
    },
    /// It returned something JSON cannot carry (a set, an object, a lone surrogate).
    NotJson {
        message: String,
    },
    /// `sys.exit`, `os._exit`, or the process died under it.
    Exited {
        message: String,
    },
    TimedOut {
        limit: String,
    },
    /// An earlier call killed the process and a fresh one would not load.
    Unavailable {
        message: String,
    },
    /// It returned a value whose JSON is over `ANSWER_LIMIT` bytes.
    TooBig {
        bytes: u64,
    },
    /// The answer channel carried a line that is not the answer to this call (a forged or
    /// out-of-order line): nothing more from that process is trusted.
    Garbled {
        message: String,
    },
}

impl Outcome {
    /// One line for a failed call; `None` when it returned.
    pub(crate) fn problem(&self) -> Option<String> {
        match self {
            Outcome::Returned(_) => None,
            Outcome::Raised { message, location } => Some(match location {
                Some(at) => format!("raised {message} ({}, line {}: {})", at.file, at.line, at.code),
                None => format!("raised {message}"),
            }),
            Outcome::NotJson { message } => Some(format!("returned a value that is not JSON: {message}")),
            Outcome::Exited { message } => Some(message.clone()),
            Outcome::TimedOut { limit } => Some(format!("did not return within {limit}: an infinite loop?")),
            Outcome::TooBig { bytes } => Some(format!(
                "returned a value of {} as JSON, more than the {} a call may return: return something smaller",
                size_text(*bytes),
                size_text(ANSWER_LIMIT as u64)
            )),
            Outcome::Unavailable { message } | Outcome::Garbled { message } => Some(message.clone()),
        }
    }
}

/// One call: its outcome and what the learner printed meanwhile.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Call {
    pub outcome: Outcome,
    pub output: String,
    /// Bytes of output past the cap, not kept.
    pub dropped: u64,
}

impl Call {
    /// The printed output with a note when some was cut.
    pub(crate) fn shown_output(&self) -> String {
        with_dropped(self.output.clone(), self.dropped)
    }
}

fn with_dropped(output: String, dropped: u64) -> String {
    if dropped == 0 {
        output
    } else {
        format!("{}\n… {dropped} more bytes not shown", output.trim_end())
    }
}

pub(crate) use crate::files::size_text;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadKind {
    NoPython,
    Syntax,
    Import,
    Exception,
    Missing,
    Exit,
    Timeout,
    Died,
    Unreadable,
    /// The answer channel carried a line the runner did not write.
    Garbled,
}

/// The learner's file could not be loaded, so nothing in it can be called.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct LoadError {
    pub kind: LoadKind,
    /// What happened, naming the file and line where there is one.
    pub message: String,
    /// What the file printed while loading.
    pub output: String,
}

#[derive(Deserialize)]
struct Frame {
    line: u32,
    function: String,
    code: String,
}

#[derive(Deserialize)]
struct Answer {
    /// The request answered; 0 for the answer to loading.
    id: Option<u64>,
    #[serde(default)]
    ok: bool,
    #[serde(default)]
    ready: bool,
    value: Option<Value>,
    kind: Option<String>,
    message: Option<String>,
    #[serde(default)]
    frames: Vec<Frame>,
    load_error: Option<LoadReport>,
    /// Bytes of output the runner counted past the cap instead of writing them.
    #[serde(default)]
    dropped: u64,
    /// The size of a value too big to send.
    size: Option<u64>,
}

#[derive(Deserialize)]
struct LoadReport {
    kind: String,
    message: String,
    line: Option<u32>,
    code: Option<String>,
    #[serde(default)]
    frames: Vec<Frame>,
}

fn location(frames: &[Frame], file: &str) -> Option<Location> {
    frames.last().map(|f| Location {
        file: file.to_string(),
        line: f.line,
        function: (f.function != "<module>").then(|| f.function.clone()),
        code: f.code.clone(),
    })
}

/// A running Python process that has loaded the learner's file.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    /// The runner's answers, read on this thread with poll(2), so an answer costs no thread hop.
    answers: ChildStdout,
    /// Bytes read past the last complete answer.
    pending: Vec<u8>,
    /// How much of `pending` is known to hold no newline, so each byte is looked at once.
    scanned: usize,
    capture: Capture,
    next_id: u64,
    load_output: String,
    stop: Stop,
    /// It is bubblewrap, which reports a Python killed by a signal as an exit code.
    sandboxed: bool,
}

enum Wait {
    Line(String),
    Died(Death),
    TimedOut,
    Stopped,
    /// A line longer than any answer can be, this many bytes so far.
    TooLong(usize),
}

/// The read end of the pipe the learner's fds 1 and 2 write to, and what the current call kept.
struct Capture {
    /// `None` once every writer has closed it.
    pipe: Option<File>,
    kept: Vec<u8>,
    over: u64,
}

impl Capture {
    fn keep(&mut self, data: &[u8]) {
        let room = OUTPUT_CAP.saturating_sub(self.kept.len()).min(data.len());
        self.kept.extend_from_slice(&data[..room]);
        self.over += (data.len() - room) as u64;
    }

    /// Read one chunk if there is one; false when there was nothing to read now.
    fn read_some(&mut self) -> bool {
        let Some(pipe) = self.pipe.as_mut() else { return false };
        let mut chunk = [0u8; 64 * 1024];
        match pipe.read(&mut chunk) {
            Ok(0) => {
                self.pipe = None;
                false
            }
            Ok(n) => {
                self.keep(&chunk[..n]);
                true
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => true,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => false,
            Err(_) => {
                self.pipe = None;
                false
            }
        }
    }

    /// What the pipe holds now, without waiting. Bounded, so a process that keeps writing cannot
    /// keep this side here.
    fn drain(&mut self) {
        for _ in 0..64 {
            if !self.read_some() {
                return;
            }
        }
    }

    /// The current call's output and the bytes past the cap; the next call starts empty.
    fn take(&mut self) -> (String, u64) {
        self.drain();
        let text = String::from_utf8_lossy(&self.kept).into_owned();
        self.kept.clear();
        (text, std::mem::take(&mut self.over))
    }
}

/// A pipe for the learner's output: the read end non-blocking for this side, the write end for the
/// child. Both close on exec, so no other process the workshop starts holds them.
fn capture_pipe() -> std::io::Result<(File, std::os::fd::OwnedFd)> {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe2(2) fills the two-element array it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    let (read, write) =
        unsafe { (std::os::fd::OwnedFd::from_raw_fd(fds[0]), std::os::fd::OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: fcntl(2) on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fds[0], libc::F_GETFL);
        libc::fcntl(fds[0], libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
    Ok((File::from(read), write))
}

/// How a process ended, and what it wrote that the runner had not yet handed back.
struct Death {
    /// `None`: it closed the channel but would not exit, and was killed.
    status: Option<ExitStatus>,
    output: String,
    /// The status is bubblewrap's (see `Worker::sandboxed`).
    sandboxed: bool,
}

/// How a process ended, read from its status.
#[derive(Debug, PartialEq, Eq)]
enum Ending {
    Exited(i32),
    /// By a signal; `reported` is the exit code bubblewrap gave for it (128 + the signal).
    Killed {
        signal: i32,
        reported: Option<i32>,
    },
    Other,
}

impl Ending {
    fn of(status: ExitStatus, sandboxed: bool) -> Ending {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            // bubblewrap's init exits with 128 + N when the command was killed by signal N, as a
            // shell reports it (its status says nothing else).
            (Some(code), _) if sandboxed && (129..=128 + 64).contains(&code) => {
                Ending::Killed { signal: code - 128, reported: Some(code) }
            }
            (Some(code), _) => Ending::Exited(code),
            (None, Some(signal)) => Ending::Killed { signal, reported: None },
            _ => Ending::Other,
        }
    }

    /// `killed by signal 11 (SIGSEGV, a crash)`, with how the sandbox said it.
    fn killed(signal: i32, reported: Option<i32>) -> String {
        let what = match signal {
            libc::SIGSEGV | libc::SIGBUS | libc::SIGILL | libc::SIGFPE => {
                signal_name(signal).map(|n| format!("{n}, a crash"))
            }
            libc::SIGABRT => Some("SIGABRT, an abort".into()),
            libc::SIGKILL => Some("SIGKILL, killed outright".into()),
            libc::SIGXCPU => Some("SIGXCPU, its CPU time ran out".into()),
            _ => signal_name(signal).map(str::to_string),
        };
        let said = reported.map(|code| {
            format!("the sandbox reports that as exit code {code}, which os._exit({code}) would also give")
        });
        match [what, said].into_iter().flatten().collect::<Vec<_>>().join("; ") {
            both if both.is_empty() => format!("it was killed by signal {signal}"),
            both => format!("it was killed by signal {signal} ({both})"),
        }
    }
}

/// A signal's name, `SIGTERM`, for the signals a learner's code meets.
fn signal_name(signal: i32) -> Option<&'static str> {
    let named = [
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGPIPE, "SIGPIPE"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGXCPU, "SIGXCPU"),
        (libc::SIGXFSZ, "SIGXFSZ"),
    ];
    named.iter().find(|(n, _)| *n == signal).map(|(_, name)| *name)
}

impl Death {
    fn ending(&self) -> Option<Ending> {
        self.status.map(|status| Ending::of(status, self.sandboxed))
    }

    /// Why, as the learner reads it: their code is the likely cause.
    fn note(&self) -> String {
        match self.ending() {
            Some(Ending::Exited(code)) => format!("it exited with code {code} (os._exit, or a crash)"),
            Some(Ending::Killed { signal, reported }) => Ending::killed(signal, reported),
            Some(Ending::Other) => "it ended".into(),
            None => "it closed its channel to the workshop".into(),
        }
    }

    /// Why, as said of an interpreter that never started the runner.
    fn plain(&self) -> String {
        match self.ending() {
            Some(Ending::Exited(code)) => format!("it exited with code {code}"),
            Some(Ending::Killed { signal, reported }) => Ending::killed(signal, reported),
            _ => "it ended".into(),
        }
    }
}

impl Worker {
    /// Start Python on the cached runner. If that interpreter cannot import it (a corrupt
    /// compiled copy, the cache gone, an odd file system), the compiled copy is removed and the
    /// import tried once more, so Python writes a sound one for the next run; then the runner's
    /// source is sent instead.
    fn spawn(cfg: &BridgeConfig, stop: &Stop) -> Result<Worker, LoadError> {
        let (worker, deadline) = Worker::launch(cfg, stop, false)?;
        worker.load(cfg, deadline)
    }

    /// Start Python and wait for the runner's hello. `deferred`: the runner waits for the file
    /// to load in a first request (a spare process, started before the file is known).
    fn launch(cfg: &BridgeConfig, stop: &Stop, deferred: bool) -> Result<(Worker, Instant), LoadError> {
        // The shared cache is writable by whoever runs as this user: a sandboxed file gets its
        // runner from the command line, so nothing another submission left there runs instead.
        let code = match &cfg.sandbox {
            Some(sandbox) => sandbox.runner_code(),
            None => runner_code(),
        };
        let source = cfg.sandbox.as_ref().map_or(RUNNER, |sandbox| sandbox.runner_source());
        match Worker::launch_with(cfg, code, stop, deferred) {
            Err(e) if e.kind == LoadKind::NoPython && code != source => {
                if cfg.sandbox.is_none() && forget_compiled_runner() {
                    if let Ok(started) = Worker::launch_with(cfg, code, stop, deferred) {
                        return Ok(started);
                    }
                }
                Worker::launch_with(cfg, source, stop, deferred)
            }
            other => other,
        }
    }

    fn launch_with(
        cfg: &BridgeConfig,
        code: &str,
        stop: &Stop,
        deferred: bool,
    ) -> Result<(Worker, Instant), LoadError> {
        let started = Instant::now();
        Worker::begin(cfg, code, stop, deferred)?.greet(cfg, started)
    }

    /// Start Python on `code`, without waiting for it to answer.
    fn begin(cfg: &BridgeConfig, code: &str, stop: &Stop, deferred: bool) -> Result<Worker, LoadError> {
        let fail = |kind, message: String| LoadError { kind, message, output: String::new() };
        if stop.is_stopped() {
            return Err(fail(LoadKind::Died, stopped_message()));
        }
        let (capture, for_child) = capture_pipe()
            .map_err(|e| fail(LoadKind::Died, format!("could not make a pipe for the learner's output: {e}")))?;
        let own_mark = reap::worker_mark();
        // Under bubblewrap the sandbox's own program comes first (`bwrap ... -- python`).
        let mut command = match &cfg.sandbox {
            Some(sandbox) => sandbox.command(&cfg.python),
            None => Command::new(&cfg.python),
        };
        // -S: no `site` at start-up, most of an interpreter's start; the runner completes it for
        // a file that needs it. A deferred runner is told its file and functions when it loads.
        command
            .args(["-I", "-S", "-c", code])
            .arg(if deferred { std::ffi::OsStr::new("-") } else { cfg.file.as_os_str() })
            .arg(OUTPUT_CAP.to_string())
            .arg(ANSWER_LIMIT.to_string())
            .args(if deferred { &[][..] } else { &cfg.functions[..] })
            .env_clear()
            .envs(std::env::vars_os().filter(|(name, _)| name.to_str().is_some_and(passed_on)))
            .env(reap::MARK, &own_mark)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(for_child))
            .process_group(0);
        if let Some(sandbox) = &cfg.sandbox {
            sandbox.apply(&mut command, &[(reap::MARK, own_mark.as_str())]);
        }
        let sandboxed = cfg.sandbox.as_ref().is_some_and(|s| s.bwrap());
        let mut child = match reap::spawn(command, sandboxed) {
            Ok(child) => child,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(fail(LoadKind::NoPython, no_python(&cfg.python, "there is no such program")))
            }
            Err(e) => return Err(fail(LoadKind::NoPython, no_python(&cfg.python, &e.to_string()))),
        };
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            kill_group(&mut child);
            return Err(fail(LoadKind::Died, "the Python process started without its pipes".into()));
        };
        Ok(Worker {
            child,
            stdin,
            answers: stdout,
            pending: Vec::new(),
            scanned: 0,
            capture: Capture { pipe: Some(capture), kept: Vec::new(), over: 0 },
            next_id: 0,
            load_output: String::new(),
            stop: stop.clone(),
            sandboxed,
        })
    }

    /// Wait for the hello of a runner started at `started`.
    fn greet(mut self, cfg: &BridgeConfig, started: Instant) -> Result<(Worker, Instant), LoadError> {
        let fail = |kind, message: String| LoadError { kind, message, output: String::new() };
        let worker = &mut self;
        let deadline = started + cfg.timeout + STARTUP_ALLOWANCE;
        // The runner says hello before it touches the learner's file, so an interpreter that is
        // not a working Python 3 is told apart from a file that kills it.
        match worker.wait_line(deadline) {
            Wait::Line(line) if serde_json::from_str::<Value>(&line).is_ok_and(|v| v["hello"] == true) => {
                if cfg.sandbox.is_none() {
                    cache::runner_started();
                }
            }
            Wait::Line(_) | Wait::TooLong(_) => {
                kill_group(&mut worker.child);
                return Err(fail(LoadKind::NoPython, no_python(&cfg.python, "it did not run the workshop's runner")))
            }
            Wait::Died(death) => {
                let last = death.output.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
                let why = if last.is_empty() { death.plain() } else { format!("{}: {last}", death.plain()) };
                return Err(fail(LoadKind::NoPython, no_python(&cfg.python, &why)));
            }
            Wait::Stopped => {
                kill_group(&mut worker.child);
                return Err(fail(LoadKind::Died, stopped_message()));
            }
            Wait::TimedOut => {
                return Err(fail(
                    LoadKind::Timeout,
                    format!(
                        "Python did not start within {}: is the machine very busy? Try again, or give more time with --timeout.",
                        seconds(cfg.timeout + STARTUP_ALLOWANCE)
                    ),
                ))
            }
        }
        Ok((self, deadline))
    }

    /// Wait for the runner to load the learner's file (and, for a spare, ask it to first).
    fn load(mut self, cfg: &BridgeConfig, deadline: Instant) -> Result<Worker, LoadError> {
        let worker = &mut self;
        let fail = |kind, message: String| LoadError { kind, message, output: String::new() };
        let line = match worker.wait_line(deadline) {
            Wait::Line(line) => line,
            Wait::TimedOut => {
                kill_group(&mut worker.child);
                return Err(LoadError {
                    kind: LoadKind::Timeout,
                    message: format!(
                        "{} did not finish loading within {}: does it loop or wait at import time?",
                        cfg.shown_as,
                        seconds(cfg.timeout + STARTUP_ALLOWANCE)
                    ),
                    output: worker.read_capture(),
                });
            }
            Wait::Died(death) => {
                return Err(LoadError {
                    kind: LoadKind::Died,
                    message: format!("Python stopped while loading {}: {}", cfg.shown_as, death.note()),
                    output: death.output,
                })
            }
            Wait::Stopped => {
                kill_group(&mut worker.child);
                return Err(fail(LoadKind::Died, stopped_message()));
            }
            Wait::TooLong(bytes) => {
                kill_group(&mut worker.child);
                return Err(LoadError {
                    kind: LoadKind::Garbled,
                    message: garbled(
                        &cfg.shown_as,
                        "while it loaded",
                        &format!("{} without an end", size_text(bytes as u64)),
                    ),
                    output: worker.read_capture(),
                });
            }
        };
        let answer = match serde_json::from_str::<Answer>(&line) {
            Ok(answer) if answer.id == Some(0) => answer,
            _ => {
                kill_group(&mut worker.child);
                return Err(LoadError {
                    kind: LoadKind::Garbled,
                    message: garbled(&cfg.shown_as, "while it loaded", &line),
                    output: worker.read_capture(),
                });
            }
        };
        let (output, over) = worker.capture.take();
        let output = with_dropped(output, over + answer.dropped);
        if let Some(report) = answer.load_error {
            return Err(LoadError { output, ..load_error(cfg, report) });
        }
        if !answer.ready {
            return Err(fail(LoadKind::Died, "the Python runner did not say it was ready".into()));
        }
        worker.load_output = output;
        Ok(self)
    }

    /// The next answer line, or why none came before the deadline. The learner's output is
    /// drained meanwhile, so a process writing a lot never blocks on a full pipe. Each byte of an
    /// answer is looked at once, however many reads it takes to arrive.
    fn wait_line(&mut self, deadline: Instant) -> Wait {
        use std::os::fd::AsRawFd;
        loop {
            if let Some(at) = self.pending[self.scanned..].iter().position(|&b| b == b'\n') {
                let end = self.scanned + at;
                let line: Vec<u8> = self.pending.drain(..=end).collect();
                self.scanned = 0;
                return Wait::Line(String::from_utf8_lossy(&line[..end]).into_owned());
            }
            self.scanned = self.pending.len();
            if self.pending.len() > ANSWER_LIMIT + ANSWER_SLACK {
                return Wait::TooLong(self.pending.len());
            }
            if self.stop.is_stopped() {
                return Wait::Stopped;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Wait::TimedOut;
            }
            let capture = self.capture.pipe.as_ref().map(|p| p.as_raw_fd()).unwrap_or(-1);
            let mut fds = [
                libc::pollfd { fd: self.answers.as_raw_fd(), events: libc::POLLIN, revents: 0 },
                // A negative descriptor is skipped by poll(2): the capture pipe has closed.
                libc::pollfd { fd: capture, events: libc::POLLIN, revents: 0 },
            ];
            let slice = left.min(STOP_CHECK);
            let millis = libc::c_int::try_from(slice.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
            // SAFETY: poll(2) on two pollfds that live for the call.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), 2, millis) };
            if ready < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Wait::Died(self.death());
            }
            if fds[1].revents != 0 {
                self.capture.read_some();
            }
            if fds[0].revents == 0 {
                continue; // the deadline check above decides
            }
            // Readable (or hung up): this read returns at once.
            let mut chunk = [0u8; 64 * 1024];
            match self.answers.read(&mut chunk) {
                Ok(0) => return Wait::Died(self.death()),
                Ok(n) => self.pending.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Wait::Died(self.death()),
            }
        }
    }

    /// Why the process ended, from its exit status, and the output it left in the capture pipe.
    /// The channel can close while the process lives on (it closed its own descriptors), so the
    /// wait is bounded and the group is killed after it.
    fn death(&mut self) -> Death {
        let until = Instant::now() + Duration::from_millis(500);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => break None,
            }
        };
        kill_group(&mut self.child);
        Death { status, output: self.read_capture(), sandboxed: self.sandboxed }
    }

    fn call(&mut self, cfg: &BridgeConfig, function: &str, args: &[Value]) -> (Call, bool) {
        self.next_id += 1;
        let request = serde_json::json!({"id": self.next_id, "fn": function, "args": args});
        let deadline = Instant::now() + cfg.timeout;
        let dead = |message: String, output: String| Call { outcome: Outcome::Exited { message }, output, dropped: 0 };
        // One write per request: the pipe is unbuffered, and a piecemeal write would reach Python
        // in dozens of pieces, each a wake-up.
        if self.stdin.write_all(&request_frame(&request)).is_err() {
            let death = self.death();
            return (dead(format!("the Python process had ended: {}", death.note()), death.output), false);
        }
        let line = match self.wait_line(deadline) {
            Wait::Line(line) => line,
            Wait::TimedOut => {
                // The runner takes the next request as soon as it has answered one. Still in the
                // pipe after a whole deadline (and a start-up's allowance more, for a machine too
                // busy to run it), this one was never taken: the runner was busy with the call
                // before all along, so the answer that came for that call was not its.
                let untaken = self.request_untaken_within(STARTUP_ALLOWANCE);
                kill_group(&mut self.child);
                let output = self.read_capture();
                let outcome = if untaken {
                    let message = garbled(
                        &cfg.shown_as,
                        &format!("before the call to {function}"),
                        "an answer to the call before it, which was still running",
                    );
                    Outcome::Garbled { message }
                } else {
                    Outcome::TimedOut { limit: cfg.timeout_text() }
                };
                return (Call { outcome, output, dropped: 0 }, false);
            }
            Wait::Died(death) => {
                let message = format!("the Python process ended during the call: {}", death.note());
                return (dead(message, death.output), false);
            }
            Wait::Stopped => {
                kill_group(&mut self.child);
                let call = Call {
                    outcome: Outcome::Unavailable { message: stopped_message() },
                    output: String::new(),
                    dropped: 0,
                };
                return (call, false);
            }
            Wait::TooLong(bytes) => {
                // The runner measures what it sends, so this is a line it did not write.
                kill_group(&mut self.child);
                let what = format!("{} without an end", size_text(bytes as u64));
                let message = garbled(&cfg.shown_as, &format!("during the call to {function}"), &what);
                return (
                    Call { outcome: Outcome::Garbled { message }, output: self.read_capture(), dropped: 0 },
                    false,
                );
            }
        };
        match serde_json::from_str::<Answer>(&line) {
            Ok(answer) if answer.id == Some(self.next_id) => {
                let outcome = if answer.ok {
                    Outcome::Returned(answer.value.unwrap_or(Value::Null))
                } else {
                    let message = answer.message.unwrap_or_default();
                    match answer.kind.as_deref() {
                        Some("not_json") => Outcome::NotJson { message },
                        Some("too_big") => Outcome::TooBig { bytes: answer.size.unwrap_or_default() },
                        Some("exit") => Outcome::Exited {
                            message: match location(&answer.frames, &cfg.shown_as) {
                                Some(at) => format!("{message} ({}, line {}: {})", at.file, at.line, at.code),
                                None => message,
                            },
                        },
                        _ => Outcome::Raised { message, location: location(&answer.frames, &cfg.shown_as) },
                    }
                };
                let (output, over) = self.capture.take();
                (Call { outcome, output, dropped: over + answer.dropped }, true)
            }
            _ => {
                kill_group(&mut self.child);
                let message = garbled(&cfg.shown_as, &format!("during the call to {function}"), &line);
                (Call { outcome: Outcome::Garbled { message }, output: self.read_capture(), dropped: 0 }, false)
            }
        }
    }

    /// Whether bytes of the last request are still in the pipe, not taken by the runner, after
    /// waiting up to `grace` for it to take them.
    fn request_untaken_within(&self, grace: Duration) -> bool {
        use std::os::fd::AsRawFd;
        let until = Instant::now() + grace;
        loop {
            let mut waiting: libc::c_int = 0;
            // SAFETY: ioctl(2) FIONREAD on a pipe we hold, writing into a local integer. On a
            // pipe's write end it counts the bytes not yet read, as on its read end.
            let asked = unsafe { libc::ioctl(self.stdin.as_raw_fd(), libc::FIONREAD, &mut waiting) };
            if asked != 0 || waiting == 0 {
                return false;
            }
            if Instant::now() >= until {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Ask the runner, idle after its last answer, to answer at once: the next line must be
    /// that answer. A line before it (a second answer to a call) or none in time (the runner
    /// was still busy with a call already answered) means an answer did not come from it.
    fn in_step(&mut self, cfg: &BridgeConfig) -> Result<(), String> {
        self.next_id += 1;
        let ping = request_frame(&serde_json::json!({ "id": self.next_id }));
        let when = "after the last call";
        if self.stdin.write_all(&ping).is_err() {
            // It ended after its last answer: nothing it sent is contradicted.
            return Ok(());
        }
        let line = match self.wait_line(Instant::now() + cfg.timeout + STARTUP_ALLOWANCE) {
            Wait::Line(line) => line,
            Wait::Died(_) | Wait::Stopped => return Ok(()),
            Wait::TooLong(bytes) => {
                return Err(garbled(&cfg.shown_as, when, &format!("{} without an end", size_text(bytes as u64))))
            }
            Wait::TimedOut => {
                return Err(garbled(&cfg.shown_as, when, "an answer to a call that was still running"));
            }
        };
        match serde_json::from_str::<Answer>(&line) {
            Ok(answer) if answer.id == Some(self.next_id) && answer.ok => {
                self.capture.take();
                Ok(())
            }
            _ => Err(garbled(&cfg.shown_as, when, &line)),
        }
    }

    /// Output of a call that never answered, with a note on what was past the cap.
    fn read_capture(&mut self) -> String {
        let (output, over) = self.capture.take();
        with_dropped(output, over)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        kill_group(&mut self.child);
    }
}

/// The workshop is quitting (a signal, `q`, or the end of the command): kill every learner process
/// now, wherever it runs, and start none after. Safe to call from any thread.
pub(crate) fn end_everything() {
    reap::end_everything();
    sandbox::remove_folders();
    cache::check_at_end();
}

/// Held by the workshop's own process for the whole command: the learner's orphans come to it
/// (see `reap`), and when it is dropped (the command returned, failed or panicked) every
/// learner process still running is ended.
pub(crate) struct Cleanup(());

impl Cleanup {
    pub(crate) fn for_this_process() -> Cleanup {
        reap::adopt_orphans();
        Cleanup(())
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        end_everything();
    }
}

/// Kill the process, everything it started, and reap it.
fn kill_group(child: &mut Child) {
    reap::kill_all(child);
}

/// A line on the answer channel that is not the awaited answer, as the learner reads it.
fn garbled(file: &str, when: &str, line: &str) -> String {
    let mut shown: String = line.chars().take(80).collect();
    if shown.len() < line.len() {
        shown.push('…');
    }
    format!(
        "{file}: a line that is not the workshop runner's answer came {when} ({shown}). Something in the file writes to a descriptor it did not open, or a forked process wrote as the runner; nothing from that Python process is trusted, so this is no grade."
    )
}

/// The interpreter could not be started, or is not a working Python 3.
fn no_python(python: &std::ffi::OsStr, why: &str) -> String {
    let shown = python.to_string_lossy();
    let from_env = std::env::var_os("WORKSHOP_PYTHON").is_some_and(|p| p == python);
    let whence = match (from_env, shown.contains('/')) {
        (true, _) => " (from WORKSHOP_PYTHON)",
        (false, false) => " (looked up on PATH)",
        (false, true) => "",
    };
    format!("could not run Python 3 as {shown}{whence}: {why}. Install Python 3, or set WORKSHOP_PYTHON to a Python 3 interpreter.")
}

fn load_error(cfg: &BridgeConfig, report: LoadReport) -> LoadError {
    let file = &cfg.shown_as;
    let (kind, message) = match report.kind.as_str() {
        "syntax" => {
            let at = report.line.map(|l| format!(", line {l}")).unwrap_or_default();
            let code = report.code.filter(|c| !c.is_empty()).map(|c| format!("\n    {c}")).unwrap_or_default();
            (LoadKind::Syntax, format!("{file}{at}: {}{code}", report.message))
        }
        "missing" => {
            let names: Vec<&str> = cfg.functions.iter().map(|f| f.split('=').next().unwrap_or(f)).collect();
            (
                LoadKind::Missing,
                format!("{file} has {}: the lesson needs {} defined in it.", report.message, names.join(" and ")),
            )
        }
        "signature" => {
            let at = report.line.map(|l| format!(", line {l}")).unwrap_or_default();
            (
                LoadKind::Missing,
                format!(
                    "{file}{at}: {}. Give it the parameters the lesson names (see ./workshop lesson).",
                    report.message
                ),
            )
        }
        "unreadable" => (LoadKind::Unreadable, format!("could not read {file}: {}", report.message)),
        other => {
            let kind = match other {
                "import" => LoadKind::Import,
                "exit" => LoadKind::Exit,
                _ => LoadKind::Exception,
            };
            let at = match location(&report.frames, &cfg.shown_as) {
                Some(l) => format!(", line {}: {}\n    {}", l.line, report.message, l.code),
                None => format!(": {}", report.message),
            };
            (kind, format!("{file} failed while loading{at}"))
        }
    };
    LoadError { kind, message, output: String::new() }
}

/// A Python process started ahead of time, with the runner imported, waiting to be told which
/// file to load: taking one saves the interpreter's start-up when the file is known (a save in
/// `check --watch`). Dropping it kills it.
pub(crate) struct Spare {
    worker: Worker,
    python: OsString,
}

impl Spare {
    /// Start one for files to be run under `cfg` (its file is not read). `None` when Python
    /// would not start: the next `Bridge` start then says why.
    pub(crate) fn start(cfg: &BridgeConfig) -> Option<Spare> {
        let (worker, _) = Worker::launch(cfg, &Stop::default(), true).ok()?;
        Some(Spare { worker, python: cfg.python.clone() })
    }
}

/// A Python process started at the very beginning of a command, before the lesson and the
/// learner's file are read: its start-up runs beside the workshop's own instead of after it.
struct Warm {
    worker: Worker,
    started: Instant,
    python: OsString,
}

static WARM: std::sync::Mutex<Option<Warm>> = std::sync::Mutex::new(None);

/// Start Python now for the file this command will grade (`WORKSHOP_PYTHON`, else `python3`),
/// without waiting for it. The first `Bridge::start_with_spare` that fits takes it; a command
/// that ends without one kills it with the rest. A Python that will not start is left for that
/// start to report.
pub(crate) fn warm_up() {
    if WARM.lock().map_or(true, |warm| warm.is_some()) {
        return;
    }
    let cfg = BridgeConfig {
        python: BridgeConfig::learner_python(),
        file: PathBuf::new(),
        shown_as: String::new(),
        functions: Vec::new(),
        timeout: Duration::ZERO,
        sandbox: None,
    };
    let started = Instant::now();
    if let Ok(worker) = Worker::begin(&cfg, runner_code(), &Stop::default(), true) {
        if let Ok(mut warm) = WARM.lock() {
            *warm = Some(Warm { worker, started, python: cfg.python });
        }
    }
}

/// The warm Python, told `request` (its file) and greeted, when there is one for `cfg`. The
/// request is written first, so the runner goes from its hello to loading without waiting for
/// this side. Anything wrong with it (a damaged cached runner) is left for a cold start to deal
/// with and report.
fn take_warm(cfg: &BridgeConfig, stop: &Stop, request: &[u8]) -> Option<Worker> {
    let Warm { mut worker, started, python } = WARM.lock().ok()?.take()?;
    if cfg.sandbox.is_some() || python != cfg.python {
        return None;
    }
    worker.stop = stop.clone();
    worker.stdin.write_all(request).ok()?;
    worker.greet(cfg, started).ok().map(|(worker, _)| worker)
}

/// The learner's code, callable. Calls after a hang or a crash go to a fresh process.
pub(crate) struct Bridge {
    cfg: BridgeConfig,
    worker: Option<Worker>,
    stop: Stop,
    /// What the file printed while it first loaded.
    pub load_output: String,
    /// Why the answers so far cannot be trusted, once a line came that the runner did not write.
    untrusted: Option<String>,
}

impl Bridge {
    /// Start Python and load the learner's file, ending (loading included) as soon as `stop` is set.
    pub(crate) fn start_stoppable(cfg: BridgeConfig, stop: Stop) -> Result<Bridge, LoadError> {
        let mut worker = Worker::spawn(&cfg, &stop)?;
        let load_output = std::mem::take(&mut worker.load_output);
        Ok(Bridge { cfg, worker: Some(worker), stop, load_output, untrusted: None })
    }

    /// As `start_stoppable`, loading the file in `spare` when there is one that fits and still
    /// runs; otherwise in a fresh process.
    pub(crate) fn start_with_spare(cfg: BridgeConfig, stop: Stop, spare: Option<Spare>) -> Result<Bridge, LoadError> {
        // A file whose path is not text is started the usual way, with its path as an argument.
        if let Some(path) = cfg.file.to_str() {
            let request = request_frame(&serde_json::json!({ "load": path, "functions": cfg.functions }));
            let told = match spare.filter(|s| s.python == cfg.python && cfg.sandbox.is_none()) {
                Some(Spare { mut worker, .. }) => {
                    let alive = matches!(worker.child.try_wait(), Ok(None));
                    (alive && worker.stdin.write_all(&request).is_ok()).then_some(worker)
                }
                None => take_warm(&cfg, &stop, &request),
            };
            if let Some(mut worker) = told {
                worker.stop = stop.clone();
                let mut worker = worker.load(&cfg, Instant::now() + cfg.timeout + STARTUP_ALLOWANCE)?;
                let load_output = std::mem::take(&mut worker.load_output);
                return Ok(Bridge { cfg, worker: Some(worker), stop, load_output, untrusted: None });
            }
        }
        Bridge::start_stoppable(cfg, stop)
    }

    /// Call `function(*args)` with the per-call deadline.
    pub(crate) fn call(&mut self, function: &str, args: &[Value]) -> Call {
        let worker = match self.worker.take() {
            Some(worker) => worker,
            None => match Worker::spawn(&self.cfg, &self.stop) {
                Ok(worker) => worker,
                Err(e) => {
                    let message = format!("could not reload after the last call ended the process: {}", e.message);
                    return Call { outcome: Outcome::Unavailable { message }, output: e.output, dropped: 0 };
                }
            },
        };
        let mut worker = worker;
        let (call, alive) = worker.call(&self.cfg, function, args);
        if alive {
            self.worker = Some(worker);
        }
        if let (Outcome::Garbled { message }, None) = (&call.outcome, &self.untrusted) {
            self.untrusted = Some(message.clone());
        }
        call
    }

    /// Whether every answer so far was the runner's own: no line came that it did not write, and
    /// the process still running answers at once when asked, with nothing before its answer. A
    /// line written in place of an answer is caught at the next call, and after the last one
    /// here, so it never decides a grade. `Err` says what came instead.
    pub(crate) fn confirm(&mut self) -> Result<(), LoadError> {
        let untrusted = match (self.untrusted.take(), self.worker.as_mut()) {
            (Some(why), _) => Some(why),
            (None, Some(worker)) if !self.stop.is_stopped() => worker.in_step(&self.cfg).err(),
            (None, _) => None,
        };
        match untrusted {
            Some(message) => {
                if let Some(mut worker) = self.worker.take() {
                    kill_group(&mut worker.child);
                }
                Err(LoadError { kind: LoadKind::Garbled, message, output: String::new() })
            }
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_is_read_from_the_status_and_from_the_code_bubblewrap_makes_of_it() {
        use std::os::unix::process::ExitStatusExt;
        let exited = |code: i32| ExitStatus::from_raw(code << 8);
        let killed = ExitStatus::from_raw(libc::SIGSEGV);
        assert_eq!(Ending::of(killed, false), Ending::Killed { signal: 11, reported: None });
        assert_eq!(Ending::of(exited(139), true), Ending::Killed { signal: 11, reported: Some(139) });
        assert_eq!(Ending::of(exited(139), false), Ending::Exited(139));
        for code in [0, 1, 128, 193, 255] {
            assert_eq!(Ending::of(exited(code), true), Ending::Exited(code), "{code}");
        }
        assert_eq!(Ending::killed(libc::SIGXCPU, None), "it was killed by signal 24 (SIGXCPU, its CPU time ran out)");
        assert_eq!(Ending::killed(64, None), "it was killed by signal 64");
        assert_eq!(
            Ending::killed(64, Some(192)),
            "it was killed by signal 64 (the sandbox reports that as exit code 192, which os._exit(192) would also give)"
        );
        let death = Death { status: Some(exited(137)), output: String::new(), sandboxed: true };
        assert!(death.note().starts_with("it was killed by signal 9 (SIGKILL, killed outright; "), "{}", death.note());
    }

    #[test]
    fn python_reads_a_request_frame_as_the_value_it_holds() {
        let value = serde_json::json!({
            "id": 7, "fn": "fail", "args": [
                "transient", "Order 0871 — « wobbly » 🙂", null, true, false, [], {},
                2147483647, 2147483648_i64, -2147483648_i64, -2147483649_i64, u64::MAX, i64::MIN,
                0.1, -1e300, {"nested": [[1, {"a": "b"}]]}
            ]
        });
        let frame = request_frame(&value);
        assert_eq!(u32::from_le_bytes(frame[..4].try_into().unwrap()) as usize, frame.len() - 4);
        let mut python = Command::new(BridgeConfig::default_python())
            .args(["-I", "-S", "-c", "import marshal, sys, json\nd = sys.stdin.buffer.read()\nn = int.from_bytes(d[:4], 'little')\nassert len(d) == 4 + n\nprint(json.dumps(marshal.loads(d[4:])))"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the tests need Python 3");
        python.stdin.take().unwrap().write_all(&frame).unwrap();
        let out = python.wait_with_output().unwrap();
        assert!(out.status.success());
        let back: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(back, value);
    }
}
