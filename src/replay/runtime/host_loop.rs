//! The learner's own loop (the lesson's `loop` hook): real code that sends the requests with a
//! client the runner's kit gives it, runs the tools with `run_tool`, waits on a clock it is
//! given, and returns the words the person is shown. A bridge call cannot wait on this side
//! mid-call, so the loop is run again from the start each time it reaches a step (a request, or
//! a tool call) not answered yet: it is given every answer so far, in order, and the kit pauses
//! it at the first one missing, which comes back as the call's outcome. That step is answered
//! here (the request from the recordings, the tool call by the world), and the loop is run
//! again with one more answer. The replay's clock moves by each answer's recorded time and the
//! loop's (and its client's) waits, never by the machine's.

use serde_json::{json, Value};

use super::answer::Answered;
use super::harness::call_value;
use super::{no_recording, tool_uses, words, Conversation, CUT_OFF};
use crate::lesson::Hook;
use crate::replay::events::Event;
use crate::replay::received::Received;
use crate::replay::turns::{Model, Turn};

/// Runs of the loop at most: each answers one step, so this bounds the steps of a run. The
/// lesson's own caps (turns, time) end a run long before it.
const RUNS_AT_MOST: usize = 400;

/// What the loop's last answered step was: how the run ended, when the loop returned.
enum Last {
    Nothing,
    /// The model's turn: its stop reason and text.
    Reply {
        stop_reason: String,
        text: String,
    },
    /// An error of the API's, or a timeout: the host's event.
    Error,
    /// A tool call's result.
    Tool,
}

/// What one run of the loop said of itself (the kit's record).
struct Record {
    state: String,
    value: Value,
    steps: Vec<Value>,
    asked: Value,
    diverged: Value,
}

impl Record {
    fn of(value: &Value) -> Option<Record> {
        Some(Record {
            state: value.get("state")?.as_str()?.to_string(),
            value: value.get("value").cloned().unwrap_or(Value::Null),
            steps: value.get("steps")?.as_array()?.clone(),
            asked: value.get("asked").cloned().unwrap_or(Value::Null),
            diverged: value.get("diverged").cloned().unwrap_or(Value::Null),
        })
    }
}

/// A run of the loop in progress: what it has been answered, and what is shown of it.
#[derive(Default)]
struct LoopProgress {
    answers: Vec<Value>,
    /// The steps already turned into events (the answered ones, and the waits among them).
    seen: usize,
    /// The `tool_use` blocks of the model's last turn not run yet.
    calls: Vec<Value>,
    /// The calls run since the model's last turn, for the cards of what went back.
    results: Vec<Answered>,
    /// The last request sent, and how many times in a row.
    body: Value,
    sendings: u32,
}

impl Conversation<'_, '_> {
    /// Run the learner's loop to its end, answering each step it reaches.
    pub(super) fn own_loop(&mut self, hook: &Hook, model: &mut dyn Model) {
        let mut p = LoopProgress::default();
        self.drive(hook, model, &mut p);
        // Results the loop never sent on (it returned, or a cap ended it first): the model
        // never read them.
        for answered in &p.results {
            for event in self.turn.iter_mut() {
                if let Event::Attempt { tool_use_id, received, .. } = event {
                    if *tool_use_id == answered.id {
                        *received = Some(Box::new(Received::nothing()));
                    }
                }
            }
        }
    }

    fn drive(&mut self, hook: &Hook, model: &mut dyn Model, p: &mut LoopProgress) {
        let mut last = Last::Nothing;
        for _ in 0..RUNS_AT_MOST {
            let args: Vec<Value> = hook
                .args
                .iter()
                .map(|a| match a.as_str() {
                    "replay" => json!({"answers": p.answers}),
                    "text" => json!(self.ticket.text),
                    _ => Value::Null,
                })
                .collect();
            let (answer, _printed) = call_value(&mut *self.code, &hook.function, args);
            let value = match answer {
                Ok(value) => value,
                Err(fault) => return self.push_fault(&fault),
            };
            let Some(record) = Record::of(&value) else {
                return self.loop_error(format!(
                    "the workshop's stand-in client gave back {}, not a record of the run: \
                     run `./workshop doctor` and report this",
                    crate::text::pyrepr::repr(&value)
                ));
            };
            self.waits(&record.steps, p);
            match record.state.as_str() {
                "returned" => return self.returned(&hook.function, &record.value, &last),
                "asked" => {}
                "swallowed" => return self.loop_error(swallowed(&hook.function)),
                _ => return self.loop_error(diverged(&hook.function, &record.diverged)),
            }
            let step = record.asked;
            let answered = if let Some(body) = step.get("send") {
                self.send_step(model, body, p, &mut last)
            } else if let Some(tool) = step.get("tool").and_then(Value::as_str) {
                let input = step.get("input").cloned().unwrap_or(Value::Null);
                self.tool_step(tool, &input, p, &mut last)
            } else {
                None
            };
            let Some(mut answer) = answered else { return };
            answer["asked"] = step;
            p.answers.push(answer);
            p.seen = record.steps.len();
        }
        self.loop_error(format!(
            "{} was run {RUNS_AT_MOST} times without ending: each run answers one of its \
             requests or tool calls, so it made that many. Give it a cap of its own.",
            crate::text::pyrepr::shown_name(&hook.function)
        ));
    }

