//! The two runtimes around the model. `harness`: our code runs each tool call and acts on what
//! the lesson's hooks say. `sdk`: the tools are an MCP server and the model decides. Both send
//! Messages API requests; every request is held to the API's tool-use rules whoever built it,
//! so a broken rule ends the run with the 400 the API would give. Both stop after the lesson's
//! turn limit.

mod answer;
mod facts;
pub(crate) mod harness;
mod host;
mod host_loop;
mod lazy;
mod mcp;
pub(crate) mod sdk;
mod sent;

use serde_json::{json, Value};

use crate::bridge::LoadError;
use crate::lesson::kinds::ByKind;
use crate::lesson::{Lesson, Runtime, Ticket};
use crate::replay::events::{Event, Run};
use crate::replay::recordings::canonical;
use crate::replay::turns::Model;
use crate::world::World;
pub(crate) use answer::{answer_message, sent_as, Answered};
use harness::{Backoff, Code, Harness, Mode, Policy, ToolRun};

/// The request body the runtime sends for this conversation so far.
pub(crate) fn request(
    lesson: &Lesson,
    ticket: &Ticket,
    runtime: Runtime,
    messages: &[Value],
) -> Value {
    offering(lesson, ticket, runtime, Sofar { messages, listed: None })
}

/// What a request holds that changes turn by turn: the conversation so far, and the tools an
/// MCP client has read from `tools/list`, once it has.
struct Sofar<'a> {
    messages: &'a [Value],
    listed: Option<&'a [Value]>,
}

/// The request body, with the tools an MCP client offers once it has read `tools/list`.
fn offering(lesson: &Lesson, ticket: &Ticket, runtime: Runtime, sofar: Sofar<'_>) -> Value {
    let Sofar { messages, listed } = sofar;
    let server = &lesson.agent.server;
    let (system, mut tools): (_, Vec<Value>) = match runtime {
        Runtime::Harness => (
            &lesson.agent.harness_system,
            lesson.tools_for(ticket).into_iter().map(|t| t.definition(&t.name)).collect(),
        ),
        Runtime::Sdk => {
            let tools = sdk::tool_definitions(lesson, ticket).as_array().cloned();
            (&lesson.agent.sdk_system, tools.unwrap_or_default())
        }
    };
    match (listed, &lesson.mcp) {
        (Some(listed), data) => {
            tools = mcp::offered(listed, runtime, server);
            // A cached tool the conversation already called stays offered: the API refuses a
            // request whose history calls a tool it does not offer.
            if let Some(data) = data {
                let called = called_tools(messages);
                let kept = mcp::cached(data, runtime, server).into_iter().filter(|t| {
                    let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
                    called.contains(&name) && !tools.iter().any(|o| o.get("name") == t.get("name"))
                });
                tools.extend(kept.collect::<Vec<_>>());
            }
        }
        (None, Some(data)) => tools.extend(mcp::cached(data, runtime, server)),
        (None, None) => {}
    }
    json!({
        "model": lesson.agent.model,
        "max_tokens": lesson.agent.max_tokens,
        "system": system.trim(),
        "tools": tools,
        "messages": messages,
    })
}

