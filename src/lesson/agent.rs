//! The agent a lesson runs: the runtimes it runs in, and what it sends the model.

use serde::Deserialize;

/// The runtimes a ticket can run in.
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

/// What the agent sends the model, per runtime.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentData {
    pub model: String,
    pub max_tokens: u32,
    pub harness_system: String,
    pub sdk_system: String,
    /// The in-process MCP server's name in the sdk runtime.
    #[serde(default = "default_server")]
    pub server: String,
    /// Model turns at most in one run.
    #[serde(default = "default_max_turns")]
    pub max_turns: usize,
    /// Seconds a run may take on the replay's own clock (the recorded time of each request,
    /// and the waits the host chose); none when absent.
    #[serde(default)]
    pub time_budget_s: Option<f64>,
}

fn default_server() -> String {
    "support".into()
}

fn default_max_turns() -> usize {
    6
}