    /// The waits among the steps not seen before: each moves the replay's clock, and a wait
    /// after an error is the wait before that request is sent again.
    fn waits(&mut self, steps: &[Value], p: &mut LoopProgress) {
        for step in steps.iter().skip(p.seen) {
            let Some(seconds) = step.get("sleep").and_then(Value::as_f64) else { continue };
            let ms = (seconds.max(0.0) * 1000.0).round() as u64;
            self.clock_ms += ms;
            let by = step.get("by").and_then(Value::as_str).map(String::from);
            // Only a wait right after an error is the wait before that request goes again.
            let after_error = match self.turn.last_mut() {
                Some(Event::HostError { wait_ms, waited_by, .. }) => Some((wait_ms, waited_by)),
                _ => None,
            };
            if let Some((wait, waited_by)) = after_error {
                *wait = Some(wait.unwrap_or(0) + ms);
                *waited_by = by;
            }
        }
        p.seen = steps.len();
    }

    /// Answer a request the loop sent: from the recordings, held to the API's rules first.
    /// `None`: the run is over (a cap, or no recording).
    fn send_step(
        &mut self,
        model: &mut dyn Model,
        body: &Value,
        p: &mut LoopProgress,
        last: &mut Last,
    ) -> Option<Value> {
        if self.over_budget() {
            return None;
        }
        if self.replies >= self.lesson.agent.max_turns {
            self.out_of_turns();
            return None;
        }
        // What went back for the calls of the last turn is in this request: their cards are
        // completed with it, and the turn is over.
        let messages = body.get("messages").and_then(Value::as_array).cloned().unwrap_or_default();
        self.close_turn(&messages, p);
        p.sendings = if p.body == *body { p.sendings + 1 } else { 1 };
        p.body = body.clone();
        self.messages = messages;
        let turn = match crate::replay::messages::check_request(body) {
            Err(e) => Turn::Refused {
                status: 400,
                error_type: "invalid_request_error".into(),
                message: e.to_string(),
                retry_after_ms: None,
                took_ms: 0,
            },
            Ok(()) => model.respond(body),
        };
        self.answered(turn, p, last)
    }

    /// What answered a request: its events, and the answer the loop is given for it.
    fn answered(&mut self, turn: Turn, p: &mut LoopProgress, last: &mut Last) -> Option<Value> {
        match turn {
            Turn::Reply { response, provenance, by_kind, took_ms } => {
                self.clock_ms += took_ms;
                self.replies += 1;
                let content = response.get("content").and_then(Value::as_array);
                let content = content.cloned().unwrap_or_default();
                let stop_reason = response.get("stop_reason").and_then(Value::as_str);
                let stop_reason = stop_reason.unwrap_or("end_turn").to_string();
                let text = super::text_of(&content);
                p.calls = tool_uses(&content);
                self.show_reply(&content, &stop_reason, provenance, by_kind);
                *last = Last::Reply { stop_reason, text };
                Some(json!({"took_ms": took_ms, "response": response}))
            }
            Turn::Refused { status, error_type, message, retry_after_ms, took_ms } => {
                self.clock_ms += took_ms;
                let retry_after = retry_after_ms.map(|ms| ms as f64 / 1000.0);
                let said = (error_type.clone(), message.clone());
                self.host_error(Some(status), said, retry_after_ms, p.sendings);
                *last = Last::Error;
                let error = json!({"status": status, "type": error_type, "message": message,
                    "retry_after": retry_after});
                Some(json!({"took_ms": took_ms, "error": error}))
            }
            Turn::TimedOut { took_ms } => {
                self.clock_ms += took_ms;
                let said = ("timeout".to_string(), format!("no response within {took_ms} ms"));
                self.host_error(None, said, None, p.sendings);
                *last = Last::Error;
                Some(json!({"took_ms": took_ms, "timeout": true}))
            }
            Turn::Missing { closest, diff, words } => {
                let sent = self.messages.last().and_then(|m| m.get("content")).cloned();
                let (explanation, next) = no_recording();
                let sent = sent.unwrap_or(Value::Null);
                let at = Event::NoRecording { sent, closest, diff, explanation, next, words };
                self.turn.push(at);
                None
            }
        }
    }

