//! The two runtimes around the model. `harness`: our code runs each tool call and acts on what
//! the lesson's hooks say. `sdk`: the tools are an MCP server and the model decides. Both send
//! Messages API requests; every request is held to the API's tool-use rules whoever built it,
//! so a broken rule ends the run with the 400 the API would give. Both stop after the lesson's
//! turn limit.

pub(crate) mod harness;
pub(crate) mod sdk;

use serde_json::{json, Value};

use crate::bridge::LoadError;
use crate::events::{Event, Replay, Tone};
use crate::lesson::{Lesson, Runtime, Ticket};
use crate::model::{Model, Turn};
use crate::recordings::canonical;
use crate::world::World;
use harness::{call_value, Backoff, Code, Harness, Mode, Policy, ToolRun};

/// The request body the runtime sends for this conversation so far.
pub(crate) fn request(lesson: &Lesson, ticket: &Ticket, runtime: Runtime, messages: &[Value]) -> Value {
    let (system, tools) = match runtime {
        Runtime::Harness => (
            &lesson.agent.harness_system,
            lesson.tools_for(ticket).into_iter().map(|t| t.definition(&t.name)).collect(),
        ),
        Runtime::Sdk => (&lesson.agent.sdk_system, sdk::tool_definitions(lesson, ticket)),
    };
    json!({
        "model": lesson.agent.model,
        "max_tokens": lesson.agent.max_tokens,
        "system": system.trim(),
        "tools": tools,
        "messages": messages,
    })
}

/// A tool call in words, for its card: the tool's `says`, filled from its input.
pub(crate) fn words(lesson: &Lesson, tool: &str, input: &Value) -> String {
    let plain = sdk::unqualified(&lesson.agent.server, tool).unwrap_or(tool);
    let Some(found) = lesson.tool(plain) else {
        return format!("calls {plain}");
    };
    let mut fields: Vec<(String, String)> = Vec::new();
    if let Some(object) = input.as_object() {
        for (key, value) in object {
            let shown = value.as_str().map(String::from).unwrap_or_else(|| value.to_string());
            fields.push((key.clone(), shown));
        }
    }
    let text = crate::world::fill(&found.says, &fields);
    if text.contains('{') {
        // A field the call left out: say so rather than show the template.
        return found.says_bare.clone().unwrap_or_else(|| format!("calls {plain} without all of its input"));
    }
    text
}

fn text_of(content: &[Value]) -> String {
    let parts: Vec<&str> = content
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    parts.join("\n\n")
}

/// The replay of a ticket whose code could not be loaded.
pub(crate) fn not_loaded(lesson: &Lesson, ticket: &Ticket, code: &str, runtime: Runtime, error: &LoadError) -> Replay {
    let mut events = vec![Event::Customer { text: ticket.text.clone() }];
    events.push(Event::CodeError { message: error.message.clone(), call: None, printed: error.output.clone() });
    finish(lesson, ticket, code, runtime, events, &Default::default())
}

fn finish(
    lesson: &Lesson,
    ticket: &Ticket,
    code: &str,
    runtime: Runtime,
    mut events: Vec<Event>,
    effects: &crate::world::Effects,
) -> Replay {
    let place = lesson.place();
    crate::story::settle_tones(&mut events, place);
    let mut verdict = crate::story::verdict(&events, place, effects);
    verdict.note = crate::story::note(ticket.notes.list(), &verdict.counts).map(String::from);
    Replay {
        lesson: lesson.id.clone(),
        ticket: ticket.id.clone(),
        code: code.to_string(),
        runtime: runtime.name().to_string(),
        events,
        verdict,
    }
}

/// How one turn ended.
enum Next {
    /// The model answered with text: the run is over.
    Done,
    /// The model called tools and they ran: these messages answer them (one, unless the
    /// lesson's answer hook built several).
    Answer(Vec<Value>),
    /// The run stopped early (no recording, a fault, a refused request).
    Stop,
}

/// One run of a ticket in progress.
struct Conversation<'r, 'l> {
    lesson: &'l Lesson,
    ticket: &'l Ticket,
    runtime: Runtime,
    policy: Policy<'l>,
    world: Box<dyn World + 'l>,
    backoff: Backoff,
    code: &'r mut dyn Code,
    messages: Vec<Value>,
    events: Vec<Event>,
    /// Whether the ticket's follow-up text has gone to the model yet.
    followed_up: bool,
    /// The reads the world named for failed calls so far (the call's id, the read), so that
    /// a model that makes that read is seen to check the failure.
    named_reads: Vec<(String, Value)>,
}

