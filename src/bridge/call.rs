//! One call of a learner's function, and checking afterwards that every answer was the runner's.

use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::marshal::request_frame;
use super::outcome::{garbled, stopped_message};
use super::protocol::{location, RunnerAnswer};
use super::wait::NoLine;
use super::worker::{kill_group, Worker};
use super::{size_text, BridgeConfig, Call, LoadError, LoadKind, Outcome, STARTUP_ALLOWANCE};

/// The frame of a call request with this id.
pub(super) fn call_frame(id: u64, function: &str, args: &[Value]) -> Vec<u8> {
    request_frame(&serde_json::json!({"id": id, "fn": function, "args": args}))
}

impl Worker {
    pub(super) fn call(
        &mut self,
        cfg: &BridgeConfig,
        function: &str,
        args: &[Value],
    ) -> (Call, bool) {
        if !self.send(function, args) {
            let death = self.death();
            let message = format!("the Python process had ended: {}", death.note());
            return (
                Call { outcome: Outcome::Exited { message }, output: death.output, dropped: 0 },
                false,
            );
        }
        self.answer(cfg, function)
    }

    /// Write a call's request without waiting for its answer; false when the process had ended.
    /// Every answer before it must have been read first, unless it is written `ahead`.
    fn send(&mut self, function: &str, args: &[Value]) -> bool {
        super::cores::asking(self.child.id());
        self.write_request(function, args)
    }

    fn write_request(&mut self, function: &str, args: &[Value]) -> bool {
        self.next_id += 1;
        // One write per request: the pipe is unbuffered, and a piecemeal write would reach Python
        // in dozens of pieces, each a wake-up.
        self.stdin.write_all(&call_frame(self.next_id, function, args)).is_ok()
    }

    /// Write a call's request now, while the call before it may still run, so the runner goes
    /// from one to the next without waiting for this side to ask; its answer is read by the
    /// next `answer` after the one before it. False when the process had ended. The process is
    /// not moved to the one core for it (see `reap::asking`): it works on it where it is while
    /// this side goes on, where a move now would put both on one core while both have work.
    pub(super) fn send_ahead(&mut self, function: &str, args: &[Value]) -> bool {
        let frame = call_frame(self.next_id + 1, function, args).len();
        let sent = self.write_request(function, args);
        if sent {
            self.ahead.push((self.next_id, frame));
        }
        sent
    }

    /// The answer to the oldest request not answered yet (its id is `answered + 1`: the last one
    /// sent, unless others were written ahead of it), waited for up to the call's deadline; and
    /// whether the process is still to be trusted with the next call.
    pub(super) fn answer(&mut self, cfg: &BridgeConfig, function: &str) -> (Call, bool) {
        match self.wait_line(Instant::now() + cfg.timeout) {
            Ok(line) => self.answered(cfg, function, &line),
            Err(no_line) => (self.unanswered(cfg, function, no_line), false),
        }
    }

    /// A call that got no answer line: the process is gone (or killed now), and says why.
    fn unanswered(&mut self, cfg: &BridgeConfig, function: &str, no_line: NoLine) -> Call {
        let outcome = match no_line {
            NoLine::TimedOut => {
                // The runner takes the next request as soon as it has answered one. Still in the
                // pipe after a whole deadline (and a start-up's allowance more, for a machine too
                // busy to run it), this one was never taken: the runner was busy with the call
                // before all along, so the answer that came for that call was not its.
                // A process held stopped took nothing: its request is untaken for that reason.
                let stopped = super::reap::stopped(self.child.id());
                let untaken = !stopped && self.request_untaken_within(STARTUP_ALLOWANCE);
                kill_group(&mut self.child);
                if untaken {
                    let message = garbled(
                        &cfg.shown_as,
                        &format!("before the call to {function}"),
                        "an answer to the call before it, which was still running",
                    );
                    Outcome::Garbled { message }
                } else {
                    Outcome::TimedOut { limit: cfg.timeout_text(), stopped }
                }
            }
            NoLine::HeldStopped => {
                kill_group(&mut self.child);
                Outcome::TimedOut { limit: cfg.timeout_text(), stopped: true }
            }
            NoLine::Died(death) => {
                let message = format!("the Python process ended during the call: {}", death.note());
                return Call {
                    outcome: Outcome::Exited { message },
                    output: death.output,
                    dropped: 0,
                };
            }
            NoLine::Stopped => {
                kill_group(&mut self.child);
                let outcome = Outcome::Unavailable { message: stopped_message() };
                return Call { outcome, output: String::new(), dropped: 0 };
            }
            NoLine::TooLong(bytes) => {
                // The runner measures what it sends, so this is a line it did not write.
                kill_group(&mut self.child);
                let what = format!("{} without an end", size_text(bytes as u64));
                Outcome::Garbled {
                    message: garbled(
                        &cfg.shown_as,
                        &format!("during the call to {function}"),
                        &what,
                    ),
                }
            }
        };
        Call { outcome, output: self.read_capture(), dropped: 0 }
    }

