//! A worker's start: the runner's hello, then the learner's file loaded.

use std::time::Instant;

use super::outcome::{garbled, stopped_message, with_dropped};
use super::protocol::{hello_version, load_error, other_version, RunnerAnswer, PROTOCOL};
use super::wait::NoLine;
use super::worker::{kill_group, Worker};
use super::{
    cache, seconds, size_text, BridgeConfig, LoadError, LoadKind, NoPython, STARTUP_ALLOWANCE,
};

impl Worker {
    /// Wait for the hello of a runner started at `started`.
    pub(super) fn greet(
        mut self,
        cfg: &BridgeConfig,
        started: Instant,
    ) -> Result<(Worker, Instant), LoadError> {
        let fail = LoadError::new;
        let worker = &mut self;
        let deadline = started + cfg.timeout + STARTUP_ALLOWANCE;
        // The runner says hello before it touches the learner's file, so an interpreter that is
        // not a working Python 3 is told apart from a file that kills it.
        match worker.wait_line(deadline).map(|line| hello_version(line.as_bytes())) {
            Ok(Some(Some(PROTOCOL))) => {
                if cfg.sandbox.is_none() {
                    cache::runner_started();
                }
            }
            Ok(Some(spoken)) => {
                kill_group(&mut worker.child);
                return Err(NoPython::new(&cfg.python, other_version(spoken)).into());
            }
            Ok(_) | Err(NoLine::TooLong(_)) => {
                kill_group(&mut worker.child);
                return Err(NoPython::new(&cfg.python, "it did not run the workshop's runner").into())
            }
            Err(NoLine::Died(death)) => {
                let last = death.output.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
                let why = if last.is_empty() { death.plain() } else { format!("{}: {last}", death.plain()) };
                return Err(LoadError { signal: death.signal(), ..NoPython::new(&cfg.python, why).into() });
            }
            Err(NoLine::Stopped) => {
                kill_group(&mut worker.child);
                return Err(fail(LoadKind::Died, stopped_message()));
            }
            Err(NoLine::HeldStopped) => {
                kill_group(&mut worker.child);
                let why = format!(
                    "{}: its Python was stopped by a signal (SIGSTOP) from outside as it started",
                    cfg.shown_as
                );
                return Err(fail(LoadKind::Died, why));
            }
            Err(NoLine::TimedOut) => {
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
    pub(super) fn load(
        mut self,
        cfg: &BridgeConfig,
        deadline: Instant,
    ) -> Result<Worker, LoadError> {
        let worker = &mut self;
        let fail = LoadError::new;
        let line = match worker.wait_line(deadline) {
            Ok(line) => line,
            Err(no_line) => return Err(worker.not_loaded(cfg, no_line)),
        };
        let answer = match serde_json::from_str::<RunnerAnswer>(&line) {
            Ok(answer) if answer.id == Some(0) => answer,
            _ => {
                kill_group(&mut worker.child);
                return Err(LoadError {
                    kind: LoadKind::Garbled,
                    message: garbled(&cfg.shown_as, "while it loaded", &line),
                    output: worker.read_capture(),
                    no_python: None,
                    signal: None,
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

    /// Why the file did not load when no answer line came; the process is gone (or killed now).
    fn not_loaded(&mut self, cfg: &BridgeConfig, no_line: NoLine) -> LoadError {
        let fail = LoadError::new;
        match no_line {
            NoLine::HeldStopped => {
                kill_group(&mut self.child);
                let message = format!(
                    "{}: its Python was stopped by a signal (SIGSTOP) from outside while it loaded",
                    cfg.shown_as
                );
                LoadError { output: self.read_capture(), ..fail(LoadKind::HeldStopped, message) }
            }
            NoLine::TimedOut => {
                kill_group(&mut self.child);
                LoadError {
                    kind: LoadKind::Timeout,
                    message: format!(
                        "{} did not finish loading within {}: does it loop or wait at import time?",
                        cfg.shown_as,
                        seconds(cfg.timeout + STARTUP_ALLOWANCE)
                    ),
                    output: self.read_capture(),
                    no_python: None,
                    signal: None,
                }
            }
            NoLine::Died(death) => LoadError {
                kind: LoadKind::Died,
                message: format!("Python stopped while loading {}: {}", cfg.shown_as, death.note()),
                signal: death.signal(),
                output: death.output,
                no_python: None,
            },
            NoLine::Stopped => {
                kill_group(&mut self.child);
                fail(LoadKind::Died, stopped_message())
            }
            NoLine::TooLong(bytes) => {
                kill_group(&mut self.child);
                LoadError {
                    kind: LoadKind::Garbled,
                    message: garbled(
                        &cfg.shown_as,
                        "while it loaded",
                        &format!("{} without an end", size_text(bytes as u64)),
                    ),
                    output: self.read_capture(),
                    no_python: None,
                    signal: None,
                }
            }
        }
    }
}