    /// An API error's event: the wait before the request is sent again comes with the steps
    /// of the next run of the loop (see `waits`).
    fn host_error(
        &mut self,
        status: Option<u16>,
        said: (String, String),
        retry: Option<u64>,
        n: u32,
    ) {
        let (error_type, message) = said;
        self.turn.push(Event::HostError {
            status,
            error_type,
            message,
            retry_after_ms: retry,
            number: n,
            wait_ms: None,
            waited_by: None,
            at_ms: self.clock_ms,
        });
    }

    /// The cards of the model's turn: its text, or each tool call it made.
    fn show_reply(
        &mut self,
        content: &[Value],
        stop_reason: &str,
        provenance: crate::replay::recordings::Provenance,
        mut by_kind: Vec<crate::lesson::kinds::ByKind>,
    ) {
        self.untold(&mut by_kind);
        let calls = tool_uses(content);
        let text = super::text_of(content);
        if calls.is_empty() {
            let stop_reason = CUT_OFF.contains(&stop_reason).then(|| stop_reason.to_string());
            self.turn.push(Event::Reply { text, provenance, by_kind, stop_reason });
            return;
        }
        let mut preface = (!text.trim().is_empty()).then_some(text);
        for call in &calls {
            let tool = call.get("name").and_then(Value::as_str).unwrap_or("").to_string();
            let input = call.get("input").cloned().unwrap_or(Value::Null);
            self.turn.push(Event::ToolCall {
                id: call.get("id").and_then(Value::as_str).unwrap_or("").to_string(),
                words: words(self.lesson, &tool, &input),
                tool,
                input,
                preface: preface.take(),
                provenance: provenance.clone(),
                by_kind: std::mem::take(&mut by_kind),
            });
        }
    }

    /// Run a tool call the loop asked for, in the world, as the model called it. `None`: the
    /// run is over (the loop asked for a call the model did not make, or the world failed).
    fn tool_step(
        &mut self,
        tool: &str,
        input: &Value,
        p: &mut LoopProgress,
        last: &mut Last,
    ) -> Option<Value> {
        let called = p.calls.iter().position(|c| {
            c.get("name").and_then(Value::as_str) == Some(tool) && c.get("input") == Some(input)
        });
        let Some(at) = called else {
            self.loop_error(format!(
                "the loop asked run_tool for {} with {}, which the model did not call in its \
                 last turn: run the tool_use blocks of the response, with their own name and \
                 input, once each",
                tool,
                crate::replay::recordings::canonical(input)
            ));
            return None;
        };
        let call = p.calls.remove(at);
        let id = call.get("id").and_then(Value::as_str).unwrap_or("").to_string();
        let answered = self.call_tool(&id, tool, input)?;
        let result = json!({"content": answered.content, "is_error": answered.is_error});
        p.results.push(answered);
        *last = Last::Tool;
        Some(json!({"result": result}))
    }

    /// Complete the cards of the calls run since the model's last turn with the message that
    /// answered them (the last of `messages`), and end the turn.
    fn close_turn(&mut self, messages: &[Value], p: &mut LoopProgress) {
        let results = std::mem::take(&mut p.results);
        if !results.is_empty() {
            let answer: Vec<Value> = messages.last().cloned().into_iter().collect();
            let sent = super::sent::SentReply {
                messages: &answer,
                printed: "",
                runtime: self.runtime,
                setting: self.lesson.setting(),
                wording: &self.lesson.wording,
                properties: &self.lesson.properties,
                policy: self.policy,
                refused: None,
            };
            let turn = std::mem::take(&mut self.turn);
            self.turn = super::sent::complete(turn, &results, &sent);
        }
        self.events.append(&mut self.turn);
    }

