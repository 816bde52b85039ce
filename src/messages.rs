//! The Messages API's tool-use rules, checked on every request a runtime builds and on every
//! recorded turn: tool results come in the message right after the `tool_use`, first in it, and
//! all results of one turn in one message.

use std::collections::BTreeSet;

use serde_json::Value;

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

/// Check a request body against the tool-use rules. The error says which message breaks which rule.
pub fn check_request(request: &Value) -> Result<(), String> {
    let Some(messages) = request.get("messages").and_then(Value::as_array) else {
        return Err("the request has no messages list".into());
    };
    if messages.is_empty() {
        return Err("the request has no messages".into());
    }
    let tools: BTreeSet<&str> = request
        .get("tools")
        .and_then(Value::as_array)
        .map(|t| t.iter().filter_map(|t| t.get("name").and_then(Value::as_str)).collect())
        .unwrap_or_default();
    for (i, message) in messages.iter().enumerate() {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        let expected = if i % 2 == 0 { "user" } else { "assistant" };
        if role != expected {
            return Err(format!(
                "message {} has role '{role}' where '{expected}' must come (roles alternate, starting with user)",
                i + 1
            ));
        }
        let content = blocks(message);
        let results: Vec<&Value> = content.iter().copied().filter(|b| block_type(b) == "tool_result").collect();
        let wanted = if i > 0 { tool_use_ids(&messages[i - 1]) } else { Vec::new() };
        if role == "assistant" {
            for block in &content {
                if block_type(block) == "tool_use" {
                    let name = block.get("name").and_then(Value::as_str).unwrap_or("");
                    if !tools.contains(name) {
                        return Err(format!("message {} calls a tool '{name}' the request does not offer", i + 1));
                    }
                }
            }
            continue;
        }
        if wanted.is_empty() {
            if !results.is_empty() {
                return Err(format!("message {} has a tool_result, but the message before it called no tool", i + 1));
            }
            continue;
        }
        let leading = content.iter().take_while(|b| block_type(b) == "tool_result").count();
        if leading != results.len() {
            return Err(format!("message {}: its tool_result blocks must come first, before any other content", i + 1));
        }
        let answered: Vec<String> =
            results.iter().filter_map(|b| b.get("tool_use_id").and_then(Value::as_str).map(String::from)).collect();
        for id in &wanted {
            if !answered.contains(id) {
                return Err(format!(
                    "message {} lacks the tool_result for {id}: every result of a turn goes in the message right after its tool_use",
                    i + 1
                ));
            }
        }
        if let Some(stray) = answered.iter().find(|id| !wanted.contains(id)) {
            return Err(format!("message {} answers {stray}, which the message before it did not call", i + 1));
        }
    }
    if let Some(last) = messages.last() {
        if last.get("role").and_then(Value::as_str) != Some("user") {
            return Err("the last message of a request must be the user's".into());
        }
    }
    Ok(())
}

/// Check a model response: an assistant message whose stop reason matches its tool calls.
pub fn check_response(response: &Value, request: &Value) -> Result<(), String> {
    if response.get("role").and_then(Value::as_str) != Some("assistant") {
        return Err("the response is not an assistant message".into());
    }
    let content = blocks(response);
    if content.is_empty() {
        return Err("the response has no content".into());
    }
    let ids = tool_use_ids(response);
    let unique: BTreeSet<&String> = ids.iter().collect();
    if unique.len() != ids.len() {
        return Err("the response uses one tool_use id twice".into());
    }
    let stop = response.get("stop_reason").and_then(Value::as_str).unwrap_or("");
    match (stop, ids.is_empty()) {
        ("tool_use", true) => return Err("the response stops for tool_use but calls no tool".into()),
        ("tool_use", false) | ("end_turn", true) => {}
        (other, _) => return Err(format!("the response's stop_reason '{other}' does not match its content")),
    }
    for block in content {
        match block_type(block) {
            "text" if block.get("text").is_some_and(Value::is_string) => {}
            "tool_use" if block.get("input").is_some_and(Value::is_object) => {}
            other => {
                return Err(format!("the response has a content block of type '{other}' this replayer does not accept"))
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
        Err(e) if e.starts_with("the last message") => Ok(()),
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
        assert!(check_request(&text_first).unwrap_err().contains("must come first"));
        let split = request(json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}, {"type": "tool_use", "id": "b", "name": "t", "input": {}}]},
            {"content": [{"tool_use_id": "a", "type": "tool_result"}], "role": "user"}
        ]));
        assert!(check_request(&split).unwrap_err().contains("lacks the tool_result for b"));
        let unknown_tool = request(json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "nope", "input": {}}]},
            {"content": [{"tool_use_id": "a", "type": "tool_result"}], "role": "user"}
        ]));
        assert!(check_request(&unknown_tool).unwrap_err().contains("does not offer"));
    }
}
