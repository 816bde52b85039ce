//! The Agent SDK runtime's tools: an in-process MCP server, named by the lesson. A result is an
//! MCP `CallToolResult`; MCP spells its flag `isError` on the wire, the Python SDK and the
//! Messages API spell it `is_error`. There is no retry here: the model decides.

use serde::Serialize;
use serde_json::{json, Value};

use super::harness::{Harness, Mode, ToolRun};
use crate::lesson::{Lesson, Ticket};

pub(crate) use crate::replay::turns::{qualified, unqualified};

/// The tools as the SDK offers them to the model.
pub(crate) fn tool_definitions(lesson: &Lesson, ticket: &Ticket) -> Value {
    let server = &lesson.agent.server;
    lesson
        .tools_for(ticket)
        .into_iter()
        .map(|t| t.definition(&qualified(server, &t.name)))
        .collect()
}

/// MCP's result of a tool call, in its wire form.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct CallToolResult {
    pub(crate) content: Vec<Value>,
    #[serde(rename = "isError")]
    pub(crate) is_error: bool,
}

/// Serve one `tools/call`: run the tool once and wrap what it returned.
pub(crate) fn call_tool(
    harness: &mut Harness<'_, '_>,
    server: &str,
    name: &str,
    arguments: &Value,
) -> (ToolRun, CallToolResult) {
    let tool = unqualified(server, name).unwrap_or(name);
    let run = harness.run(Mode::Once, tool, arguments, false);
    let result = run.result().cloned().unwrap_or(Value::Null);
    let is_error = match harness.policy.hooks.build {
        // The tool returns what the learner's code built, flagged by the lesson's own key (MCP's
        // `isError`, or the Python SDK's and the API's `is_error`).
        Some(_) => result.get(harness.policy.flag_key()) == Some(&Value::Bool(true)),
        // The SDK builds the result itself, and flags what failed.
        None => run.is_error(),
    };
    let text = match (&harness.policy.hooks.build, result.get("message")) {
        (None, Some(Value::String(message))) if is_error => message.clone(),
        _ => crate::replay::recordings::canonical(&result),
    };
    (run, CallToolResult { content: vec![json!({"type": "text", "text": text})], is_error })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(qualified("desk", "process_refund"), "mcp__desk__process_refund");
        assert_eq!(unqualified("desk", "mcp__desk__lookup_orders"), Some("lookup_orders"));
        assert_eq!(unqualified("desk", "mcp__other__lookup_orders"), None);
    }
}
