//! The Messages API's tool-use rules, checked on every request a runtime builds and on every
//! recorded turn: tool results come in the message right after the `tool_use`, first in it, and
//! all results of one turn in one message.

use std::collections::BTreeSet;

use serde_json::Value;

/// Why a request or a response breaks the Messages API's rules, as the API would say it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Broken {
    /// A rule broken, in the API's own terms, at its place (`messages.2.content.0`).
    #[error("{0}")]
    Rule(String),
    /// The request ends with a message that is not the user's (a response, followed, does).
    #[error("the last message of a request must be the user's")]
    LastNotUser,
}

/// A [`Broken::Rule`], written as `format!`.
macro_rules! rule {
    ($($arg:tt)*) => {
        Broken::Rule(format!($($arg)*))
    };
}

fn blocks(message: &Value) -> Vec<&Value> {
    match message.get("content") {
        Some(Value::Array(items)) => items.iter().collect(),
        _ => Vec::new(),
    }
}

fn block_type(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("")
}

/// The ids of the `tool_use` blocks of a message.
fn tool_use_ids(message: &Value) -> Vec<String> {
    blocks(message)
        .into_iter()
        .filter(|b| block_type(b) == "tool_use")
        .filter_map(|b| b.get("id").and_then(Value::as_str).map(String::from))
        .collect()
}

/// Check a request body against the Messages API's rules for tool use, as the API would: the
/// error is the reason a 400 would give, in the API's own terms (messages counted from 0).
pub(crate) fn check_request(request: &Value) -> Result<(), Broken> {
    let Some(messages) = request.get("messages").and_then(Value::as_array) else {
        return Err(Broken::Rule("messages: Field required".into()));
    };
    if messages.is_empty() {
        return Err(Broken::Rule("messages: at least one message is required".into()));
    }
    let tools: BTreeSet<&str> = request
        .get("tools")
        .and_then(Value::as_array)
        .map(|t| t.iter().filter_map(|t| t.get("name").and_then(Value::as_str)).collect())
        .unwrap_or_default();
    for (i, message) in messages.iter().enumerate() {
        let role = check_shape(i, message)?;
        let expected = if i % 2 == 0 { "user" } else { "assistant" };
        if i == 0 && role != "user" {
            return Err(Broken::Rule("messages: first message must use the \"user\" role".into()));
        }
        if role != expected {
            return Err(rule!(
                "messages: roles must alternate between \"user\" and \"assistant\", but found multiple \"{role}\" roles in a row"
            ));
        }
        if role == "assistant" {
            for block in blocks(message) {
                if block_type(block) == "tool_use" {
                    let name = block.get("name").and_then(Value::as_str).unwrap_or("");
                    if !tools.contains(name) {
                        return Err(rule!(
                            "messages.{i}: tool_use calls a tool '{name}' that the request's tools do not offer"
                        ));
                    }
                }
            }
            continue;
        }
        let wanted = if i > 0 { tool_use_ids(&messages[i - 1]) } else { Vec::new() };
        check_results(i, message, &wanted)?;
    }
    if let Some(last) = messages.last() {
        if last.get("role").and_then(Value::as_str) != Some("user") {
            return Err(Broken::LastNotUser);
        }
    }
    Ok(())
}

/// A message is an object with a known role and content that is a string or a list of blocks.
fn check_shape(i: usize, message: &Value) -> Result<&str, Broken> {
    let Some(object) = message.as_object() else {
        return Err(rule!("messages.{i}: Input should be a valid dictionary"));
    };
    let role = match object.get("role") {
        None => return Err(rule!("messages.{i}.role: Field required")),
        Some(Value::String(r)) if r == "user" || r == "assistant" => r.as_str(),
        Some(_) => return Err(rule!("messages.{i}.role: Input should be 'user' or 'assistant'")),
    };
    match object.get("content") {
        None => return Err(rule!("messages.{i}.content: Field required")),
        Some(Value::String(_)) => {}
        Some(Value::Array(items)) => {
            for (j, block) in items.iter().enumerate() {
                if block.get("type").and_then(Value::as_str).is_none() {
                    return Err(rule!("messages.{i}.content.{j}.type: Field required"));
                }
            }
        }
        Some(_) => {
            return Err(rule!(
                "messages.{i}.content: Input should be a valid string or a list of content blocks"
            ))
        }
    }
    if let Some(extra) = object.keys().find(|k| *k != "role" && *k != "content") {
        return Err(rule!("messages.{i}.{extra}: Extra inputs are not permitted"));
    }
    Ok(role)
}

