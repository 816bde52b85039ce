//! What a run did, counted: the facts a verdict and a lesson's note are judged by.

use serde::Serialize;
use serde_json::Value;

/// What a run did, counted: the facts its verdict and its note are judged by.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Tries of the calls the model made, reads aside.
    pub attempts: usize,
    /// Reads run to settle a failure (by the harness, or by the model calling the read the
    /// failure's world named); a read tried again after it failed is one read.
    pub reads: usize,
    /// Tries that followed a failed try of the same call, reads included.
    pub retries: usize,
    /// Retries that followed a failure no retry could fix.
    pub wasted_retries: usize,
    /// Retries nothing showed to be safe (neither the failure's kind nor a read).
    pub blind_retries: usize,
    /// Retries of a failure no retry can fix, made until a try went through after the same
    /// failure: the outcome changed only because the call was made again.
    pub overturned_retries: usize,
    /// Failed tries whose result says nothing (no category, flag, message or read).
    pub bare_failures: usize,
    /// Reports a subagent passed up about its failed task.
    pub reports: usize,
    /// Failures whose internal text (a traceback) reached the model.
    pub leaks: usize,
    /// Failures the model read as a line that says nothing of them (`Received::bare`).
    pub model_read_bare: usize,
    /// Failures whose result reached the model without the error flag, as if they had worked.
    pub unflagged_failures: usize,
    /// What the MCP client met: `protocol_errors`, `tool_errors`, `relists`.
    #[serde(flatten)]
    pub mcp: crate::replay::exchange::Exchanged,
    /// Whether a call ended in a failure that nothing settled.
    pub failed: bool,
    /// How the run ended: `reply`, `no_recording`, `api_error`, `code_error`, `cap`,
    /// `rpc_ended` (an MCP error the host ended the run on), or `none` (no event ended it).
    pub ends: String,
    /// Errors the Messages API answered with (or timeouts), which the model never saw; and
    /// how many of them the host sent again.
    pub api_errors: usize,
    pub api_retries: usize,
    /// Of those sent again, how many the client sent by itself (its own `max_retries`), not the
    /// host's code around it.
    pub client_retries: usize,
    /// Model requests the run made, and the time it took on the replay's own clock.
    pub turns: usize,
    pub elapsed_ms: u64,
    /// For each fact of the failures the model read (a field with text): how many of their
    /// results named it, as `named_<fact>` (0 when none did); and for each of the lesson's
    /// properties, how many had it, as `has_<id>` (0 when those it was read on all lacked it).
    #[serde(flatten)]
    pub named: serde_json::Map<String, Value>,
    /// What the run did to its world, as the world counts it (its `counts()`).
    #[serde(flatten)]
    pub world: serde_json::Map<String, Value>,
}

impl Counts {
    /// The counts as one object, the keys a note's `when` names.
    pub fn value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