    /// The loop returned: what it says is what the person is shown. Why the run ended is read
    /// from what happened last, never from which code ran.
    fn returned(&mut self, function: &str, value: &Value, last: &Last) {
        let Some(text) = value.as_str().map(str::trim).filter(|t| !t.is_empty()) else {
            return self.loop_error(format!(
                "{} returned {}, not the words to tell the person: return a string",
                crate::text::pyrepr::shown_name(function),
                crate::text::pyrepr::repr(value)
            ));
        };
        let reason = match last {
            Last::Reply { stop_reason, text: said } if !CUT_OFF.contains(&stop_reason.as_str()) => {
                if stop_reason != "tool_use" {
                    if said.trim() == text {
                        return; // The model's answer, shown as it is on its own card.
                    }
                    "reply"
                } else {
                    "code"
                }
            }
            Last::Reply { stop_reason, .. } => stop_reason.as_str(),
            Last::Error => "api_error",
            Last::Tool | Last::Nothing => "code",
        };
        if reason == "code" {
            let (turns, elapsed_ms) = (self.replies, self.clock_ms);
            self.turn.push(Event::Capped { by: "code".into(), turns, elapsed_ms, limit: None });
        }
        self.turn.push(Event::Told { text: text.to_string(), reason: reason.to_string() });
    }

    fn loop_error(&mut self, message: String) {
        self.turn.push(Event::CodeError { message, call: None, printed: String::new() });
    }
}

/// What a loop that caught the workshop's pause is told.
fn swallowed(function: &str) -> String {
    let name = crate::text::pyrepr::shown_name(function);
    format!(
        "{name} caught the workshop's pause and went on: the workshop stops your loop at each \
         request it has not answered yet by raising an exception that is not an Exception, and \
         a bare `except:` (or `except BaseException:`) caught it. Catch `anthropic.APIError` \
         (or `Exception`) instead, so the pause goes through."
    )
}

/// What a loop that sent other requests on a run again is told.
fn diverged(function: &str, diverged: &Value) -> String {
    let name = crate::text::pyrepr::shown_name(function);
    let index = diverged.get("index").and_then(Value::as_u64).unwrap_or(0) + 1;
    let (before, now) = (diverged.get("before"), diverged.get("now"));
    let what = match (before, now) {
        (Some(before), Some(now)) => match where_they_differ(before, now, String::new()) {
            Some((path, a, b)) => {
                let (a, b) = around_the_difference(&a, &b);
                format!(" ({path} was {a} the first time, {b} this time)")
            }
            None => String::new(),
        },
        _ => String::new(),
    };
    format!(
        "{name} did something else at its step {index} when run again from the start{what}: \
         the workshop runs your loop again for each new answer, so the same answers must lead \
         to the same requests and tool calls in the same order. Make no random choices and read \
         no clock but the one you are given (clock.monotonic())."
    )
}

/// Two values as JSON, each cut to 60 characters; two texts from a little before the first
/// character where they part, so what differs shows.
fn around_the_difference(a: &Value, b: &Value) -> (String, String) {
    let cut = |text: String| crate::text::shorten::shorten_text(&text, 60);
    let (Value::String(x), Value::String(y)) = (a, b) else {
        return (cut(a.to_string()), cut(b.to_string()));
    };
    let same = x.chars().zip(y.chars()).take_while(|(p, q)| p == q).count();
    let from = same.saturating_sub(20);
    let tail = |t: &str| {
        let rest: String = t.chars().skip(from).collect();
        let shown = cut(Value::from(rest).to_string());
        if from > 0 {
            format!("…{shown}")
        } else {
            shown
        }
    };
    (tail(x), tail(y))
}

/// The first place two steps differ: its path (`send.messages.0.content`, or `the step` for the
/// whole) and the two values there.
fn where_they_differ(a: &Value, b: &Value, path: String) -> Option<(String, Value, Value)> {
    if a == b {
        return None;
    }
    let here = || if path.is_empty() { "the step".to_string() } else { path.clone() };
    let join = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
            for (key, value) in x {
                let other = y.get(key)?;
                if let Some(found) = where_they_differ(value, other, join(key)) {
                    return Some(found);
                }
            }
            Some((here(), a.clone(), b.clone()))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| where_they_differ(v, w, join(&i.to_string())))
            .or_else(|| Some((here(), a.clone(), b.clone()))),
        _ => Some((here(), a.clone(), b.clone())),
    }
}
