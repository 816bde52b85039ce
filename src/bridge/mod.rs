//! The learner's Python: one process per command, spoken to on a private channel (requests in
//! Python's `marshal` format, answers as JSON lines).
//!
//! The runner (runner/) moves the protocol off fds 0 and 1 before the learner's file loads, so whatever the
//! learner's process (or anything it starts) writes to fds 1 and 2 lands in a capture pipe, which
//! this side drains while it waits, keeping the first `OUTPUT_CAP` bytes of each call and counting
//! the rest. Every call has a deadline;
//! a process that hangs or dies is killed with everything it started (`reap`), and the next call
//! starts a fresh one.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

mod cache;
mod call;
mod capture;
mod config;
mod cores;
mod ending;
mod load;
mod load_error;
mod marshal;
mod outcome;
mod pipe;
mod process;
mod protocol;
mod reap;
mod runner;
pub(crate) mod sandbox;
mod shim;
mod speed;
mod wait;
mod warm;
mod worker;

pub(crate) use crate::files::size_text;
pub(crate) use config::{seconds, BridgeConfig, ANSWER_LIMIT, OUTPUT_CAP};
pub(crate) use cores::keep_to_a_core_of_its_own;
pub(crate) use load_error::{LoadError, LoadKind, NoPython};
pub(crate) use outcome::{Call, Location, Outcome};
pub(crate) use protocol::PROTOCOL;
pub(crate) use reap::quitting;
pub(crate) use speed::plain;
pub(crate) use warm::{take_turns_on_one_core, warm_up, Spare};

use config::STARTUP_ALLOWANCE;
use marshal::request_frame;
use worker::{kill_group, Worker};

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

/// What a start in a warm Python came to (see `Bridge::told`).
enum WarmStart {
    /// No warm Python fits: the config back, for a start of its own.
    NotWarm(BridgeConfig, Stop),
    /// Loaded; the first call, when one was asked with the load, still to be answered.
    Loaded(Box<Bridge>),
    Failed(LoadError),
}

/// A bridge started with its first call asked (`Bridge::start_asking`), the answer not yet read.
pub(crate) struct Asked {
    bridge: Bridge,
    answer: First,
}

/// The first call's answer: read already (a process started the usual way was asked it in
/// turn), or to be read, for this function.
enum First {
    Answered(Call),
    Pending(String),
}

impl Asked {
    /// Write the request of the call expected after the first (see `Bridge::send_ahead`).
    pub(crate) fn send_ahead(&mut self, function: &str, args: Vec<Value>) -> bool {
        self.bridge.send_ahead(function, args)
    }

    /// The bridge, and the first call's answer, waited for now (within the call's deadline).
    pub(crate) fn answer(self) -> (Bridge, Call) {
        let Asked { mut bridge, answer } = self;
        let call = match answer {
            First::Answered(call) => call,
            First::Pending(function) => match bridge.worker.take() {
                Some(mut worker) => {
                    let (call, alive) = worker.answer(&bridge.cfg, &function);
                    bridge.after(worker, &call, alive);
                    call
                }
                None => {
                    let message = "the process was gone before it answered".to_string();
                    Call {
                        outcome: Outcome::Unavailable { message },
                        output: String::new(),
                        dropped: 0,
                    }
                }
            },
        };
        (bridge, call)
    }
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
    /// The signal that killed the process under the last call, or the one that would not reload.
    killed_by: Option<i32>,
    /// Calls whose requests were written ahead (`send_ahead`), in order, their answers not read yet.
    ahead: VecDeque<(String, Vec<Value>)>,
    /// Answers of calls written ahead, read before their call came (another call's answer was
    /// behind them), kept for it.
    set_aside: Vec<(String, Vec<Value>, Call)>,
}

/// Whether a call written ahead (`asked` with `with`) is this one.
fn same_call(asked: &str, with: &[Value], function: &str, args: &[Value]) -> bool {
    asked == function && with == args
}

