//! One running Python process with the runner in it: started, spoken to, and killed with everything
//! it started (`reap`) when it is done or dropped.

use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use super::capture::{capture_pipe, Capture};
use super::config::passed_on;
use super::ending::Death;
use super::outcome::{stopped_message, with_dropped};
use super::runner::{forget_compiled_runner, runner_code, RUNNER};
use super::{reap, BridgeConfig, LoadError, LoadKind, NoPython, Stop, ANSWER_LIMIT, OUTPUT_CAP};

/// A running Python process that has loaded the learner's file.
pub(super) struct Worker {
    pub child: Child,
    pub stdin: ChildStdin,
    /// The runner's answers, read on this thread with poll(2), so an answer costs no thread hop.
    pub answers: ChildStdout,
    /// Bytes read past the last complete answer.
    pub pending: Vec<u8>,
    /// How much of `pending` is known to hold no newline, so each byte is looked at once.
    pub scanned: usize,
    pub capture: Capture,
    pub next_id: u64,
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
    pub(super) fn launch(cfg: &BridgeConfig, stop: &Stop, deferred: bool) -> Result<(Worker, Instant), LoadError> {
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
    pub(super) fn begin(cfg: &BridgeConfig, code: &str, stop: &Stop, deferred: bool) -> Result<Worker, LoadError> {
        let fail = LoadError::new;
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
                return Err(NoPython::new(&cfg.python, "there is no such program").into())
            }
            Err(e) => return Err(NoPython::new(&cfg.python, e.to_string()).into()),
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
            killed_by: None,
        })
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

impl Drop for Worker {
    fn drop(&mut self) {
        kill_group(&mut self.child);
    }
}

/// Kill the process, everything it started, and reap it.
pub(super) fn kill_group(child: &mut Child) {
    reap::kill_all(child);
}
