//! The message that answers a turn's tool calls: each call's result as the runtime sends it,
//! or as the lesson's answer hook builds it.

use serde_json::{json, Value};

use super::harness::{call_value, Code, Fault, Policy, ToolRun};
use crate::lesson::{Lesson, Runtime};
use crate::replay::recordings::canonical;

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
) -> Result<(Value, String), Box<Fault>> {
    let hook = lesson.hooks.answer.as_ref().filter(|_| runtime == Runtime::Harness);
    let Some(hook) = hook else {
        let mut blocks: Vec<Value> = results
            .iter()
            .map(|r| {
                let mut block =
                    json!({"type": "tool_result", "tool_use_id": r.id, "content": r.content});
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
            "outcomes" => {
                Value::from(results.iter().map(|r| outcome(lesson, policy, r)).collect::<Vec<_>>())
            }
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
    let kind = cause
        .map(|c| policy.outcome_of_failure(c)["kind"].clone())
        .unwrap_or(Value::from("failed"));
    json!({"ok": false, "kind": kind, "message": seen.message, "result": answered.result})
}