/// How many calls may be written ahead at once: the pipe holds their requests while the
/// process loads, and the answers it writes meanwhile must fit in its own pipe.
const AHEAD_AT_MOST: usize = 16;

impl Bridge {
    /// Start Python and load the learner's file, ending (loading included) as soon as `stop` is set.
    pub(crate) fn start_stoppable(cfg: BridgeConfig, stop: Stop) -> Result<Bridge, LoadError> {
        let worker = Worker::spawn(&cfg, &stop)?;
        Ok(Bridge::of(cfg, worker, stop))
    }

    /// A bridge to a worker that has loaded its file, keeping what the file printed as it loaded.
    fn of(cfg: BridgeConfig, mut worker: Worker, stop: Stop) -> Bridge {
        let load_output = std::mem::take(&mut worker.load_output);
        Bridge {
            cfg,
            worker: Some(worker),
            stop,
            load_output,
            untrusted: None,
            killed_by: None,
            ahead: VecDeque::new(),
            set_aside: Vec::new(),
        }
    }

    /// As `start_stoppable`, loading the file in `spare` when there is one that fits and still
    /// runs; otherwise in a fresh process.
    pub(crate) fn start_with_spare(
        cfg: BridgeConfig,
        stop: Stop,
        spare: Option<Spare>,
    ) -> Result<Bridge, LoadError> {
        match Bridge::told(cfg, stop, spare, None) {
            WarmStart::Loaded(bridge) => Ok(*bridge),
            WarmStart::Failed(e) => Err(e),
            WarmStart::NotWarm(cfg, stop) => Bridge::start_stoppable(cfg, stop),
        }
    }

    /// As `start_with_spare`, and the first call too, asked together with the load: a warm Python
    /// goes from loading the file to the call without waiting for this side to ask (the world's
    /// process, whose loading and first call are a `check`'s longest wait). The call's answer is
    /// read by `Asked::answer`, on the thread that needs it.
    pub(crate) fn start_asking(
        cfg: BridgeConfig,
        stop: Stop,
        function: &str,
        args: &[Value],
    ) -> Result<Asked, LoadError> {
        match Bridge::told(cfg, stop, None, Some((function, args))) {
            WarmStart::Loaded(bridge) => {
                Ok(Asked { bridge: *bridge, answer: First::Pending(function.to_string()) })
            }
            WarmStart::Failed(e) => Err(e),
            WarmStart::NotWarm(cfg, stop) => {
                let mut bridge = Bridge::start_stoppable(cfg, stop)?;
                let call = bridge.call(function, args);
                Ok(Asked { bridge, answer: First::Answered(call) })
            }
        }
    }

    /// The file loaded in a warm Python (or `spare`), told the load and the `first` call in one
    /// write (that call's answer is left to be read).
    fn told(
        cfg: BridgeConfig,
        stop: Stop,
        spare: Option<Spare>,
        first: Option<(&str, &[Value])>,
    ) -> WarmStart {
        // A file whose path is not text is started the usual way, with its path as an argument.
        let Some(path) = cfg.file.to_str() else { return WarmStart::NotWarm(cfg, stop) };
        let mut request =
            request_frame(&serde_json::json!({ "load": path, "functions": cfg.functions }));
        if let Some((function, args)) = first {
            request.extend(call::call_frame(1, function, args));
        }
        let Some(mut worker) = warm::told(&cfg, &stop, spare, &request) else {
            return WarmStart::NotWarm(cfg, stop);
        };
        worker.stop = stop.clone();
        let mut worker = match worker.load(&cfg, Instant::now() + cfg.timeout + STARTUP_ALLOWANCE) {
            Ok(worker) => worker,
            Err(e) => return WarmStart::Failed(e),
        };
        if first.is_some() {
            worker.next_id = 1;
        }
        WarmStart::Loaded(Box::new(Bridge::of(cfg, worker, stop)))
    }