    /// A call's answer line: its outcome, and whether the process is still to be trusted with
    /// the next call (a line that is not this call's answer ends it).
    fn answered(&mut self, cfg: &BridgeConfig, function: &str, line: &str) -> (Call, bool) {
        let when = format!("during the call to {function}");
        let unknown = match serde_json::from_str::<RunnerAnswer>(line) {
            Ok(answer) if answer.id == Some(self.answered + 1) => {
                self.answered += 1;
                let answered = self.answered;
                self.ahead.retain(|&(id, _)| id != answered);
                let dropped = answer.dropped;
                match outcome_of(answer, &cfg.shown_as) {
                    Ok(outcome) => {
                        let (output, over) = self.capture.take();
                        return (Call { outcome, output, dropped: over + dropped }, true);
                    }
                    // The runner never sends it: the line is not its answer.
                    Err(kind) => Some(kind),
                }
            }
            _ => None,
        };
        kill_group(&mut self.child);
        let message = match unknown {
            Some(kind) => garbled(&cfg.shown_as, &when, &format!("{kind}, in {line}")),
            None => garbled(&cfg.shown_as, &when, line),
        };
        let outcome = Outcome::Garbled { message };
        (Call { outcome, output: self.read_capture(), dropped: 0 }, false)
    }

    /// Whether bytes of the last request are still in the pipe, not taken by the runner, after
    /// waiting up to `grace` for it to take them.
    fn request_untaken_within(&self, grace: Duration) -> bool {
        let until = Instant::now() + grace;
        // Requests written ahead, after the one awaited, are not taken until that one is done.
        let behind: u64 = self
            .ahead
            .iter()
            .filter(|&&(id, _)| id > self.answered + 1)
            .map(|&(_, frame)| frame as u64)
            .sum();
        loop {
            // On a pipe's write end FIONREAD counts the bytes not yet read, as on its read end.
            if rustix::io::ioctl_fionread(&self.stdin).map_or(true, |unread| unread <= behind) {
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
    pub(super) fn in_step(&mut self, cfg: &BridgeConfig) -> Result<(), LoadError> {
        self.next_id += 1;
        let ping = request_frame(&serde_json::json!({ "id": self.next_id }));
        let when = "after the last call";
        let untrusted =
            |line: &str| LoadError::new(LoadKind::Garbled, garbled(&cfg.shown_as, when, line));
        super::cores::asking(self.child.id());
        if self.stdin.write_all(&ping).is_err() {
            // It ended after its last answer: nothing it sent is contradicted.
            return Ok(());
        }
        let line = match self.wait_line(Instant::now() + cfg.timeout + STARTUP_ALLOWANCE) {
            Ok(line) => line,
            Err(NoLine::Died(_) | NoLine::Stopped) => return Ok(()),
            Err(NoLine::TooLong(bytes)) => {
                return Err(untrusted(&format!("{} without an end", size_text(bytes as u64))))
            }
            Err(NoLine::TimedOut) => {
                return Err(untrusted("an answer to a call that was still running"));
            }
            Err(NoLine::HeldStopped) => return Ok(()),
        };
        match serde_json::from_str::<RunnerAnswer>(&line) {
            Ok(answer) if answer.id == Some(self.next_id) && answer.ok => {
                self.answered = self.next_id;
                self.capture.take();
                Ok(())
            }
            _ => Err(untrusted(&line)),
        }
    }
}

/// What the runner's answer to a call says happened, for the file shown as `file`; `Err` names
/// what the runner never sends (an unknown kind, a kind without its key), refused rather than
/// taken for an exception with no message.
fn outcome_of(answer: RunnerAnswer, file: &str) -> Result<Outcome, String> {
    if answer.ok {
        let value = answer.value.ok_or("an `ok` answer without its `value`")?;
        return Ok(Outcome::Returned(value));
    }
    let kind = answer.kind.as_deref().ok_or("a failed call's answer without its `kind`")?;
    let without = format!("a `{kind}` answer without its `message`");
    let message = |key: Option<String>| key.ok_or_else(|| without.clone());
    Ok(match kind {
        "not_json" => Outcome::NotJson { message: message(answer.message)? },
        "too_big" => {
            let bytes = answer.size.ok_or("a `too_big` answer without its `size`")?;
            Outcome::TooBig { bytes }
        }
        "exit" => {
            let message = message(answer.message)?;
            Outcome::Exited {
                message: match location(&answer.frames, file) {
                    Some(at) => format!("{message} ({}, line {}: {})", at.file, at.line, at.code),
                    None => message,
                },
            }
        }
        "exception" => {
            let location = location(&answer.frames, file);
            Outcome::Raised { message: message(answer.message)?, location }
        }
        other => return Err(format!("an answer of kind `{other}`, which the runner never sends")),
    })
}

#[cfg(test)]
mod tests {
    use super::{outcome_of, RunnerAnswer};
    use crate::bridge::Outcome;

    fn outcome(line: &str) -> Result<Outcome, String> {
        outcome_of(serde_json::from_str::<RunnerAnswer>(line).unwrap(), "errors.py")
    }

    #[test]
    fn each_kind_the_runner_sends_is_its_outcome() {
        let null = outcome(r#"{"id": 1, "ok": true, "value": null}"#);
        assert_eq!(null, Ok(Outcome::Returned(serde_json::Value::Null)));
        let raised = r#"{"id": 1, "ok": false, "kind": "exception", "message": "KeyError"}"#;
        let message = "KeyError".to_string();
        assert_eq!(outcome(raised), Ok(Outcome::Raised { message, location: None }));
        let exited = r#"{"id": 1, "ok": false, "kind": "exit", "message": "sys.exit(4)"}"#;
        let exited = outcome(exited);
        assert_eq!(exited, Ok(Outcome::Exited { message: "sys.exit(4)".into() }));
        let too_big = outcome(r#"{"id": 1, "ok": false, "kind": "too_big", "size": 9}"#);
        assert_eq!(too_big, Ok(Outcome::TooBig { bytes: 9 }));
    }

    #[test]
    fn an_unknown_kind_or_a_missing_key_is_refused_by_name() {
        let unknown = r#"{"id": 1, "ok": false, "kind": "exceptoin", "message": "m"}"#;
        let why = outcome(unknown).unwrap_err();
        assert!(why.contains("`exceptoin`"), "{why}");
        let why = outcome(r#"{"id": 1, "ok": false, "message": "m"}"#).unwrap_err();
        assert!(why.contains("`kind`"), "{why}");
        let renamed = r#"{"id": 1, "ok": false, "kind": "exception", "mesage": "m"}"#;
        let why = outcome(renamed).unwrap_err();
        assert!(why.contains("`exception`") && why.contains("`message`"), "{why}");
        let why = outcome(r#"{"id": 1, "ok": true, "valeu": 3}"#).unwrap_err();
        assert!(why.contains("`value`"), "{why}");
        let why = outcome(r#"{"id": 1, "ok": false, "kind": "too_big"}"#).unwrap_err();
        assert!(why.contains("`size`"), "{why}");
    }
}
