//! A replay as a stream of events: the interface between the runtimes that make a run and
//! everything that shows one (the cards, the JSON, the player). Knows nothing of terminals.

use serde::Serialize;
use serde_json::Value;

use crate::recordings::Provenance;

/// How an attempt went, which decides its card's colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    /// It worked.
    Worked,
    /// A transient failure, and it was retried.
    Retried,
    /// It was retried (or was a retry) although a retry could not have helped.
    Wasted,
    /// A failure reported and not retried.
    Reported,
    /// Retried although nothing said it was safe, and the retry went through: a gamble.
    Blind,
    /// An uncertain failure that a read settled: it had gone through.
    Settled,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Customer {
        text: String,
    },
    /// The model asks for a tool.
    ToolCall {
        id: String,
        tool: String,
        input: Value,
        /// The call in words: "refunds order 0871".
        words: String,
        /// Text the model wrote before the call, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        preface: Option<String>,
        provenance: Provenance,
    },
    /// One execution of the tool.
    Attempt {
        tool_use_id: String,
        number: u32,
        output: Value,
        failed: bool,
        /// What the result claims, read from its `error` object.
        category: Option<String>,
        retryable: Option<bool>,
        message: Option<String>,
        /// What the card says of a failure, from the keys the lesson defines ("category
        /// transient", "not retryable"); empty for a success.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        details: Vec<String>,
        /// The category the world itself failed the call with.
        cause: Option<String>,
        /// A successful result in words, where the world knows its shape.
        #[serde(skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
        retried: bool,
        tone: Tone,
        /// The MCP `CallToolResult` the SDK runtime sent, in wire form.
        #[serde(skip_serializing_if = "Option::is_none")]
        wire: Option<Value>,
        /// What the code printed during the attempt.
        #[serde(skip_serializing_if = "String::is_empty")]
        printed: String,
        /// What the learner's decision function answered about this failure, when asked.
        #[serde(skip_serializing_if = "Option::is_none")]
        answer: Option<Value>,
    },
    /// The harness ran the read a failure named, to learn whether the call went through.
    Verify {
        tool_use_id: String,
        tool: String,
        input: Value,
        /// Attempts the read took (it may itself time out and be retried).
        tries: usize,
        /// What it found; `None` when the read itself failed.
        found: Option<bool>,
        message: Option<String>,
        output: Value,
    },
    /// What a subagent passed up to its coordinator when its work failed.
    Report {
        tool_use_id: String,
        /// The four labelled parts: failed, tried, partial, next.
        report: Value,
    },
    /// The harness's backoff before the next attempt.
    Wait {
        ms: u64,
    },
    Reply {
        text: String,
        provenance: Provenance,
    },
    /// The run asked for a model turn nobody recorded. The replay stops here.
    NoRecording {
        /// The new message the model would have been sent.
        sent: Value,
        /// `recordings/...:line` of the closest recorded request.
        closest: Option<String>,
        /// A labelled diff: the closest recorded request against this one.
        diff: String,
        explanation: String,
    },
    /// The API refused the request (a broken tool-use rule): what it would answer. The run ends.
    ApiError {
        status: u16,
        /// The API's error type, such as `invalid_request_error`.
        error_type: String,
        message: String,
    },
    /// The code under replay failed (did not load, raised, hung). The replay stops here.
    CodeError {
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        call: Option<String>,
        #[serde(skip_serializing_if = "String::is_empty")]
        printed: String,
    },
}

impl Event {
    /// The model turn's provenance, on the events that are model turns.
    pub fn provenance(&self) -> Option<&Provenance> {
        match self {
            Event::ToolCall { provenance, .. } | Event::Reply { provenance, .. } => Some(provenance),
            _ => None,
        }
    }

    /// The event without what may differ between two runs that did the same thing (ids, text the
    /// model wrote, printed output): two runs split at the first event whose signature differs.
    pub fn signature(&self) -> Value {
        match self {
            Event::ToolCall { tool, input, .. } => serde_json::json!(["tool_call", tool, input]),
            Event::Attempt { output, number, .. } => serde_json::json!(["attempt", number, output]),
            Event::Reply { text, .. } => serde_json::json!(["reply", text]),
            other => serde_json::to_value(other).unwrap_or(Value::Null),
        }
    }
}

/// The one-line summary under a replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// How many times a tool ran.
    pub tool_calls: usize,
    /// Retries that followed a failure no retry could fix.
    pub wasted_retries: usize,
    pub text: String,
    /// Why the replay stopped before a reply: `no_recording` or `code_error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// What the run did to its world, as the world counts it (`refunds_paid`).
    #[serde(flatten)]
    pub effects: serde_json::Map<String, Value>,
    /// Whether the run did its world harm (the world's sentences are in `text`).
    #[serde(skip)]
    pub harmed: bool,
    /// The lesson's note on this ticket and code: the harm or the gain the run shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A replayed run of one ticket.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Replay {
    pub lesson: String,
    pub ticket: String,
    pub code: String,
    pub runtime: String,
    pub events: Vec<Event>,
    pub verdict: Verdict,
}

/// The index of the first event where two runs differ; `None` when they never do.
pub fn split_point(a: &[Event], b: &[Event]) -> Option<usize> {
    let common = a.iter().zip(b).take_while(|(x, y)| x.signature() == y.signature()).count();
    (common < a.len().max(b.len())).then_some(common)
}
