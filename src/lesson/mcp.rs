//! `[mcp]`: a lesson whose learner writes an MCP server. The runner is the client: it sends
//! JSON-RPC 2.0 `tools/call` and `tools/list` requests to the learner's request handler, hands a
//! `result` to the model as a `tool_result`, and follows the policy declared here for a JSON-RPC
//! `error`, which the model never reads.

use serde::Deserialize;

use super::problems::{Near, Problems};
use super::Lesson;

/// What the client does with a JSON-RPC `error` (or a response it cannot use).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnError {
    /// The host keeps it: the model's turn is taken back and the model asked again, as if the
    /// call had never been made. The same call failing twice in a row ends the run.
    Host,
    /// The model reads the lesson's fixed line (`error_line`) as a failed `tool_result`.
    Line,
    /// The run ends: the host shows the person the error.
    End,
}

impl OnError {
    pub(crate) fn name(self) -> &'static str {
        match self {
            OnError::Host => "host",
            OnError::Line => "line",
            OnError::End => "end",
        }
    }
}

/// A tool the client offers from its cache, as the server listed it once: offered until the
/// client reads `tools/list` again, whether or not the server still serves it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CachedTool {
    pub name: String,
    pub description: String,
    pub input_schema: toml::Value,
}

/// The lesson's MCP client.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpData {
    /// The learner's request handler: given a JSON-RPC request and the backing service's
    /// answer for it, it returns the JSON-RPC response.
    pub handler: String,
    /// What the client does with a JSON-RPC error.
    pub on_error: OnError,
    /// The line the model reads instead of a JSON-RPC error, for `on_error = "line"`.
    #[serde(default)]
    pub error_line: Option<String>,
    /// Tools the client still offers from an earlier `tools/list`, beside the lesson's own.
    #[serde(default)]
    pub cached: Vec<CachedTool>,
}

impl Lesson {
    pub(super) fn check_mcp(&self, problems: &mut Problems) {
        let Some(mcp) = &self.mcp else { return };
        let at = Near::key("mcp");
        if !self.functions.contains(&mcp.handler) {
            let (handler, functions) = (&mcp.handler, &self.functions);
            let why = format!("[mcp] handler '{handler}' is not among the functions {functions:?}");
            problems.say(at.clone().then("handler"), why);
        }
        match (mcp.on_error, &mcp.error_line) {
            (OnError::Line, None) => {
                let why = "on_error = \"line\" needs error_line: the line the model reads instead";
                problems.say(at.clone().then("on_error"), why);
            }
            (OnError::Host | OnError::End, Some(_)) => {
                let policy = mcp.on_error.name();
                let why = format!("error_line goes with on_error = \"line\", not \"{policy}\"");
                problems.say(at.clone().then("error_line"), why);
            }
            _ => {}
        }
        for (place, hook) in [("build", &self.hooks.build), ("answer", &self.hooks.answer)] {
            if hook.is_some() {
                let why = format!(
                    "a lesson with [mcp] has no {place} hook: the learner's server shapes \
                     every result, and the client answers the model"
                );
                problems.say(Near::key("hooks").then(place), why);
            }
        }
        for cached in &mcp.cached {
            if self.tool(&cached.name).is_some() {
                let name = &cached.name;
                let why = format!("[mcp] cached tool '{name}' is also a lesson tool: name it once");
                problems.say(at.clone().then("cached"), why);
            }
        }
    }
}
