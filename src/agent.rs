//! The two runtimes around the model. `harness`: our code runs each tool call and retries what
//! `should_retry` allows. `sdk`: the tools are an MCP server and the model decides. Both build
//! Messages API requests that keep the tool-use rules, and both stop after `MAX_TURNS` turns.

use serde_json::{json, Value};

use crate::bridge::LoadError;
use crate::harness::{self, Backoff, Code, ToolRun};
use crate::lesson::{Lesson, Ticket};
use crate::lumen::{World, DELEGATE_LOOKUP, LOOKUP_ORDER, LOOKUP_ORDERS, PROCESS_REFUND};
use crate::model::{Model, Turn};
use crate::recordings::canonical;
use crate::replay::{self, Event, Replay, Tone};
use crate::sdk;

/// Model turns at most in one run.
pub const MAX_TURNS: usize = 6;

/// Attempts a subagent makes at its one lookup: the first, and one local retry.
pub const SUBAGENT_ATTEMPTS: u32 = 2;

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

/// The request body the runtime sends for this conversation so far.
pub fn request(lesson: &Lesson, ticket: &Ticket, runtime: Runtime, messages: &[Value]) -> Value {
    let (system, tools) = match runtime {
        Runtime::Harness => (&lesson.agent.harness_system, World::tool_definitions(ticket)),
        Runtime::Sdk => (&lesson.agent.sdk_system, sdk::tool_definitions(ticket)),
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
pub fn words(tool: &str, input: &Value) -> String {
    let plain = sdk::unqualified(tool).unwrap_or(tool);
    match plain {
        PROCESS_REFUND => match input.get("order_id") {
            Some(Value::String(id)) => format!("refunds order {id}"),
            Some(other) => format!("refunds order {other}"),
            None => "refunds an order, without saying which".into(),
        },
        LOOKUP_ORDERS => "looks up the customer's orders".into(),
        DELEGATE_LOOKUP | LOOKUP_ORDER => match input.get("order_id").and_then(Value::as_str) {
            Some(id) if plain == DELEGATE_LOOKUP => format!("starts a subagent to look up order {id}"),
            Some(id) => format!("looks up order {id}"),
            None => "looks up an order, without saying which".into(),
        },
        other => format!("calls {other}"),
    }
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
    finish(lesson, ticket, code, runtime, events)
}

fn finish(lesson: &Lesson, ticket: &Ticket, code: &str, runtime: Runtime, mut events: Vec<Event>) -> Replay {
    replay::settle_tones(&mut events);
    let verdict = replay::verdict(&events);
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
    let mut backoff = Backoff::seeded(&format!("{}/{}", lesson.id, ticket.id));
    let mut messages = vec![json!({"role": "user", "content": ticket.text})];
    let mut events = vec![Event::Customer { text: ticket.text.clone() }];
    let mut answered = false;
    for _ in 0..MAX_TURNS {
        let body = request(lesson, ticket, runtime, &messages);
        if let Err(why) = crate::messages::check_request(&body) {
            events.push(Event::CodeError {
                message: format!("the runtime built a request that breaks the tool-use rules: {why}"),
                call: None,
                printed: String::new(),
            });
            return finish(lesson, ticket, code_label, runtime, events);
        }
        let (response, provenance) = match model.respond(&body) {
            Turn::Reply { response, provenance } => (response, provenance),
            Turn::Missing { closest, diff } => {
                let sent = messages.last().and_then(|m| m.get("content")).cloned().unwrap_or(Value::Null);
                events.push(Event::NoRecording { sent, closest, diff, explanation: NO_RECORDING.trim().to_string() });
                return finish(lesson, ticket, code_label, runtime, events);
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
                words: words(&tool, &input),
                preface: preface.take(),
                provenance: provenance.clone(),
            });
            let (run, wire) = match runtime {
                Runtime::Harness if tool == DELEGATE_LOOKUP => {
                    let run =
                        harness::run_limited(&mut world, code, &mut backoff, LOOKUP_ORDER, &input, SUBAGENT_ATTEMPTS);
                    (run, None)
                }
                Runtime::Harness => (harness::run_tool(&mut world, code, &mut backoff, &tool, &input), None),
                Runtime::Sdk => {
                    let (run, result) = sdk::call_tool(&mut world, code, &tool, &input);
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
                return finish(lesson, ticket, code_label, runtime, events);
            }
            let mut result = run.result().cloned().unwrap_or(Value::Null);
            if tool == DELEGATE_LOOKUP {
                if let Some(report) = subagent_report(&world, &run, &input) {
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
            results.push(block);
        }
        messages.push(json!({"role": "assistant", "content": content}));
        messages.push(json!({"role": "user", "content": results}));
    }
    if !answered {
        events.push(Event::CodeError {
            message: format!("the agent stopped after {MAX_TURNS} model turns without a final reply"),
            call: None,
            printed: String::new(),
        });
    }
    finish(lesson, ticket, code_label, runtime, events)
}

/// A subagent whose lookup failed passes up a report in four labelled parts, built from the
/// structured error it got. An error with no category gives it nothing to report, so the bare
/// result goes up as it came.
fn subagent_report(world: &World<'_>, run: &ToolRun, input: &Value) -> Option<Value> {
    if !run.is_error() {
        return None;
    }
    let error = run.result()?.get("error")?;
    let category = error.get("errorCategory")?.as_str()?;
    let message = error.get("message").and_then(Value::as_str).unwrap_or("no message");
    let order_id = input.get("order_id").and_then(Value::as_str).unwrap_or("?").to_string();
    let attempts = run.attempts.len();
    let fields = [
        ("order_id", order_id),
        ("category", category.to_string()),
        ("message", message.to_string()),
        ("attempts", attempts.to_string()),
    ];
    let tried = if attempts > 1 { "subagent_tried_retry" } else { "subagent_tried_once" };
    let next = if error.get("isRetryable") == Some(&Value::Bool(true)) {
        "subagent_next_later"
    } else {
        "subagent_next_final"
    };
    Some(json!({
        "isError": true,
        "report": {
            "failed": world.message("subagent_failed", &fields),
            "tried": world.message(tried, &fields),
            "partial": world.message("subagent_partial", &fields),
            "next": world.message(next, &fields),
        }
    }))
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
        });
        if let Some(wait) = attempt.wait {
            events.push(Event::Wait { ms: wait.as_millis() as u64 });
        }
    }
}