/// Run one ticket: the model's turns from `model`, the tools and the harness for real.
pub(crate) fn run(
    lesson: &Lesson,
    ticket: &Ticket,
    runtime: Runtime,
    code_label: &str,
    code: &mut dyn Code,
    model: &mut dyn Model,
) -> Replay {
    let mut c = Conversation {
        lesson,
        ticket,
        runtime,
        policy: Policy::of(lesson),
        world: lesson.place().start(&ticket.id),
        backoff: Backoff::seeded(&format!("{}/{}", lesson.id, ticket.id)),
        code,
        messages: vec![json!({"role": "user", "content": ticket.text})],
        events: vec![Event::Customer { text: ticket.text.clone() }],
        followed_up: false,
        named_reads: Vec::new(),
    };
    let mut answered = false;
    for _ in 0..lesson.agent.max_turns {
        match c.turn(model) {
            // Over either way: a stop has said why in its own event.
            Next::Done | Next::Stop => {
                answered = true;
                break;
            }
            Next::Answer(messages) => c.messages.extend(messages),
        }
    }
    if !answered {
        c.events.push(Event::CodeError {
            message: format!("the agent stopped after {} model turns without a final reply", lesson.agent.max_turns),
            call: None,
            printed: String::new(),
        });
    }
    let effects = c.world.effects();
    finish(lesson, ticket, code_label, runtime, c.events, &effects)
}

impl Conversation<'_, '_> {
    /// Send the conversation so far, and act on the model's turn.
    fn turn(&mut self, model: &mut dyn Model) -> Next {
        let body = request(self.lesson, self.ticket, self.runtime, &self.messages);
        if let Err(message) = crate::messages::check_request(&body).map_err(|e| e.to_string()) {
            self.events.push(Event::ApiError { status: 400, error_type: "invalid_request_error".into(), message });
            return Next::Stop;
        }
        let (response, provenance, mut by_kind) = match model.respond(&body) {
            Turn::Reply { response, provenance, by_kind } => (response, provenance, by_kind),
            Turn::Refused { status, error_type, message } => {
                self.events.push(Event::ApiError { status, error_type, message });
                return Next::Stop;
            }
            Turn::Missing { closest, diff, words } => {
                let sent = self.messages.last().and_then(|m| m.get("content")).cloned().unwrap_or(Value::Null);
                let (explanation, next) = no_recording();
                self.events.push(Event::NoRecording { sent, closest, diff, explanation, next, words });
                return Next::Stop;
            }
        };
        let content: Vec<Value> = response.get("content").and_then(Value::as_array).cloned().unwrap_or_default();
        let calls: Vec<Value> =
            content.iter().filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use")).cloned().collect();
        let text = text_of(&content);
        if calls.is_empty() {
            self.events.push(Event::Reply { text, provenance, by_kind });
            return Next::Done;
        }
        let mut preface = (!text.trim().is_empty()).then_some(text);
        let mut results = Vec::new();
        for call in &calls {
            let id = call.get("id").and_then(Value::as_str).unwrap_or("").to_string();
            let tool = call.get("name").and_then(Value::as_str).unwrap_or("").to_string();
            let input = call.get("input").cloned().unwrap_or(Value::Null);
            self.events.push(Event::ToolCall {
                id: id.clone(),
                tool: tool.clone(),
                input: input.clone(),
                words: words(self.lesson, &tool, &input),
                preface: preface.take(),
                provenance: provenance.clone(),
                // The turn's label goes on its first card.
                by_kind: std::mem::take(&mut by_kind),
            });
            match self.call_tool(&id, &tool, &input) {
                Some(result) => results.push(result),
                None => return Next::Stop,
            }
        }
        self.messages.push(json!({"role": "assistant", "content": content}));
        match self.answer(&calls, results) {
            Some(messages) => Next::Answer(messages),
            None => Next::Stop,
        }
    }

