//! The host's side of the loop, which the model never sees: what it does when the Messages API
//! answers a request with an error or not at all (the lesson's `api_error` hook says whether to
//! send the same request again, and after what wait), the caps that end a run (the lesson's
//! turns, its time on the replay's own clock, the code's own stop), and what the person is told
//! when a run ends without the model's answer (the `tell` hook). The clock is the replay's:
//! it moves by each recorded request's time and by the waits the code chose, never by the
//! machine's, so a replay is the same every time and never waits.

use serde_json::{json, Value};

use super::harness::call_value;
use super::{no_recording, Conversation};
use crate::lesson::Hook;
use crate::replay::events::Event;
use crate::replay::recordings::Provenance;
use crate::replay::turns::{Model, Turn};
use crate::text::pyrepr::truthy;

/// Sendings of one request at most, whatever the code answers: the replay's own guard against
/// code that never stops sending a request the API keeps refusing.
pub(super) const MOST_SENDINGS: u32 = 10;

/// Why the API refuses a request without asking the model: it breaks the API's rules.
pub(super) type Bad = Option<String>;

/// The model's answer, once the host has it.
pub(super) enum Sent {
    Reply {
        response: Value,
        provenance: Provenance,
        by_kind: Vec<crate::lesson::kinds::ByKind>,
    },
    /// The run is over: its event says why.
    Stop,
}

/// An error the API answered with, or a timeout: what the host knows of it.
struct ApiFailure {
    status: Option<u16>,
    error_type: String,
    message: String,
    retry_after_ms: Option<u64>,
}

impl ApiFailure {
    /// The failure a turn is, and how long it took; `None` for a reply or nothing recorded.
    fn of(turn: &Turn) -> Option<(ApiFailure, u64)> {
        match turn {
            Turn::Refused { status, error_type, message, retry_after_ms, took_ms } => Some((
                ApiFailure {
                    status: Some(*status),
                    error_type: error_type.clone(),
                    message: message.clone(),
                    retry_after_ms: *retry_after_ms,
                },
                *took_ms,
            )),
            Turn::TimedOut { took_ms } => Some((
                ApiFailure {
                    status: None,
                    error_type: "timeout".into(),
                    message: format!("no response within {}", seconds(*took_ms)),
                    retry_after_ms: None,
                },
                *took_ms,
            )),
            _ => None,
        }
    }

    fn detail(&self) -> Value {
        json!({
            "status": self.status,
            "error_type": self.error_type,
            "message": self.message,
            "retry_after": self.retry_after_ms.map(|ms| ms as f64 / 1000.0),
        })
    }
}

/// "2 s", "1.5 s": a time on the replay's clock.
fn seconds(ms: u64) -> String {
    let s = ms as f64 / 1000.0;
    format!("{s} s")
}

impl Conversation<'_, '_> {
    /// Send the request until the model answers, as the host's code says: an API error or a
    /// timeout is the host's event, sent again after the wait the `api_error` hook chooses.
    /// `bad`: the request breaks the API's rules, so the API refuses it without a model.
    pub(super) fn send(&mut self, model: &mut dyn Model, body: &Value, bad: Bad) -> Sent {
        let mut number = 0;
        loop {
            number += 1;
            if self.over_budget() {
                return Sent::Stop;
            }
            let turn = match &bad {
                Some(message) => Turn::Refused {
                    status: 400,
                    error_type: "invalid_request_error".into(),
                    message: message.clone(),
                    retry_after_ms: None,
                    took_ms: 0,
                },
                None => model.respond(body),
            };
            if let Some((failure, took_ms)) = ApiFailure::of(&turn) {
                self.clock_ms += took_ms;
                match self.after_failure(&failure, number) {
                    Ok(Some(wait_ms)) => {
                        self.clock_ms += wait_ms;
                        continue;
                    }
                    Ok(None) => {
                        self.tell("api_error", failure.detail(), None);
                        return Sent::Stop;
                    }
                    Err(()) => return Sent::Stop,
                }
            }
            return match turn {
                Turn::Reply { response, provenance, by_kind, took_ms } => {
                    self.clock_ms += took_ms;
                    self.replies += 1;
                    Sent::Reply { response, provenance, by_kind }
                }
                Turn::Missing { closest, diff, words } => {
                    let last = self.messages.last().and_then(|m| m.get("content"));
                    let sent = last.cloned().unwrap_or(Value::Null);
                    let (explanation, next) = no_recording();
                    let at = Event::NoRecording { sent, closest, diff, explanation, next, words };
                    self.turn.push(at);
                    Sent::Stop
                }
                Turn::Refused { .. } | Turn::TimedOut { .. } => Sent::Stop,
            };
        }
    }

