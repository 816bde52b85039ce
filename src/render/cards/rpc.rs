//! The words of an MCP exchange's cards: each JSON-RPC request and response on a card of its
//! own, saying whether the model read it and, when it did not, what it got instead. Shared by
//! the printed cards and the page.

use serde_json::Value;

use crate::replay::events::{Direction, Event, Reader};

/// What a card of a JSON-RPC message says: its label, its line, and who read it.
pub(crate) struct RpcWords {
    pub(crate) label: &'static str,
    pub(crate) line: String,
    pub(crate) reader: String,
    /// Whether it is news the model never got: an error, or a response the client could not use.
    pub(crate) kept: bool,
}

/// The words of an `Event::Rpc`; `None` for any other event.
pub(crate) fn rpc_words(event: &Event) -> Option<RpcWords> {
    let Event::Rpc { direction, method, message, reader, instead, problem, .. } = event else {
        return None;
    };
    let (label, line) = match direction {
        Direction::Sent => ("Client sends", request_line(method, message)),
        Direction::Received => ("Server says", response_line(message, *reader, problem.as_deref())),
    };
    let flagged = message.pointer("/result/isError") == Some(&Value::Bool(true));
    let not_read = matches!(reader, Reader::Line | Reader::TakenBack | Reader::Ended);
    let kept = *direction == Direction::Received && not_read;
    Some(RpcWords { label, line, reader: reader_words(*reader, flagged, instead.as_deref()), kept })
}

fn request_line(method: &str, message: &Value) -> String {
    let id = id_of(message);
    let params = message.get("params");
    match params.and_then(|p| p.get("name")).and_then(Value::as_str) {
        Some(name) => {
            let arguments = params.and_then(|p| p.get("arguments")).cloned().unwrap_or(Value::Null);
            format!("{method}{id} {name} {arguments}")
        }
        None => format!("{method}{id}"),
    }
}

fn response_line(message: &Value, reader: Reader, problem: Option<&str>) -> String {
    let id = id_of(message);
    match (problem, message.get("error"), message.get("result")) {
        (Some(why), _, _) => format!("unusable response{id}: {why}"),
        (None, Some(error), _) => {
            let code = error.get("code").map(Value::to_string).unwrap_or_default();
            let text = error.get("message").and_then(Value::as_str).unwrap_or_default();
            format!("error{id} {code}: {text}")
        }
        (None, None, Some(result)) if reader == Reader::Listed => {
            let tools = result.get("tools").and_then(Value::as_array).into_iter().flatten();
            let names: Vec<&str> = tools.filter_map(|t| t.get("name")?.as_str()).collect();
            format!("result{id}: tools {}", names.join(", "))
        }
        (None, None, Some(result)) => {
            let flag = match result.get("isError") {
                Some(Value::Bool(flag)) => format!("isError: {flag}"),
                _ => "no isError".to_string(),
            };
            format!("result{id}, {flag}: {}", first_text(result))
        }
        (None, None, None) => format!("response{id}"),
    }
}

/// Who reads the message, and what the model got in its place.
fn reader_words(reader: Reader, flagged: bool, instead: Option<&str>) -> String {
    let text = match reader {
        Reader::Client => "JSON-RPC between the client and the server: the model does not read it",
        Reader::Model if flagged => "the model reads this content as the call's failed tool_result",
        Reader::Model => "the model reads this content as the call's tool_result, as a success",
        Reader::Line => {
            let line = instead.unwrap_or_default();
            return format!("the model never reads this: the client gave it \"{line}\" instead");
        }
        Reader::TakenBack => "the model never reads this: the host took its turn back to ask again",
        Reader::Ended => "the model never reads this: the host ended the run and showed the person",
        Reader::Listed => "offered from the next request on; the model reads their definitions",
    };
    text.to_string()
}

/// ` #<id>`, or nothing for a message without one.
fn id_of(message: &Value) -> String {
    message.get("id").map(|id| format!(" #{}", id_text(id))).unwrap_or_default()
}

fn id_text(id: &Value) -> String {
    id.as_str().map(String::from).unwrap_or_else(|| id.to_string())
}

/// The result's text content, one block a line.
fn first_text(result: &Value) -> String {
    let texts: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    match texts.is_empty() {
        true => "no text".to_string(),
        false => format!("\"{}\"", texts.join("\n")),
    }
}
