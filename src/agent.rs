//! The two runtimes around the model. `harness`: our code runs each tool call and acts on what
//! the learner's decision function says. `sdk`: the tools are an MCP server and the model
//! decides. Both build Messages API requests that keep the tool-use rules, and both stop after
//! the lesson's turn limit.

use serde_json::{json, Value};

use crate::bridge::LoadError;
use crate::harness::{self, Backoff, Code, Policy, ToolRun};
use crate::lesson::{Lesson, Ticket};
use crate::lumen::{self, World};
use crate::model::{Model, Turn};
use crate::recordings::canonical;
use crate::replay::{self, Event, Replay, Tone};
use crate::sdk;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    Harness,
    Sdk,
}

impl Runtime {
    pub const ALL: [Runtime; 2] = [Runtime::Harness, Runtime::Sdk];

    pub fn name(self) -> &'static str {
        match self {
            Runtime::Harness => "harness",
            Runtime::Sdk => "sdk",
        }
    }

    pub fn parse(text: &str) -> Option<Runtime> {
        Runtime::ALL.into_iter().find(|r| r.name() == text)
    }
}

impl clap::ValueEnum for Runtime {
    fn value_variants<'a>() -> &'a [Self] {
        &Runtime::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()))
    }
}

/// The request body the runtime sends for this conversation so far.
pub fn request(lesson: &Lesson, ticket: &Ticket, runtime: Runtime, messages: &[Value]) -> Value {
    let (system, tools) = match runtime {
        Runtime::Harness => (
            &lesson.agent.harness_system,
            lesson.tools_for(ticket).into_iter().map(|t| World::definition(t, &t.name)).collect(),
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

/// A tool call in words, for its card.
pub fn words(lesson: &Lesson, tool: &str, input: &Value) -> String {
    let plain = sdk::unqualified(&lesson.agent.server, tool).unwrap_or(tool);
    lumen::words(lesson, plain, input)
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
pub fn not_loaded(lesson: &Lesson, ticket: &Ticket, code: &str, runtime: Runtime, error: &LoadError) -> Replay {
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
    paid: &std::collections::BTreeMap<String, u32>,
) -> Replay {
    let helps = &lesson.world.retry_helps;
    replay::settle_tones(&mut events, helps);
    let mut verdict = replay::verdict(&events, helps, paid);
    verdict.note = ticket.notes.get(code).cloned();
    Replay {
        lesson: lesson.id.clone(),
        ticket: ticket.id.clone(),
        code: code.to_string(),
        runtime: runtime.name().to_string(),
        events,
        verdict,
    }
}

/// Run one ticket: the model's turns from `model`, the tools and the harness for real.
pub fn run(
    lesson: &Lesson,
    ticket: &Ticket,
    runtime: Runtime,
    code_label: &str,
    code: &mut dyn Code,
    model: &mut dyn Model,
) -> Replay {
    let mut world = World::for_ticket(lesson, ticket);
    let policy = Policy { data: &lesson.harness };
    let server = lesson.agent.server.as_str();
    let mut backoff = Backoff::seeded(&format!("{}/{}", lesson.id, ticket.id));
    let mut messages = vec![json!({"role": "user", "content": ticket.text})];
    let mut events = vec![Event::Customer { text: ticket.text.clone() }];
    let mut answered = false;
    for _ in 0..lesson.agent.max_turns {
        let body = request(lesson, ticket, runtime, &messages);
        if let Err(why) = crate::messages::check_request(&body) {
            events.push(Event::CodeError {
                message: format!("the runtime built a request that breaks the tool-use rules: {why}"),
                call: None,
                printed: String::new(),
            });
            return finish(lesson, ticket, code_label, runtime, events, world.paid());
        }
        let (response, provenance) = match model.respond(&body) {
            Turn::Reply { response, provenance } => (response, provenance),
            Turn::Missing { closest, diff } => {
                let sent = messages.last().and_then(|m| m.get("content")).cloned().unwrap_or(Value::Null);
                events.push(Event::NoRecording { sent, closest, diff, explanation: NO_RECORDING.trim().to_string() });
                return finish(lesson, ticket, code_label, runtime, events, world.paid());
            }
        };
        let content: Vec<Value> = response.get("content").and_then(Value::as_array).cloned().unwrap_or_default();
        let calls: Vec<&Value> =
            content.iter().filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use")).collect();
        let text = text_of(&content);
        if calls.is_empty() {
            events.push(Event::Reply { text, provenance });
            answered = true;
            break;
        }
        let mut preface = (!text.trim().is_empty()).then_some(text);
        let mut results = Vec::new();
        for call in calls {
            let id = call.get("id").and_then(Value::as_str).unwrap_or("").to_string();
            let tool = call.get("name").and_then(Value::as_str).unwrap_or("").to_string();
            let input = call.get("input").cloned().unwrap_or(Value::Null);
            events.push(Event::ToolCall {
                id: id.clone(),
                tool: tool.clone(),
                input: input.clone(),
                words: words(lesson, &tool, &input),
                preface: preface.take(),
                provenance: provenance.clone(),
            });
            let delegated = lesson.tool(&tool).and_then(|t| t.runs.clone());
            let (run, wire) = match runtime {
                Runtime::Harness => match &delegated {
                    Some(task) => {
                        let attempts = lesson.harness.subagent_attempts;
                        (harness::run_limited(&mut world, policy, code, &mut backoff, task, &input, attempts), None)
                    }
                    None => (harness::run_tool(&mut world, policy, code, &mut backoff, &tool, &input), None),
                },
                Runtime::Sdk => {
                    let (run, result) = sdk::call_tool(&mut world, policy, server, code, &tool, &input);
                    (run, Some(result))
                }
            };
            let prior = match runtime {
                Runtime::Sdk => mark_model_retry(&mut events, &tool, &input),
                Runtime::Harness => 0,
            };
            push_attempts(&mut events, &id, &run, prior, wire.as_ref().and_then(|w| serde_json::to_value(w).ok()));
            if let Some(fault) = &run.fault {
                events.push(Event::CodeError {
                    message: fault.call.outcome.problem().unwrap_or_default(),
                    call: Some(crate::pyrepr::call(&fault.function, &fault.args)),
                    printed: fault.call.shown_output(),
                });
                return finish(lesson, ticket, code_label, runtime, events, world.paid());
            }
            let mut result = run.result().cloned().unwrap_or(Value::Null);
            if delegated.is_some() && run.is_error() {
                let report = run.result().and_then(|r| world.subagent_report(r, run.attempts.len(), &input));
                if let Some(report) = report {
                    events.push(Event::Report { tool_use_id: id.clone(), report: report["report"].clone() });
                    result = report;
                }
            }
            let mut block = match &wire {
                Some(wire) => json!({"type": "tool_result", "tool_use_id": id, "content": wire.content}),
                None => json!({"type": "tool_result", "tool_use_id": id, "content": canonical(&result)}),
            };
            let is_error = match &wire {
                Some(wire) => wire.is_error,
                None => run.is_error(),
            };
            if is_error {
                block["is_error"] = Value::Bool(true);
            }
            if runtime == Runtime::Harness {
                // What the model receives for this call, beside the tool's own `isError`.
                let last = events.iter_mut().rev().find_map(|e| match e {
                    Event::Attempt { tool_use_id, wire, .. } if *tool_use_id == id => Some(wire),
                    _ => None,
                });
                if let Some(wire) = last {
                    *wire = Some(block.clone());
                }
            }
            results.push(block);
        }
        messages.push(json!({"role": "assistant", "content": content}));
        messages.push(json!({"role": "user", "content": results}));
    }
    if !answered {
        events.push(Event::CodeError {
            message: format!("the agent stopped after {} model turns without a final reply", lesson.agent.max_turns),
            call: None,
            printed: String::new(),
        });
    }
    finish(lesson, ticket, code_label, runtime, events, world.paid())
}

const NO_RECORDING: &str = "
The code gave the model a tool result that no recorded run contains, so the replay stops here \
instead of inventing a reply. Below: the message the model would have been sent, and how this \
request differs from the closest recorded one. If your checks are green, compare your results \
with `--code structured`; a different message or key changes what the model sees. With `--live` \
and ANTHROPIC_API_KEY set, watch would ask the model instead and keep its reply under work/.";

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

fn push_attempts(events: &mut Vec<Event>, tool_use_id: &str, run: &ToolRun, prior: u32, wire: Option<Value>) {
    for attempt in &run.attempts {
        let error = attempt.result.get("error");
        let field = |name: &str| error.and_then(|e| e.get(name)).cloned();
        let message = field("message")
            .or_else(|| attempt.result.get("message").cloned())
            .and_then(|m| m.as_str().map(String::from));
        events.push(Event::Attempt {
            tool_use_id: tool_use_id.to_string(),
            number: prior + attempt.number,
            output: attempt.result.clone(),
            failed: attempt.failed,
            category: field("errorCategory").and_then(|c| c.as_str().map(String::from)),
            retryable: field("isRetryable").and_then(|r| r.as_bool()),
            message,
            cause: attempt.cause.clone(),
            retried: attempt.wait.is_some(),
            tone: Tone::Reported,
            wire: wire.clone(),
            printed: attempt.output.clone(),
            answer: attempt.retry.clone(),
        });
        if let Some(read) = &attempt.read {
            // A read that answered without `found: true` found nothing, as the harness reads it.
            let found =
                (!read.is_error()).then(|| read.result().and_then(|r| r.get("found")).is_some_and(harness::truthy));
            events.push(Event::Verify {
                tool_use_id: tool_use_id.to_string(),
                tool: read.tool.clone(),
                input: read.input.clone(),
                tries: read.attempts.len(),
                found,
                message: read
                    .result()
                    .and_then(|r| r.get("message").or_else(|| r.get("error").and_then(|e| e.get("message"))))
                    .and_then(Value::as_str)
                    .map(String::from),
                output: read.result().cloned().unwrap_or(Value::Null),
            });
        }
        if let Some(wait) = attempt.wait {
            events.push(Event::Wait { ms: wait.as_millis() as u64 });
        }
    }
}