    /// Write the request of a call expected to come later (one whose arguments are known before
    /// the process can be asked, such as the world's sample draw while it loads), so the runner
    /// answers it as soon as it is free. The call itself, when it comes with the same arguments,
    /// takes that answer, whichever calls came between; calls written ahead before it that are
    /// not made first are set aside for theirs. Only for calls whose answer, never taken, leaves
    /// nothing the next calls see: a question, or the first call of a world's run, which opens
    /// the run afresh when it is really made.
    /// False when it was not written (too many are waiting, or the process is gone).
    pub(crate) fn send_ahead(&mut self, function: &str, args: Vec<Value>) -> bool {
        if self.ahead.len() >= AHEAD_AT_MOST {
            return false;
        }
        let Some(worker) = self.worker.as_mut() else { return false };
        let sent = worker.send_ahead(function, &args);
        if sent {
            self.ahead.push_back((function.to_string(), args));
        }
        sent
    }

    /// Whether `function(*args)` was written ahead and its answer not taken yet.
    pub(crate) fn is_ahead(&self, function: &str, args: &[Value]) -> bool {
        self.ahead.iter().any(|(asked, with)| same_call(asked, with, function, args))
            || self.set_aside.iter().any(|(asked, with, _)| same_call(asked, with, function, args))
    }

    /// The oldest call written ahead and its answer, read now (so the next answer read is the
    /// next call's); `None` when there is none, or its process is gone (with every one after it).
    fn answer_ahead(&mut self) -> Option<(String, Vec<Value>, Call)> {
        let (asked, with) = self.ahead.pop_front()?;
        let Some(mut worker) = self.worker.take() else {
            self.ahead.clear();
            return None;
        };
        cores::awaiting(worker.child.id());
        let (call, alive) = worker.answer(&self.cfg, &asked);
        if self.ahead.is_empty() {
            // Idle now, with nothing more written ahead: the calls from here on take turns, so
            // it is moved to the one core if it is to be (the requests written ahead left it
            // where it was, see `Worker::send_ahead`).
            cores::asking(worker.child.id());
        }
        self.after(worker, &call, alive);
        if self.worker.is_none() {
            // Its process is gone: the calls written after it will never be answered.
            self.ahead.clear();
        }
        Some((asked, with, call))
    }

    /// Call `function(*args)` with the per-call deadline.
    pub(crate) fn call(&mut self, function: &str, args: &[Value]) -> Call {
        // A call written ahead takes its answer: set aside already, or read now, setting aside
        // those of the calls written before it.
        if let Some(at) = self
            .set_aside
            .iter()
            .position(|(asked, with, _)| same_call(asked, with, function, args))
        {
            return self.set_aside.remove(at).2;
        }
        while let Some((asked, with, call)) = self.answer_ahead() {
            if same_call(&asked, &with, function, args) {
                return call;
            }
            self.set_aside.push((asked, with, call));
        }
        let worker = match self.worker.take() {
            Some(worker) => worker,
            None => {
                // A fresh process answers nothing the last one was asked.
                self.set_aside.clear();
                match Worker::spawn(&self.cfg, &self.stop) {
                    Ok(worker) => worker,
                    Err(e) => {
                        self.killed_by = e.signal;
                        let message = format!(
                            "could not reload after the last call ended the process: {}",
                            e.message
                        );
                        return Call {
                            outcome: Outcome::Unavailable { message },
                            output: e.output,
                            dropped: 0,
                        };
                    }
                }
            }
        };
        let mut worker = worker;
        let (call, alive) = worker.call(&self.cfg, function, args);
        self.after(worker, &call, alive);
        call
    }

    /// What a call leaves: the worker kept when it is to be trusted with the next, and why the
    /// answers cannot be trusted when one was not the runner's.
    fn after(&mut self, worker: Worker, call: &Call, alive: bool) {
        self.killed_by = worker.killed_by;
        if alive {
            self.worker = Some(worker);
        }
        if let (Outcome::Garbled { message }, None) = (&call.outcome, &self.untrusted) {
            self.untrusted = Some(message.clone());
        }
    }