    /// Run one tool call in this runtime and record its attempts. `None`: the learner's code
    /// failed, and the run stops.
    fn call_tool(&mut self, id: &str, tool: &str, input: &Value) -> Option<Answered> {
        let lesson = self.lesson;
        let delegated = lesson.tool(tool).and_then(|t| t.runs.clone());
        let mut harness = Harness {
            world: self.world.as_mut(),
            policy: self.policy,
            code: &mut *self.code,
            backoff: &mut self.backoff,
        };
        let (run, wire) = match (self.runtime, &delegated) {
            (Runtime::Harness, Some(task)) => {
                (harness.run(Mode::Full(lesson.harness.subagent_attempts), task, input, true), None)
            }
            (Runtime::Harness, None) => (harness.run_tool(tool, input), None),
            (Runtime::Sdk, _) => {
                let (run, result) = sdk::call_tool(&mut harness, &lesson.agent.server, tool, input);
                (run, Some(result))
            }
        };
        let prior = match self.runtime {
            Runtime::Sdk => mark_model_retry(&mut self.events, tool, input),
            Runtime::Harness => 0,
        };
        let wire_value = wire.as_ref().and_then(|w| serde_json::to_value(w).ok());
        let plain = sdk::unqualified(&lesson.agent.server, tool).unwrap_or(tool);
        self.push_attempts(id, &run, prior, wire_value, plain);
        if let Some(fault) = &run.fault {
            self.push_fault(fault);
            return None;
        }
        let mut result = run.result().cloned().unwrap_or(Value::Null);
        if delegated.is_some() && run.is_error() {
            if let Some(report) = self.subagent_report(&run, input) {
                self.events.push(Event::Report { tool_use_id: id.to_string(), report: report["report"].clone() });
                result = report;
            }
        }
        let (content, is_error) = match wire {
            Some(wire) => (Value::from(wire.content), wire.is_error),
            None => (Value::from(canonical(&result)), run.is_error()),
        };
        Some(Answered { id: id.to_string(), run, result, content, is_error })
    }

    /// What a subagent passes up when its task failed: the world's report, under the lesson's
    /// failure flag.
    fn subagent_report(&self, run: &ToolRun, input: &Value) -> Option<Value> {
        let seen = self.policy.seen(run.result()?);
        let report = self.world.report(&seen, run.attempts.len(), input)?;
        let mut wrapped = serde_json::Map::new();
        if let Some(flag) = self.lesson.failure.as_ref().and_then(|f| f.flag.clone()) {
            wrapped.insert(flag, Value::Bool(true));
        }
        wrapped.insert("report".into(), report);
        Some(Value::Object(wrapped))
    }

    /// The user message that answers a turn. `None`: the learner's code failed.
    fn answer(&mut self, calls: &[Value], results: Vec<Answered>) -> Option<Vec<Value>> {
        let note = (!self.followed_up).then(|| self.ticket.follow_up.clone()).flatten();
        self.followed_up = true;
        let built = answer_message(self.lesson, self.runtime, self.policy, &mut *self.code, calls, &results, note);
        let message = match built {
            Ok((message, printed)) => {
                if !printed.is_empty() {
                    self.note_printed(&printed);
                }
                message
            }
            Err(fault) => {
                self.push_fault(&fault);
                return None;
            }
        };
        let messages = sent_as(message);
        self.attach_blocks(&results, &messages);
        self.events.extend(notes(&messages));
        Some(messages)
    }

    /// Show the `tool_result` block the model receives for each call under the try it came
    /// from: the call's last attempt, or the read whose answer settled the call. In the SDK
    /// runtime the attempt keeps its MCP result, and the block is beside it.
    fn attach_blocks(&mut self, results: &[Answered], messages: &[Value]) {
        let blocks: Vec<&Value> =
            messages.iter().filter_map(|m| m.get("content").and_then(Value::as_array)).flatten().collect();
        let runtime = self.runtime;
        let place = self.lesson.place();
        for answered in results {
            let block = blocks
                .iter()
                .find(|b| b.get("tool_use_id").and_then(Value::as_str) == Some(answered.id.as_str()))
                .map(|b| (*b).clone());
            // The world's internal text of a failure, passed on to the model as it was.
            let cause = answered.run.attempts.last().and_then(|a| a.cause.as_ref());
            let internal = cause.filter(|c| place.internal(&c.category));
            let leaked =
                internal.is_some_and(|c| block.as_ref().is_some_and(|b| gives_away(&block_text(b), &c.message)));
            if leaked {
                let last = self.events.iter_mut().rev().find_map(|e| match e {
                    Event::Attempt { tool_use_id, leaked, .. } if *tool_use_id == answered.id => Some(leaked),
                    _ => None,
                });
                if let Some(slot) = last {
                    *slot = true;
                }
            }
            let settled = answered.run.settled.is_some();
            let last = self.events.iter_mut().rev().find_map(|e| match e {
                Event::Verify { tool_use_id, wire, .. } if settled && *tool_use_id == answered.id => Some(wire),
                Event::Attempt { tool_use_id, wire, block, .. } if *tool_use_id == answered.id => {
                    Some(if runtime == Runtime::Sdk { block } else { wire })
                }
                _ => None,
            });
            if let Some(slot) = last {
                *slot = block;
            }
        }
    }

