//! The Agent SDK runtime's tools: an in-process MCP server named `support`. A result is an MCP
//! `CallToolResult`; MCP spells its flag `isError` on the wire, the Python SDK and the Messages
//! API spell it `is_error`. There is no retry here: the model decides.

use serde::Serialize;
use serde_json::{json, Value};

use crate::harness::{self, Code, ToolRun};
use crate::lesson::Ticket;
use crate::lumen::World;

pub const SERVER: &str = "support";

/// `mcp__support__process_refund` for `process_refund`.
pub fn qualified(tool: &str) -> String {
    format!("mcp__{SERVER}__{tool}")
}

/// The plain tool name of a qualified one, when it is this server's.
pub fn unqualified(name: &str) -> Option<&str> {
    name.strip_prefix("mcp__")?.strip_prefix(SERVER)?.strip_prefix("__")
}

/// The tools as the SDK offers them to the model.
pub fn tool_definitions(ticket: &Ticket) -> Value {
    let mut tools = World::tool_definitions(ticket);
    if let Some(list) = tools.as_array_mut() {
        for tool in list {
            if let Some(name) = tool.get("name").and_then(Value::as_str).map(qualified) {
                tool["name"] = Value::from(name);
            }
        }
    }
    tools
}

/// MCP's result of a tool call, in its wire form.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallToolResult {
    pub content: Vec<Value>,
    #[serde(rename = "isError")]
    pub is_error: bool,
}

/// Serve one `tools/call`: run the tool once and wrap what it returned.
pub fn call_tool(
    world: &mut World<'_>,
    code: &mut dyn Code,
    name: &str,
    arguments: &Value,
) -> (ToolRun, CallToolResult) {
    let tool = unqualified(name).unwrap_or(name);
    let run = harness::run_once(world, code, tool, arguments);
    let result = run.result().cloned().unwrap_or(Value::Null);
    // The flag comes from the tool's own `isError`, as an SDK tool reports it.
    let is_error = result.get("isError") == Some(&Value::Bool(true));
    let text = crate::recordings::canonical(&result);
    (run, CallToolResult { content: vec![json!({"type": "text", "text": text})], is_error })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(qualified("process_refund"), "mcp__support__process_refund");
        assert_eq!(unqualified("mcp__support__lookup_orders"), Some("lookup_orders"));
        assert_eq!(unqualified("mcp__other__lookup_orders"), None);
    }
}