    /// The host's event for an API failure, and the wait before sending again: `None` stops
    /// the run there. Err: the code under replay failed.
    fn after_failure(&mut self, failure: &ApiFailure, number: u32) -> Result<Option<u64>, ()> {
        let wait_ms = match self.lesson.hooks.api_error.as_ref() {
            Some(hook) if number < MOST_SENDINGS => self.ask_wait(hook, failure, number)?,
            _ => None,
        };
        self.turn.push(Event::HostError {
            status: failure.status,
            error_type: failure.error_type.clone(),
            message: failure.message.clone(),
            retry_after_ms: failure.retry_after_ms,
            number,
            wait_ms,
            waited_by: None,
            at_ms: self.clock_ms,
        });
        Ok(wait_ms)
    }

    /// What the `api_error` hook answers: a number of seconds (not a bool) sends again after
    /// that wait; anything else stops.
    fn ask_wait(&mut self, hook: &Hook, failure: &ApiFailure, n: u32) -> Result<Option<u64>, ()> {
        let given = |arg: &str| match arg {
            "status" => json!(failure.status),
            "error_type" => json!(failure.error_type),
            "retry_after" => json!(failure.retry_after_ms.map(|ms| ms as f64 / 1000.0)),
            "attempt" => json!(n),
            "elapsed" => json!(self.clock_ms as f64 / 1000.0),
            _ => Value::Null,
        };
        let args: Vec<Value> = hook.args.iter().map(|a| given(a.as_str())).collect();
        let answer = self.ask(&hook.function, args)?;
        let number = answer.as_f64().filter(|_| !answer.is_boolean());
        let seconds = number.filter(|s| *s >= 0.0 && s.is_finite());
        Ok(seconds.map(|s| (s * 1000.0) as u64))
    }

    /// Whether the run may ask the model for another turn: the lesson's time budget is not
    /// spent, and the code's `go_on` hook (asked before every turn but the first) says yes.
    /// When not, the cap's event (and what the person is told) is pushed.
    pub(super) fn may_go_on(&mut self) -> bool {
        if self.over_budget() {
            return false;
        }
        let Some(hook) = self.lesson.hooks.go_on.as_ref().filter(|_| self.replies > 0) else {
            return true;
        };
        let args: Vec<Value> = hook
            .args
            .iter()
            .map(|a| match a.as_str() {
                "turn" => json!(self.replies),
                "elapsed" => json!(self.clock_ms as f64 / 1000.0),
                _ => Value::Null,
            })
            .collect();
        let Ok(answer) = self.ask(&hook.function.clone(), args) else { return false };
        if truthy(&answer) {
            return true;
        }
        self.capped("code", None);
        false
    }

    /// The turn cap was reached.
    pub(super) fn out_of_turns(&mut self) {
        self.capped("max_turns", Some(self.lesson.agent.max_turns as u64));
    }

    /// Whether the time budget is spent; if so, its cap's event is pushed.
    pub(super) fn over_budget(&mut self) -> bool {
        let Some(budget) = self.lesson.agent.time_budget_s else { return false };
        let limit = (budget * 1000.0) as u64;
        if self.clock_ms < limit {
            return false;
        }
        self.capped("time_budget", Some(limit));
        true
    }

    fn capped(&mut self, by: &str, limit: Option<u64>) {
        let (turns, elapsed_ms) = (self.replies, self.clock_ms);
        self.turn.push(Event::Capped { by: by.into(), turns, elapsed_ms, limit });
        let elapsed = elapsed_ms as f64 / 1000.0;
        let detail = json!({"turns": turns, "elapsed": elapsed, "limit": limit});
        self.tell(by, detail, None);
    }

    /// What the `tell` hook says to the person, when the lesson has one: its event. `text` is
    /// the model's text so far, for a reply cut off or refused.
    pub(super) fn tell(&mut self, reason: &str, detail: Value, text: Option<&str>) {
        let Some(hook) = self.lesson.hooks.tell.as_ref() else { return };
        let args: Vec<Value> = hook
            .args
            .iter()
            .map(|a| match a.as_str() {
                "reason" => json!(reason),
                "detail" => detail.clone(),
                "text" => json!(text),
                _ => Value::Null,
            })
            .collect();
        let Ok(answer) = self.ask(&hook.function.clone(), args) else { return };
        match answer.as_str().map(str::trim) {
            Some(told) if !told.is_empty() => {
                self.turn.push(Event::Told { text: told.to_string(), reason: reason.to_string() })
            }
            _ => self.turn.push(Event::CodeError {
                message: format!(
                    "{} returned {}, not the words to tell the person",
                    hook.function,
                    crate::text::pyrepr::repr(&answer)
                ),
                call: None,
                printed: String::new(),
            }),
        }
    }

    /// Call a learner function; Err (with its fault pushed) when it did not return.
    fn ask(&mut self, function: &str, args: Vec<Value>) -> Result<Value, ()> {
        let (answer, _printed) = call_value(&mut *self.code, function, args);
        answer.map_err(|fault| self.push_fault(&fault))
    }
}