    /// What the learner's answer hook printed goes on the last attempt's card.
    fn note_printed(&mut self, output: &str) {
        let last = self.events.iter_mut().rev().find_map(|e| match e {
            Event::Attempt { printed, .. } => Some(printed),
            _ => None,
        });
        if let Some(printed) = last {
            printed.push_str(output);
        }
    }

    fn push_fault(&mut self, fault: &harness::Fault) {
        self.events.push(Event::CodeError {
            message: fault.call.outcome.problem().unwrap_or_default(),
            call: Some(crate::pyrepr::call(&fault.function, &fault.args)),
            printed: fault.call.shown_output(),
        });
    }

    /// What a failure's card says of it: the fields the lesson's failures carry (or lack), or,
    /// where the runtime itself shapes failures, the kind of failure it was.
    fn details(&self, seen: &crate::world::Seen, attempt: &harness::Attempt) -> Vec<String> {
        let Some(shape) = self.lesson.failure.as_ref().filter(|_| self.lesson.hooks.build.is_some()) else {
            let kind = attempt.result.get("kind").and_then(Value::as_str);
            return kind.map(|k| vec![k.to_string()]).unwrap_or_default();
        };
        let named = self.policy.named_read(&attempt.result);
        let mut out = Vec::new();
        if shape.category.is_some() {
            out.push(match &seen.category {
                Some(c) => format!("category {c}"),
                None => "no category".into(),
            });
        }
        if shape.retryable.is_some() {
            out.push(match seen.retryable {
                Some(true) => "retryable".into(),
                Some(false) => "not retryable".into(),
                None => "no retry flag".into(),
            });
        }
        if shape.verify.is_some() {
            out.push(match &named {
                Some((tool, _)) => format!("verify {tool}"),
                None => "no verify".into(),
            });
        }
        out
    }

    /// Whether a failed result carries nothing a reader could act on: no category, no retry
    /// flag, no read to run, and not the tool's own message (a bare `Error` is a word, not news).
    fn says_nothing(&self, seen: &crate::world::Seen, attempt: &harness::Attempt) -> bool {
        let told = match (&seen.message, &attempt.cause) {
            (Some(message), Some(cause)) => message.contains(cause.message.trim()),
            (Some(message), None) => !message.trim().is_empty(),
            (None, _) => false,
        };
        seen.category.is_none()
            && seen.retryable.is_none()
            && !told
            && self.policy.named_read(&attempt.result).is_none()
    }

    /// The failed call this call checks, when it is the read the world named for it: the
    /// latest such call, and what the read found when it answered.
    fn read_of(&self, tool: &str, input: &Value, attempt: &harness::Attempt) -> (Option<String>, Option<bool>) {
        let named = json!({"tool": tool, "input": input});
        let of = self.named_reads.iter().rev().find(|(_, read)| *read == named).map(|(id, _)| id.clone());
        let found = of.as_ref().filter(|_| !attempt.failed).map(|_| self.world.found(&attempt.result));
        (of, found)
    }