    /// Whether the last call ended because its process was killed by a signal (from outside, or
    /// a crash), rather than exiting or hanging.
    pub(crate) fn killed_by_signal(&self) -> bool {
        self.killed_by.is_some()
    }

    /// Whether every answer so far was the runner's own: no line came that it did not write, and
    /// the process still running answers at once when asked, with nothing before its answer. A
    /// line written in place of an answer is caught at the next call, and after the last one
    /// here, so it never decides a grade. `Err` says what came instead.
    pub(crate) fn confirm(&mut self) -> Result<(), LoadError> {
        // Calls written ahead and never made still answer before the check.
        while self.answer_ahead().is_some() {}
        self.set_aside.clear();
        let untrusted = match (self.untrusted.take(), self.worker.as_mut()) {
            (Some(why), _) => Some(LoadError::new(LoadKind::Garbled, why)),
            (None, Some(worker)) if !self.stop.is_stopped() => worker.in_step(&self.cfg).err(),
            (None, _) => None,
        };
        match untrusted {
            Some(error) => {
                if let Some(mut worker) = self.worker.take() {
                    kill_group(&mut worker.child);
                }
                Err(error)
            }
            None => Ok(()),
        }
    }
}

// Linux only: they take the lock of reap's tests (`reap::tests::MARKED`), which read /proc.
#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A Python file whose `count(tag)` answers the tag and how many calls ran so far.
    fn counting() -> (tempfile::TempDir, Bridge) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("count.py");
        std::fs::write(
            &file,
            "runs = 0\n\ndef count(tag):\n    global runs\n    runs += 1\n    return [tag, runs]\n",
        )
        .unwrap();
        let cfg = BridgeConfig {
            python: BridgeConfig::learner_python(),
            file,
            shown_as: "count.py".into(),
            functions: vec!["count".into()],
            timeout: std::time::Duration::from_secs(10),
            sandbox: None,
            world: false,
        };
        let bridge = Bridge::start_stoppable(cfg, Stop::default()).unwrap();
        (dir, bridge)
    }

    fn count(bridge: &mut Bridge, tag: &str) -> Value {
        match bridge.call("count", &[Value::from(tag)]).outcome {
            Outcome::Returned(value) => value,
            other => panic!("count({tag}): {other:?}"),
        }
    }

    /// Calls written ahead run once each, in the order written; each call takes its own
    /// answer whenever it comes, those read before it kept for theirs; a call not written ahead
    /// runs after all of them, and a call made again runs again.
    #[test]
    fn calls_written_ahead_run_once_in_order_and_each_takes_its_own_answer() {
        let _serial = reap::tests::MARKED.lock().unwrap_or_else(|e| e.into_inner());
        let (_dir, mut bridge) = counting();
        for tag in ["a", "b", "c"] {
            bridge.send_ahead("count", vec![Value::from(tag)]);
        }
        assert!(bridge.is_ahead("count", &[Value::from("a")]));
        assert!(!bridge.is_ahead("count", &[Value::from("d")]));
        assert_eq!(
            count(&mut bridge, "b"),
            serde_json::json!(["b", 2]),
            "a's answer read first, set aside"
        );
        assert_eq!(
            count(&mut bridge, "d"),
            serde_json::json!(["d", 4]),
            "after every call written ahead"
        );
        assert_eq!(count(&mut bridge, "a"), serde_json::json!(["a", 1]));
        assert_eq!(count(&mut bridge, "c"), serde_json::json!(["c", 3]));
        assert!(!bridge.is_ahead("count", &[Value::from("a")]), "taken");
        assert_eq!(
            count(&mut bridge, "a"),
            serde_json::json!(["a", 5]),
            "made again, it runs again"
        );
        bridge.send_ahead("count", vec![Value::from("e")]);
        assert!(
            bridge.confirm().is_ok(),
            "a call written ahead and never made is read before the check"
        );
    }
}
