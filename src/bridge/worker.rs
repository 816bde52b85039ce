//! One running Python process with the runner in it: started, spoken to, and killed with everything
//! it started (`reap`) when it is done or dropped.

use std::os::fd::RawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use super::capture::{capture_pipe, Capture};
use super::config::passed_on;
use super::ending::Death;
use super::outcome::{stopped_message, with_dropped};
use super::process::Process;
use super::runner::{forget_compiled_runner, runner_code, RUNNER};
use super::{reap, BridgeConfig, LoadError, LoadKind, NoPython, Stop, ANSWER_LIMIT, OUTPUT_CAP};

/// Set in the environment of a runner that makes itself unreachable from other processes of
/// its user as it starts (the lesson's world, a graded file).
const OUT_OF_REACH: &str = "WORKSHOP_OUT_OF_REACH";

/// A running Python process that has loaded the learner's file.
pub(super) struct Worker {
    pub child: Process,
    pub stdin: ChildStdin,
    /// The runner's answers, read on this thread with poll(2), so an answer costs no thread hop.
    pub answers: ChildStdout,
    /// Bytes read past the last complete answer.
    pub pending: Vec<u8>,
    /// How much of `pending` is known to hold no newline, so each byte is looked at once.
    pub scanned: usize,
    pub capture: Capture,
    /// The id of the last request written, and of the last answer read: the next answer is
    /// `answered + 1`'s.
    pub next_id: u64,
    pub answered: u64,
    /// Requests written ahead of their calls (`send_ahead`), their answers not read yet: each
    /// one's id and the length of its frame, which may still be in the pipe while a call before
    /// it runs.
    pub ahead: Vec<(u64, usize)>,
    pub load_output: String,
    pub stop: Stop,
    /// It is bubblewrap, which reports a Python killed by a signal as an exit code.
    pub sandboxed: bool,
    /// The signal that killed it, once it was seen to die of one.
    pub killed_by: Option<i32>,
}

impl Worker {
    /// Start Python on the cached runner. If that interpreter cannot import it (a corrupt
    /// compiled copy, the cache gone, an odd file system), the compiled copy is removed and the
    /// import tried once more, so Python writes a sound one for the next run; then the runner's
    /// source is sent instead.
    pub(super) fn spawn(cfg: &BridgeConfig, stop: &Stop) -> Result<Worker, LoadError> {
        let (worker, deadline) = Worker::launch(cfg, stop, false)?;
        worker.load(cfg, deadline)
    }