    fn push_attempts(&mut self, tool_use_id: &str, run: &ToolRun, prior: u32, wire: Option<Value>, tool: &str) {
        let place = self.lesson.place();
        for (i, attempt) in run.attempts.iter().enumerate() {
            // The last try failed with every attempt the harness allows used: the cap ended it.
            let capped =
                (attempt.failed && i + 1 == run.attempts.len() && run.limit > 1 && attempt.number == run.limit)
                    .then_some(run.limit);
            let seen = if attempt.failed { self.policy.seen(&attempt.result) } else { Default::default() };
            let message = seen
                .message
                .clone()
                .or_else(|| attempt.result.get("message").and_then(Value::as_str).map(String::from));
            let details = if attempt.failed { self.details(&seen, attempt) } else { Vec::new() };
            let bare = attempt.failed && self.says_nothing(&seen, attempt);
            // Only the model's own calls can be its reads; the harness's are Verify events.
            let (read_of, found) = match self.runtime {
                Runtime::Sdk => self.read_of(tool, &run.input, attempt),
                Runtime::Harness => (None, None),
            };
            if let Some(verify) = attempt.cause.as_ref().and_then(|c| c.verify.clone()) {
                self.named_reads.push((tool_use_id.to_string(), verify));
            }
            self.events.push(Event::Attempt {
                tool_use_id: tool_use_id.to_string(),
                number: prior + attempt.number,
                output: attempt.result.clone(),
                failed: attempt.failed,
                category: seen.category,
                retryable: seen.retryable,
                message,
                details,
                cause: attempt.cause.as_ref().map(|c| c.category.clone()),
                summary: (!attempt.failed).then(|| place.summary(&attempt.result)).flatten(),
                said: attempt.said.clone(),
                retried: attempt.wait.is_some(),
                tone: Tone::Reported,
                wire: wire.clone(),
                printed: attempt.output.clone(),
                answer: attempt.retry.clone(),
                bare,
                read_of,
                found,
                block: None,
                leaked: false,
                capped,
            });
            if let Some(read) = &attempt.read {
                self.push_read(tool_use_id, read);
            }
            if let Some(wait) = attempt.wait {
                self.events.push(Event::Wait { ms: wait.as_millis() as u64 });
            }
        }
    }

    /// Every try of a read the harness ran, each its own event.
    fn push_read(&mut self, tool_use_id: &str, read: &ToolRun) {
        let tries = read.attempts.len();
        for (i, attempt) in read.attempts.iter().enumerate() {
            // A try that answered without finding anything found nothing, as the harness reads it.
            let found = (!attempt.failed).then(|| self.world.found(&attempt.result));
            let seen = self.policy.seen(&attempt.result);
            let details = if attempt.failed { self.details(&seen, attempt) } else { Vec::new() };
            self.events.push(Event::Verify {
                tool_use_id: tool_use_id.to_string(),
                tool: read.tool.clone(),
                input: read.input.clone(),
                number: attempt.number,
                failed: attempt.failed,
                retried: i + 1 < tries,
                found,
                message: seen.message,
                details,
                cause: attempt.cause.as_ref().map(|c| c.category.clone()),
                output: attempt.result.clone(),
                wire: None,
            });
        }
    }
}

/// The text a `tool_result` block gives the model: its content string, or its text blocks.
/// A card for each text block of the messages that answer a turn: everything the model reads
/// is on a card, the results under their attempts and the rest here.
fn notes(messages: &[Value]) -> Vec<Event> {
    let mut out = Vec::new();
    for blocks in messages.iter().filter_map(|m| m.get("content").and_then(Value::as_array)) {
        for (i, block) in blocks.iter().enumerate() {
            if block.get("type").and_then(Value::as_str) != Some("text") {
                continue;
            }
            let text = block.get("text").and_then(Value::as_str).unwrap_or_default().to_string();
            let after_results =
                !blocks[i..].iter().any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"));
            out.push(Event::Note { text, after_results });
        }
    }
    out
}

/// Whether text sent to the model gives away a failure's internal text: all of it, or one of its
/// telling words (a host, a path, a credential: eight characters or more with a `.`, `-` or `/`
/// inside), so a sentence that keeps only the host name still counts.
fn gives_away(text: &str, internal: &str) -> bool {
    let internal = internal.trim();
    if text.contains(internal) {
        return true;
    }
    internal
        .split(|c: char| c.is_whitespace() || "\"'(),=@:".contains(c))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.chars().count() >= 8 && w.contains(['.', '-', '/']))
        .any(|w| text.contains(w))
}

fn block_text(block: &Value) -> String {
    match block.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}

/// A tool call that ran, with what goes back to the model for it.
pub(crate) struct Answered {
    pub(crate) id: String,
    pub(crate) run: ToolRun,
    pub(crate) result: Value,
    /// The `tool_result` content the runtime itself would send.
    pub(crate) content: Value,
    pub(crate) is_error: bool,
}