/// The user message after a `tool_use` turn: one `tool_result` per call, all of them first.
fn check_results(i: usize, message: &Value, wanted: &[String]) -> Result<(), Broken> {
    let content = blocks(message);
    let mut answered: Vec<&str> = Vec::new();
    for (j, block) in content.iter().enumerate() {
        if block_type(block) != "tool_result" {
            continue;
        }
        let at = format!("messages.{i}.content.{j}");
        let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
            return Err(rule!("{at}.tool_use_id: Field required"));
        };
        if !wanted.iter().any(|w| w == id) {
            return Err(rule!(
                "{at}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
            ));
        }
        if answered.contains(&id) {
            return Err(rule!("{at}: `tool_result` blocks must answer each `tool_use` once: {id} is answered twice"));
        }
        answered.push(id);
        match block.get("content") {
            None | Some(Value::String(_)) => {}
            Some(Value::Array(parts))
                if parts.iter().all(|p| p.get("type").and_then(Value::as_str).is_some()) => {}
            Some(_) => {
                return Err(rule!(
                    "{at}.content: Input should be a valid string or a list of content blocks"
                ))
            }
        }
        if block.get("is_error").is_some_and(|f| !f.is_boolean()) {
            return Err(rule!("{at}.is_error: Input should be a valid boolean"));
        }
    }
    if wanted.is_empty() {
        return Ok(());
    }
    // The API reads the results only at the start of the message.
    let leading: Vec<&str> = content
        .iter()
        .take_while(|b| block_type(b) == "tool_result")
        .filter_map(|b| b.get("tool_use_id").and_then(Value::as_str))
        .collect();
    let missing: Vec<&str> =
        wanted.iter().map(String::as_str).filter(|id| !leading.contains(id)).collect();
    if !missing.is_empty() {
        return Err(rule!(
            "messages.{}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
            i - 1,
            missing.join(", ")
        ));
    }
    Ok(())
}

/// Check a model response: an assistant message whose stop reason matches its tool calls.
pub(crate) fn check_response(response: &Value, request: &Value) -> Result<(), Broken> {
    if response.get("role").and_then(Value::as_str) != Some("assistant") {
        return Err(Broken::Rule("the response is not an assistant message".into()));
    }
    let content = blocks(response);
    if content.is_empty() {
        return Err(Broken::Rule("the response has no content".into()));
    }
    let ids = tool_use_ids(response);
    let unique: BTreeSet<&String> = ids.iter().collect();
    if unique.len() != ids.len() {
        return Err(Broken::Rule("the response uses one tool_use id twice".into()));
    }
    let stop = response.get("stop_reason").and_then(Value::as_str).unwrap_or("");
    match (stop, ids.is_empty()) {
        ("tool_use", true) => {
            return Err(Broken::Rule("the response stops for tool_use but calls no tool".into()))
        }
        // A reply cut off at max_tokens, or refused, ends with what text there is.
        ("tool_use", false) | ("end_turn" | "max_tokens" | "refusal", true) => {}
        (other, _) => {
            return Err(rule!("the response's stop_reason '{other}' does not match its content"))
        }
    }
    for block in content {
        match block_type(block) {
            "text" if block.get("text").is_some_and(Value::is_string) => {}
            "tool_use" if block.get("input").is_some_and(Value::is_object) => {}
            other => {
                return Err(rule!(
                "the response has a content block of type '{other}' this replayer does not accept"
            ))
            }
        }
    }
    let mut followed = request.clone();
    if let Some(messages) = followed.get_mut("messages").and_then(Value::as_array_mut) {
        messages.push(
            serde_json::json!({"role": "assistant", "content": response.get("content").cloned().unwrap_or_default()}),
        );
        if !ids.is_empty() {
            let results: Vec<Value> = ids
                .iter()
                .map(|id| serde_json::json!({"type": "tool_result", "tool_use_id": id, "content": ""}))
                .collect();
            messages.push(serde_json::json!({"role": "user", "content": results}));
        }
    }
    // The response must call only tools the request offered.
    match check_request(&followed) {
        Ok(()) => Ok(()),
        Err(Broken::LastNotUser) => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(messages: Value) -> Value {
        json!({"tools": [{"name": "t"}], "messages": messages})
    }

    #[test]
    fn accepts_results_right_after_their_call() {
        let r = request(json!([
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}, {"type": "tool_use", "id": "b", "name": "t", "input": {}}]},
            {"content": [{"tool_use_id": "a", "type": "tool_result"}, {"tool_use_id": "b", "type": "tool_result"}, {"type": "text", "text": "more"}], "role": "user"}
        ]));
        assert_eq!(check_request(&r), Ok(()));
    }

    #[test]
    fn refuses_text_before_results_and_split_results() {
        let text_first = request(json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]},
            {"role": "user", "content": [{"type": "text", "text": "x"}, {"type": "tool_result", "tool_use_id": "a"}]}
        ]));
        assert!(check_request(&text_first)
            .unwrap_err()
            .to_string()
            .contains("messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: a."));
        let split = request(json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}, {"type": "tool_use", "id": "b", "name": "t", "input": {}}]},
            {"content": [{"tool_use_id": "a", "type": "tool_result"}], "role": "user"}
        ]));
        assert!(check_request(&split).unwrap_err().to_string().contains("immediately after: b."));
        let unknown_tool = request(json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "nope", "input": {}}]},
            {"content": [{"tool_use_id": "a", "type": "tool_result"}], "role": "user"}
        ]));
        assert!(check_request(&unknown_tool).unwrap_err().to_string().contains("do not offer"));
        let stray = request(json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]},
            {"content": [{"tool_use_id": "a", "type": "tool_result"}, {"tool_use_id": "z", "type": "tool_result"}], "role": "user"}
        ]));
        assert_eq!(
            check_request(&stray).unwrap_err().to_string(),
            "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: z. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
        );
        let flag = request(json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]},
            {"content": [{"tool_use_id": "a", "type": "tool_result", "is_error": "yes"}], "role": "user"}
        ]));
        assert!(check_request(&flag)
            .unwrap_err()
            .to_string()
            .ends_with(".is_error: Input should be a valid boolean"));
        let not_a_message = request(
            json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"}, "text"]),
        );
        assert_eq!(
            check_request(&not_a_message).unwrap_err().to_string(),
            "messages.2: Input should be a valid dictionary"
        );
    }
}