    /// Start Python and wait for the runner's hello. `deferred`: the runner waits for the file
    /// to load in a first request (a spare process, started before the file is known).
    pub(super) fn launch(
        cfg: &BridgeConfig,
        stop: &Stop,
        deferred: bool,
    ) -> Result<(Worker, Instant), LoadError> {
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

    /// Start Python on `code`, without waiting for it to answer: in the sandbox started for it
    /// ahead of its turn when there is one (see `Ahead`).
    pub(super) fn begin(
        cfg: &BridgeConfig,
        code: &str,
        stop: &Stop,
        deferred: bool,
    ) -> Result<Worker, LoadError> {
        let ahead = cfg
            .sandbox
            .as_ref()
            .filter(|_| !deferred && !stop.is_stopped())
            .and_then(|s| s.take_ahead());
        if let Some(worker) = ahead.and_then(|ahead| ahead.go(cfg, code, stop)) {
            return Ok(worker);
        }
        Worker::started(cfg, code, stop, deferred, Handed::Nothing)
    }

    /// The sandbox of `cfg` made now, waiting before it starts Python on `code` until its turn
    /// comes (see `Ahead`); `None` when it could not be.
    pub(super) fn ahead(cfg: &BridgeConfig, code: &str) -> Option<Ahead> {
        use std::os::fd::AsRawFd;
        let (read, go) = super::pipe::cloexec_pipe().ok()?;
        // The end bubblewrap waits on, opened for writing too: it is then a writer of its own
        // pipe, so the pipe never reads as closed, and it goes on only when told (never because
        // the workshop died; the lifeline kills it then). Through /proc: bubblewrap is Linux's.
        let path = format!("/proc/self/fd/{}", read.as_raw_fd());
        let wait = std::fs::OpenOptions::new().read(true).write(true).open(path).ok()?;
        drop(read);
        let worker =
            Worker::started(cfg, code, &Stop::default(), false, Handed::Wait(wait.as_raw_fd()))
                .ok()?;
        Some(Ahead {
            worker,
            go: std::fs::File::from(go),
            code: code.to_string(),
            python: cfg.python.clone(),
            file: cfg.file.clone(),
            functions: cfg.functions.clone(),
        })
    }

    /// Start Python on `code`, without waiting for it to answer, keeping the descriptors
    /// `handed` (see `Handed`).
    pub(super) fn started(
        cfg: &BridgeConfig,
        code: &str,
        stop: &Stop,
        deferred: bool,
        handed: Handed,
    ) -> Result<Worker, LoadError> {
        let fail = LoadError::new;
        if stop.is_stopped() {
            return Err(fail(LoadKind::Died, stopped_message()));
        }
        let (capture, for_child) = capture_pipe().map_err(|e| {
            fail(LoadKind::Died, format!("could not make a pipe for the learner's output: {e}"))
        })?;
        let own_mark = reap::worker_mark();
        // Under bubblewrap the sandbox's own program comes first (`bwrap ... -- python`).
        let mut command = match &cfg.sandbox {
            Some(sandbox) => sandbox.command(&cfg.python, handed.wait()),
            None => Command::new(&cfg.python),
        };
        // -S: no `site` at start-up, most of an interpreter's start; the runner completes it for
        // a file that needs it. A deferred runner is told its file and functions when it loads.
        let (file, rest) = handed.runner_args(cfg, deferred);
        command
            .args(["-I", "-S", "-c", code])
            .arg(file)
            .arg(OUTPUT_CAP.to_string())
            .arg(ANSWER_LIMIT.to_string())
            .args(rest)
            .env_clear()
            .envs(std::env::vars_os().filter(|(name, _)| name.to_str().is_some_and(passed_on)))
            .env(reap::MARK, &own_mark)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(for_child));
        let sandboxed = cfg.sandbox.as_ref().is_some_and(|s| s.bwrap());
        if !sandboxed {
            // bubblewrap starts in a session of its own, which is a group of its own too.
            command.process_group(0);
        }
        out_of_reach(cfg, &mut command, &own_mark);
        // The lesson's world is one process every grading thread asks: it keeps to no thread's core.
        // The warm-up's forking runner starts while this thread reads the lesson: off its core.
        let place = match handed {
            Handed::Fork(..) if cfg.sandbox.is_none() => reap::Place::AwayFromThisThread,
            _ if cfg.world => reap::Place::Anywhere,
            _ => reap::Place::WithThisThread,
        };
        let mut child =
            match reap::spawn(command, sandboxed, &handed.kept(cfg, deferred, sandboxed), place) {
                Ok(child) => child,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(NoPython::new(&cfg.python, "there is no such program").into())
                }
                Err(e) => return Err(NoPython::new(&cfg.python, e.to_string()).into()),
            };
        if cfg.world {
            super::cores::follows_its_asker(child.id());
        }
        let (stdin, stdout) = (child.stdin.take(), child.stdout.take());
        let mut child = Process::Started(child);
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
            kill_group(&mut child);
            return Err(fail(
                LoadKind::Died,
                "the Python process started without its pipes".into(),
            ));
        };
        Ok(Worker::of(child, stdin, stdout, capture, stop, sandboxed))
    }

    /// A worker of `child`, spoken to on `stdin` and `answers`, its output read from `capture`.
    pub(super) fn of(
        child: Process,
        stdin: ChildStdin,
        answers: ChildStdout,
        capture: std::fs::File,
        stop: &Stop,
        sandboxed: bool,
    ) -> Worker {
        Worker {
            child,
            stdin,
            answers,
            pending: Vec::new(),
            scanned: 0,
            capture: Capture::new(capture),
            next_id: 0,
            answered: 0,
            ahead: Vec::new(),
            load_output: String::new(),
            stop: stop.clone(),
            sandboxed,
            killed_by: None,
        }
    }

    /// Why the process ended, from its exit status, and the output it left in the capture pipe.
    /// The channel can close while the process lives on (it closed its own descriptors), so the
    /// wait is bounded and the group is killed after it.
    pub(super) fn death(&mut self) -> Death {
        let until = Instant::now() + Duration::from_millis(500);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => break None,
            }
        };
        kill_group(&mut self.child);
        let death = Death { status, output: self.read_capture(), sandboxed: self.sandboxed };
        self.killed_by = death.signal();
        death
    }

    /// Output of a call that never answered, with a note on what was past the cap.
    pub(super) fn read_capture(&mut self) -> String {
        let (output, over) = self.capture.take();
        with_dropped(output, over)
    }
}

/// A file's sandbox made ahead of its turn (`grade` makes the next file's while it grades one):
/// bubblewrap has made its namespaces and mounts, then waits, before it starts Python, for a
/// byte on a pipe. Nothing of the file has run. Told to go, it starts Python as any sandbox
/// does; dropped untold, it is killed with its group (its waiting child has not left it yet).
pub(super) struct Ahead {
    worker: Worker,
    go: std::fs::File,
    /// What it was started for, which a start must ask for to get it.
    code: String,
    python: std::ffi::OsString,
    file: std::path::PathBuf,
    functions: Vec<String>,
}

impl std::fmt::Debug for Ahead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a sandbox made ahead, process {}", self.worker.child.id())
    }
}

impl Ahead {
    /// The worker, told to go on, when it was made for this start (and bubblewrap still reads
    /// its pipe). One that died waiting is found out by the wait for the runner's hello, as a
    /// Python that died starting is.
    fn go(self, cfg: &BridgeConfig, code: &str, stop: &Stop) -> Option<Worker> {
        use std::io::Write;
        let Ahead { mut worker, mut go, code: made_for, python, file, functions } = self;
        let same = made_for == code
            && python == cfg.python
            && file == cfg.file
            && functions == cfg.functions;
        if !same || go.write_all(b"g").is_err() {
            return None;
        }
        worker.stop = stop.clone();
        Some(worker)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        kill_group(&mut self.child);
    }
}