impl Answered {
    /// A call the harness ran, answered with its result as canonical JSON.
    pub(crate) fn plain(id: String, run: ToolRun) -> Answered {
        let result = run.result().cloned().unwrap_or(Value::Null);
        let is_error = run.is_error();
        Answered { id, content: Value::from(canonical(&result)), result, is_error, run }
    }
}

/// The messages an answer is sent as: what a hook returns goes as it is, so a list is that many
/// messages.
pub(crate) fn sent_as(message: Value) -> Vec<Value> {
    match message {
        Value::Array(messages) => messages,
        one => vec![one],
    }
}

/// The user message that answers a turn's calls: built by the lesson's answer hook in the
/// harness runtime, else by the runtime itself (results first, all in one message, then the
/// note). Also returns what the learner's code printed.
pub(crate) fn answer_message(
    lesson: &Lesson,
    runtime: Runtime,
    policy: Policy<'_>,
    code: &mut dyn Code,
    calls: &[Value],
    results: &[Answered],
    note: Option<String>,
) -> Result<(Value, String), Box<harness::Fault>> {
    let hook = lesson.hooks.answer.as_ref().filter(|_| runtime == Runtime::Harness);
    let Some(hook) = hook else {
        let mut blocks: Vec<Value> = results
            .iter()
            .map(|r| {
                let mut block = json!({"type": "tool_result", "tool_use_id": r.id, "content": r.content});
                if r.is_error {
                    block["is_error"] = Value::Bool(true);
                }
                block
            })
            .collect();
        if let Some(note) = note {
            blocks.push(json!({"type": "text", "text": note}));
        }
        return Ok((json!({"role": "user", "content": blocks}), String::new()));
    };
    let args: Vec<Value> = hook
        .args
        .iter()
        .map(|arg| match arg.as_str() {
            "tool_uses" => Value::from(calls.to_vec()),
            "outcomes" => Value::from(results.iter().map(|r| outcome(lesson, policy, r)).collect::<Vec<_>>()),
            "note" => note.clone().map(Value::from).unwrap_or(Value::Null),
            _ => Value::Null,
        })
        .collect();
    let (built, output) = call_value(code, &hook.function, args);
    built.map(|message| (message, output))
}

/// An outcome as the answer hook receives it: `{"ok": true, "content": ...}`, or
/// `{"ok": false, "kind": ..., "message": ...}`.
fn outcome(lesson: &Lesson, policy: Policy<'_>, answered: &Answered) -> Value {
    if !answered.run.is_error() {
        return json!({"ok": true, "content": canonical(&answered.result)});
    }
    if lesson.hooks.build.is_none() {
        return answered.result.clone();
    }
    // The learner's own failure result, with what it says.
    let seen = policy.seen(&answered.result);
    let cause = answered.run.attempts.last().and_then(|a| a.cause.as_ref());
    let kind = cause.map(|c| policy.outcome_of_failure(c)["kind"].clone()).unwrap_or(Value::from("failed"));
    json!({"ok": false, "kind": kind, "message": seen.message, "result": answered.result})
}

/// What a card says when the run asked for a model turn nobody recorded: why the replay stops,
/// and how to get a reply.
fn no_recording() -> (String, String) {
    (
        "No recorded reply answers this request, so the replay stops here.".to_string(),
        "--live with ANTHROPIC_API_KEY set asks the model and keeps its reply under work/; an author \
records one with ./workshop record."
            .to_string(),
    )
}

/// In the SDK runtime a retry is the model calling the same tool with the same input again:
/// mark the earlier attempt as retried, and return how many attempts came before.
fn mark_model_retry(events: &mut [Event], tool: &str, input: &Value) -> u32 {
    let mut earlier = 0;
    let mut last_attempt: Option<usize> = None;
    let mut same_call = false;
    for (i, event) in events.iter().enumerate() {
        match event {
            Event::ToolCall { tool: t, input: x, .. } => same_call = t == tool && x == input,
            Event::Attempt { .. } if same_call => {
                earlier += 1;
                last_attempt = Some(i);
            }
            _ => {}
        }
    }
    // The call just pushed is the same call: it does not count as earlier.
    if let Some(i) = last_attempt {
        if let Event::Attempt { retried, .. } = &mut events[i] {
            *retried = true;
        }
    }
    earlier
}
