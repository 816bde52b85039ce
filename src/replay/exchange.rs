//! An MCP exchange counted: what a run's JSON-RPC messages (`Event::Rpc`) did, for its notes and
//! predictions, beside the counts of its tries (`story`).

use serde::Serialize;
use serde_json::Value;

use crate::replay::events::{Direction, Event, Reader};

/// What the MCP client met in a run. All zero for a lesson without `[mcp]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Exchanged {
    /// JSON-RPC errors (and responses the client could not use) to `tools/call`: the model read
    /// none of them.
    pub protocol_errors: usize,
    /// `tools/call` results flagged `isError`, which the model read.
    pub tool_errors: usize,
    /// Times the client read `tools/list` again after an unknown tool.
    pub relists: usize,
}

impl Exchanged {
    pub(crate) fn of(events: &[Event]) -> Exchanged {
        let flagged = |message: &Value| message.pointer("/result/isError") == Some(&TRUE);
        let read_flagged = |reader, message: &Value| reader == Reader::Model && flagged(message);
        Exchanged {
            protocol_errors: answers(events, |reader, _| reader != Reader::Model),
            tool_errors: answers(events, read_flagged),
            relists: events.iter().filter(|e| relisted(e)).count(),
        }
    }
}

const TRUE: Value = Value::Bool(true);

/// Whether an event is the MCP client asking the server for its tools.
fn relisted(event: &Event) -> bool {
    matches!(event, Event::Rpc { direction: Direction::Sent, method, .. } if method == "tools/list")
}

/// The responses to `tools/call` that `test` holds of, by what the model made of them.
fn answers(events: &[Event], test: impl Fn(Reader, &Value) -> bool) -> usize {
    let answer = |e: &&Event| match e {
        Event::Rpc { direction: Direction::Received, method, reader, message, .. } => {
            method == "tools/call" && test(*reader, message)
        }
        _ => false,
    };
    events.iter().filter(answer).count()
}