/// Kill the process, everything it started, and reap it.
pub(super) fn kill_group(child: &mut Process) {
    reap::kill_all(child);
}

/// Descriptors a Python started by `Worker::started` keeps beyond its three, by their numbers.
#[derive(Clone, Copy)]
pub(super) enum Handed {
    Nothing,
    /// bubblewrap waits on this one before it starts Python (see `Ahead`).
    Wait(RawFd),
    /// A deferred runner forks a second spare first, which takes these as its requests,
    /// answers and output (see `warm`), having read ahead the file given, if any.
    Fork([RawFd; 3], Option<&'static Path>),
}

impl Handed {
    fn wait(self) -> Option<RawFd> {
        match self {
            Handed::Wait(fd) => Some(fd),
            _ => None,
        }
    }

    /// What the runner is given for its file, and the arguments after the limits: `-` for a
    /// deferred runner (its file and functions come with its first request), `=` for one that
    /// first forks a second spare, followed by that spare's three descriptors and the file to
    /// read ahead.
    fn runner_args(
        self,
        cfg: &BridgeConfig,
        deferred: bool,
    ) -> (&std::ffi::OsStr, Vec<std::ffi::OsString>) {
        match self {
            Handed::Fork(fds, ahead) if deferred => {
                let fds = fds.iter().map(|fd| fd.to_string().into());
                ("=".as_ref(), fds.chain(ahead.map(|file| file.as_os_str().to_owned())).collect())
            }
            _ if deferred => ("-".as_ref(), Vec::new()),
            _ => (cfg.file.as_os_str(), cfg.functions.iter().map(Into::into).collect()),
        }
    }

    /// The descriptors the started program keeps: bubblewrap's, or the forking runner's.
    fn kept(self, cfg: &BridgeConfig, deferred: bool, sandboxed: bool) -> Vec<RawFd> {
        match self {
            Handed::Wait(fd) if sandboxed => vec![fd],
            Handed::Fork(fds, _) if deferred && cfg.sandbox.is_none() => fds.to_vec(),
            _ => Vec::new(),
        }
    }
}

// Its one test is of where a worker may run: cores are chosen on Linux only.
#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    /// The cores a started "Python" (a script that sleeps) may run on, started as `handed` says.
    fn cores_of_one_started(handed: impl FnOnce([RawFd; 3]) -> Handed) -> u32 {
        let dir = tempfile::tempdir().unwrap();
        let python = dir.path().join("python");
        std::fs::write(&python, "#!/bin/sh\nexec sleep 30\n").unwrap();
        std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
        let cfg = BridgeConfig {
            python: python.into_os_string(),
            file: std::path::PathBuf::new(),
            shown_as: String::new(),
            functions: Vec::new(),
            timeout: Duration::from_secs(5),
            sandbox: None,
            world: false,
        };
        let (a, b) = rustix::pipe::pipe().unwrap();
        let (c, _d) = rustix::pipe::pipe().unwrap();
        let handed = handed([a.as_raw_fd(), b.as_raw_fd(), c.as_raw_fd()]);
        let worker = Worker::started(&cfg, "pass", &Stop::default(), true, handed).unwrap();
        let pid = rustix::process::Pid::from_raw(worker.child.id() as i32);
        rustix::thread::sched_getaffinity(pid).unwrap().count()
    }

    /// The runner that forks the learner's spare, started while this thread still reads the
    /// lesson, starts on every core this thread may use but the one it is on (where there is
    /// another); any other runner where this thread may run.
    #[test]
    fn the_forking_runner_starts_off_this_threads_core() {
        let _serial = reap::tests::MARKED.lock().unwrap_or_else(|e| e.into_inner());
        let usable = rustix::thread::sched_getaffinity(None).unwrap().count();
        let forking = cores_of_one_started(|fds| Handed::Fork(fds, None));
        assert_eq!(forking, if usable > 1 { usable - 1 } else { usable }, "{usable} usable");
        assert_eq!(cores_of_one_started(|_| Handed::Nothing), usable);
    }
}

/// The world, and every graded file, keep other processes of their user from tracing them or
/// opening their /proc files (see `_dumpable` in runner/start.py); a sandboxed file's command
/// gets its sandbox, keeping the worker's mark and that setting.
fn out_of_reach(cfg: &BridgeConfig, command: &mut Command, own_mark: &str) {
    let reach: &[(&str, &str)] = match cfg.world || cfg.sandbox.is_some() {
        true => &[(OUT_OF_REACH, "1")],
        false => &[],
    };
    command.envs(reach.iter().copied());
    if let Some(sandbox) = &cfg.sandbox {
        let mut keep = vec![(reap::MARK, own_mark)];
        keep.extend_from_slice(reach);
        sandbox.apply(command, &keep);
    }
}