/// The names of the tools the conversation's assistant turns called.
fn called_tools(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .filter_map(|b| b.get("name").and_then(Value::as_str))
        .collect()
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
        return found
            .says_bare
            .clone()
            .unwrap_or_else(|| format!("calls {plain} without all of its input"));
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
pub(crate) fn not_loaded(
    lesson: &Lesson,
    ticket: &Ticket,
    code: &str,
    runtime: Runtime,
    error: &LoadError,
) -> Run {
    let mut events = vec![Event::Customer { text: ticket.text.clone() }];
    events.push(Event::CodeError {
        message: error.message.clone(),
        call: None,
        printed: error.output.clone(),
    });
    finish(lesson, ticket, code, runtime, events, &Default::default(), (0, 0))
}

fn finish(
    lesson: &Lesson,
    ticket: &Ticket,
    code: &str,
    runtime: Runtime,
    events: Vec<Event>,
    effects: &crate::world::Effects,
    (turns, elapsed_ms): (usize, u64),
) -> Run {
    let setting = lesson.setting();
    let judgement = crate::replay::story::judgement(&events, setting, runtime);
    let mut verdict = crate::replay::story::verdict(&events, setting, effects);
    verdict.counts.turns = turns;
    verdict.counts.elapsed_ms = elapsed_ms;
    verdict.note =
        crate::replay::story::note(ticket.notes.list(), &verdict.counts).map(String::from);
    Run {
        lesson: lesson.id.clone(),
        ticket: ticket.id.clone(),
        code: code.to_string(),
        runtime: runtime.name().to_string(),
        events,
        judgement,
        verdict,
    }
}

/// How one turn ended.
enum TurnEnd {
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
    /// The run's events so far: each pushed once, when its turn is over, and never edited.
    events: Vec<Event>,
    /// The events of the turn in progress, pushed to `events` once what the message that
    /// answers the turn sent is known.
    turn: Vec<Event>,
    /// Whether the ticket's follow-up text has gone to the model yet.
    followed_up: bool,
    /// The reads the world named for failed calls so far (the call's id, the read), so that
    /// a model that makes that read is seen to check the failure.
    named_reads: Vec<(String, Value)>,
    /// The replay's own clock: the recorded time of each request and the waits the host chose.
    clock_ms: u64,
    /// The model's answers so far (its turns).
    replies: usize,
    /// The MCP client's state, for a lesson whose learner writes the server.
    client: mcp::McpClient,
}

/// Run one ticket: the model's turns from `model`, the tools and the harness for real.
pub(crate) fn run(
    lesson: &Lesson,
    ticket: &Ticket,
    runtime: Runtime,
    code_label: &str,
    code: &mut dyn Code,
    model: &mut dyn Model,
) -> Run {
    let mut c = Conversation {
        lesson,
        ticket,
        runtime,
        policy: Policy::of(lesson),
        world: Box::new(lazy::LazyRun::new(lesson, &ticket.id)),
        backoff: Backoff::seeded(&format!("{}/{}", lesson.id, ticket.id)),
        code,
        messages: vec![json!({"role": "user", "content": ticket.text})],
        events: vec![Event::Customer { text: ticket.text.clone() }],
        turn: Vec::new(),
        followed_up: false,
        named_reads: Vec::new(),
        clock_ms: 0,
        replies: 0,
        client: mcp::McpClient::default(),
    };
    let mut over = false;
    if let Some(hook) = lesson.hooks.host_loop.as_ref().filter(|_| runtime == Runtime::Harness) {
        // The learner's loop sends the requests itself: the runtime answers them.
        c.own_loop(hook, model);
        c.events.append(&mut c.turn);
        over = true;
    }
    for _ in 0..lesson.agent.max_turns {
        if over {
            break;
        }
        let next = if c.may_go_on() { c.turn(model) } else { TurnEnd::Stop };
        c.events.append(&mut c.turn);
        match next {
            // Over either way: a stop has said why in its own event.
            TurnEnd::Done | TurnEnd::Stop => {
                over = true;
                break;
            }
            TurnEnd::Answer(messages) => c.messages.extend(messages),
        }
    }
    if !over {
        c.out_of_turns();
        c.events.append(&mut c.turn);
    }
    // The waits the harness chose between a tool's attempts took time on the same clock.
    let waits = c.events.iter().map(|e| if let Event::Wait { ms } = e { *ms } else { 0 });
    let elapsed_ms = c.clock_ms + waits.sum::<u64>();
    let effects = c.world.effects();
    finish(lesson, ticket, code_label, runtime, c.events, &effects, (c.replies, elapsed_ms))
}

/// The `tool_use` blocks of a model turn's content, in order.
fn tool_uses(content: &[Value]) -> Vec<Value> {
    let is_call = |b: &&Value| b.get("type").and_then(Value::as_str) == Some("tool_use");
    content.iter().filter(is_call).cloned().collect()
}

/// The stop reasons of a reply the model did not finish: the person is told.
const CUT_OFF: [&str; 2] = ["max_tokens", "refusal"];

/// The swaps a model turn's card tells.
fn told_kinds(event: &Event) -> &[ByKind] {
    match event {
        Event::ToolCall { by_kind, .. } | Event::Reply { by_kind, .. } => by_kind,
        _ => &[],
    }
}

impl Conversation<'_, '_> {
    /// Send the conversation so far, and act on the model's turn.
    fn turn(&mut self, model: &mut dyn Model) -> TurnEnd {
        let listed = self.client.listed.as_deref();
        let sofar = Sofar { messages: &self.messages, listed };
        let body = offering(self.lesson, self.ticket, self.runtime, sofar);
        let invalid = crate::replay::messages::check_request(&body).err().map(|e| e.to_string());
        if let (Some(message), None) = (&invalid, &self.lesson.hooks.api_error) {
            // Without code of its own for the API's errors, the refusal ends the run as it is.
            let (status, error_type) = (400, "invalid_request_error".into());
            self.turn.push(Event::ApiError { status, error_type, message: message.clone() });
            return TurnEnd::Stop;
        }
        let (response, provenance, mut by_kind) = match self.send(model, &body, invalid) {
            host::Sent::Reply { response, provenance, by_kind } => (response, provenance, by_kind),
            host::Sent::Stop => return TurnEnd::Stop,
        };
        self.untold(&mut by_kind);
        let content: Vec<Value> =
            response.get("content").and_then(Value::as_array).cloned().unwrap_or_default();
        let calls = tool_uses(&content);
        let text = text_of(&content);
        if calls.is_empty() {
            let stop_reason = response.get("stop_reason").and_then(Value::as_str);
            let cut = stop_reason.filter(|r| CUT_OFF.contains(r)).map(String::from);
            let stop_reason = cut.clone();
            self.turn.push(Event::Reply { text: text.clone(), provenance, by_kind, stop_reason });
            if let Some(reason) = cut {
                self.tell(&reason, json!({}), Some(&text));
            }
            return TurnEnd::Done;
        }
        let mut preface = (!text.trim().is_empty()).then_some(text);
        let mut results = Vec::new();
        let mut taken_back = false;
        for call in &calls {
            let id = call.get("id").and_then(Value::as_str).unwrap_or("").to_string();
            let tool = call.get("name").and_then(Value::as_str).unwrap_or("").to_string();
            let input = call.get("input").cloned().unwrap_or(Value::Null);
            self.turn.push(Event::ToolCall {
                id: id.clone(),
                tool: tool.clone(),
                input: input.clone(),
                words: words(self.lesson, &tool, &input),
                preface: preface.take(),
                provenance: provenance.clone(),
                // The turn's label goes on its first card.
                by_kind: std::mem::take(&mut by_kind),
            });
            match self.serve(&id, &tool, &input) {
                mcp::Served::Answer(answered) => results.push(*answered),
                mcp::Served::TakeBack => taken_back = true,
                mcp::Served::Stop => return TurnEnd::Stop,
            }
        }
        if taken_back {
            // The host keeps the error from the model: the turn is not sent back, and the model
            // is asked again with the conversation as it was (and the tools as now listed).
            return TurnEnd::Answer(Vec::new());
        }
        self.messages.push(json!({"role": "assistant", "content": content}));
        match self.answer(&calls, results) {
            Some(messages) => TurnEnd::Answer(messages),
            None => TurnEnd::Stop,
        }
    }

    /// Keep the swaps by kind no earlier card has told. A swap is told once, on the first turn
    /// that depended on it: the later requests carry the same words again, and two results of
    /// one kind in a request are one swap.
    fn untold(&self, by_kind: &mut Vec<ByKind>) {
        let earlier = self.events.iter().chain(&self.turn);
        let mut told: Vec<ByKind> = earlier.flat_map(told_kinds).cloned().collect();
        by_kind.retain(|swap| {
            let new = !told.contains(swap);
            told.push(swap.clone());
            new
        });
    }

    /// Serve one call: as the MCP client for an `[mcp]` lesson, else in this runtime.
    fn serve(&mut self, id: &str, tool: &str, input: &Value) -> mcp::Served {
        match &self.lesson.mcp {
            Some(data) => self.mcp_call(data, mcp::ToolUse { id, tool, input }),
            None => match self.call_tool(id, tool, input) {
                Some(answered) => mcp::Served::Answer(Box::new(answered)),
                None => mcp::Served::Stop,
            },
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
            Runtime::Sdk => {
                facts::earlier_attempts(self.events.iter().chain(&self.turn), tool, input)
            }
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
                self.turn.push(Event::Report {
                    tool_use_id: id.to_string(),
                    report: report["report"].clone(),
                });
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
        let built = answer_message(
            self.lesson,
            self.runtime,
            self.policy,
            &mut *self.code,
            calls,
            &results,
            note,
        );
        let (message, printed) = match built {
            Ok(built) => built,
            Err(fault) => {
                self.push_fault(&fault);
                return None;
            }
        };
        let messages = sent_as(message);
        let turn = std::mem::take(&mut self.turn);
        // Whether the request that carries these messages breaks a tool-use rule: then the
        // model reads none of them.
        let next = [self.messages.clone(), messages.clone()].concat();
        let body = request(self.lesson, self.ticket, self.runtime, &next);
        let refused = crate::replay::messages::check_request(&body).err().map(|e| e.to_string());
        let sent = sent::SentReply {
            messages: &messages,
            printed: &printed,
            runtime: self.runtime,
            setting: self.lesson.setting(),
            wording: &self.lesson.wording,
            properties: &self.lesson.properties,
            policy: self.policy,
            refused: refused.as_deref(),
        };
        self.turn = sent::complete(turn, &results, &sent);
        self.turn.extend(facts::notes(&messages));
        Some(messages)
    }

    fn push_fault(&mut self, fault: &harness::Fault) {
        self.turn.push(Event::CodeError {
            message: fault.call.outcome.problem().unwrap_or_default(),
            call: Some(crate::text::pyrepr::call(&fault.function, &fault.args)),
            printed: fault.call.shown_output(),
        });
    }
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
