//! The runner as an MCP client, for a lesson whose learner writes the server (`[mcp]`). Each call
//! the model makes becomes a JSON-RPC 2.0 `tools/call` request to the learner's request handler,
//! given with the backing service's answer (the world's run of the tool, when the lesson has
//! it). A `result` goes to the model as the call's `tool_result` (`content` as given, `isError`
//! as `is_error`); a JSON-RPC `error`, or a response the client cannot use, follows the lesson's
//! policy and never reaches the model. An unknown tool (-32602, "Unknown tool", as in the MCP
//! specification's own example) makes the client read `tools/list` again, and the tools it lists
//! are the ones offered from the next request on.

use serde_json::{json, Map, Value};

use super::answer::Answered;
use super::harness::{call_value, Attempt, ToolRun};
use super::{sdk, Conversation};
use crate::lesson::mcp::{McpData, OnError};
use crate::lesson::Runtime;
use crate::replay::events::{Direction, Event, Reader};
use crate::world::{Failure, Halt};

/// JSON-RPC's "Invalid params", which MCP answers an unknown tool with.
const INVALID_PARAMS: i64 = -32602;

/// The client's state over one run.
#[derive(Debug, Default)]
pub(super) struct McpClient {
    next_id: u64,
    /// The tools as the server last listed them, once the client has read `tools/list`.
    pub(super) listed: Option<Vec<Value>>,
    /// The call whose turn the host took back last, with no call answered since: the same
    /// failure again ends the run.
    taken_back: Option<Value>,
}

/// What the client (or, without `[mcp]`, the runtime) made of one call.
pub(super) enum Served {
    /// The model is given this for the call.
    Answer(Box<Answered>),
    /// The host takes the model's turn back.
    TakeBack,
    /// The run is over (the handler failed, or the host ended it).
    Stop,
}

/// A response to `tools/call` that the model does not read: an error, or one the client cannot use.
struct UnreadReply {
    response: Value,
    code: Option<i64>,
    problem: Option<String>,
    printed: String,
}

/// A call of the model's: its `tool_use` id, the tool as the model named it, and its input.
#[derive(Clone, Copy)]
pub(super) struct ToolUse<'c> {
    pub(super) id: &'c str,
    pub(super) tool: &'c str,
    pub(super) input: &'c Value,
}

/// What a response to a request says, as the client reads it.
enum Response {
    Result(Value),
    Error {
        code: i64,
        message: String,
    },
    /// Not a response the client can use: why.
    Unusable(String),
}

impl Conversation<'_, '_> {
    /// Serve one call the model made, as the MCP client.
    pub(super) fn mcp_call(&mut self, mcp: &McpData, call: ToolUse<'_>) -> Served {
        let ToolUse { id, tool, input } = call;
        let server = &self.lesson.agent.server;
        let plain = sdk::unqualified(server, tool).unwrap_or(tool).to_string();
        let request = self.request("tools/call", json!({"name": plain, "arguments": input}));
        self.push_rpc(Direction::Sent, &request, Some(id), Reader::Client, None, String::new());
        let run = self.service(&plain, input);
        if let Some(run) = &run {
            let earlier = self.events.iter().chain(&self.turn);
            let prior = match self.runtime {
                Runtime::Sdk => super::facts::earlier_attempts(earlier, tool, input),
                Runtime::Harness => 0,
            };
            self.push_attempts(id, run, prior, None, &plain);
        }
        let first = run.as_ref().and_then(|r| r.attempts.first());
        let service = first.map(answered_by_service).unwrap_or(Value::Null);
        let args = vec![request.clone(), service];
        let (response, printed) = call_value(&mut *self.code, &mcp.handler, args);
        let response = match response {
            Ok(response) => response,
            Err(fault) => {
                self.push_fault(&fault);
                return Served::Stop;
            }
        };
        let (code, problem) = match read(&request, &response, "tools/call") {
            Response::Result(result) => {
                let (to, by) = (Some(id), Reader::Model);
                self.push_rpc(Direction::Received, &response, to, by, None, printed);
                let content = result.get("content").cloned().unwrap_or_else(|| json!([]));
                let is_error = result.get("isError") == Some(&Value::Bool(true));
                let run = run.unwrap_or_else(|| nothing_ran(&plain, input));
                // A call answered: a failure after it is the first in a row again.
                self.client.taken_back = None;
                return answer(id, run, content, is_error);
            }
            Response::Error { code, .. } => (Some(code), None),
            Response::Unusable(why) => (None, Some(why)),
        };
        let kept = UnreadReply { response, code, problem, printed };
        let call = ToolUse { id, tool: &plain, input };
        self.keep(mcp, call, run, kept)
    }

    /// Follow the client policy for a response the model does not read.
    fn keep(
        &mut self,
        mcp: &McpData,
        call: ToolUse<'_>,
        run: Option<ToolRun>,
        kept: UnreadReply,
    ) -> Served {
        let ToolUse { id, tool, input } = call;
        let key = json!({"tool": tool, "input": input});
        let again = self.client.taken_back.as_ref() == Some(&key);
        let reader = match mcp.on_error {
            OnError::Line => Reader::Line,
            OnError::Host if !again => Reader::TakenBack,
            OnError::Host | OnError::End => Reader::Ended,
        };
        let instead = mcp.error_line.clone().filter(|_| reader == Reader::Line);
        let said = error_message(&kept.response).map(String::from);
        self.turn.push(Event::Rpc {
            direction: Direction::Received,
            method: "tools/call".into(),
            message: kept.response,
            tool_use_id: Some(id.to_string()),
            reader,
            read: false,
            instead: instead.clone(),
            problem: kept.problem.clone(),
            printed: kept.printed,
        });
        let unknown_tool = |m: &str| m.trim_start().to_lowercase().starts_with("unknown tool");
        let invalid = kept.code == Some(INVALID_PARAMS);
        let unknown = invalid && said.as_deref().is_some_and(unknown_tool);
        if unknown && reader != Reader::Ended {
            self.relist(mcp);
        }
        match reader {
            Reader::Line => {
                let run = run.unwrap_or_else(|| nothing_ran(tool, input));
                answer(id, run, Value::from(instead.unwrap_or_default()), true)
            }
            Reader::TakenBack => {
                self.client.taken_back = Some(key);
                Served::TakeBack
            }
            _ => {
                let message = match (kept.problem, kept.code, said) {
                    (Some(why), _, _) => format!("the MCP server's answer was unusable: {why}"),
                    (None, Some(code), Some(text)) => format!("MCP error {code}: {text}"),
                    _ => "the MCP server answered with an error".to_string(),
                };
                self.turn.push(Event::RpcEnded { message });
                Served::Stop
            }
        }
    }

    /// The next request, numbered.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.client.next_id += 1;
        json!({"jsonrpc": "2.0", "id": self.client.next_id, "method": method, "params": params})
    }

    /// Read `tools/list` again: the tools it lists are offered from the next request on.
    fn relist(&mut self, mcp: &McpData) {
        let request = self.request("tools/list", json!({}));
        self.push_rpc(Direction::Sent, &request, None, Reader::Client, None, String::new());
        let args = vec![request.clone(), Value::Null];
        let (response, printed) = call_value(&mut *self.code, &mcp.handler, args);
        let response = match response {
            Ok(response) => response,
            Err(fault) => {
                // The list is the client's own business: a handler that fails on it leaves the
                // old list offered, and the failure on the card.
                self.push_fault(&fault);
                return;
            }
        };
        let (reader, problem) = match read(&request, &response, "tools/list") {
            Response::Result(result) => {
                let tools = result.get("tools").and_then(Value::as_array).cloned();
                self.client.listed = Some(tools.unwrap_or_default());
                (Reader::Listed, None)
            }
            Response::Error { code, message } => {
                let why = format!("error {code}: {message}");
                (Reader::Client, Some(why))
            }
            Response::Unusable(why) => (Reader::Client, Some(why)),
        };
        self.push_rpc(Direction::Received, &response, None, reader, problem, printed);
    }

    fn push_rpc(
        &mut self,
        direction: Direction,
        message: &Value,
        tool_use_id: Option<&str>,
        reader: Reader,
        problem: Option<String>,
        printed: String,
    ) {
        let method = match direction {
            Direction::Sent => {
                let method = message.get("method").and_then(Value::as_str);
                method.unwrap_or_default().to_string()
            }
            // A response carries no method: it is the last request's.
            Direction::Received => self
                .turn
                .iter()
                .rev()
                .find_map(|e| match e {
                    Event::Rpc { direction: Direction::Sent, method, .. } => Some(method.clone()),
                    _ => None,
                })
                .unwrap_or_default(),
        };
        self.turn.push(Event::Rpc {
            direction,
            method,
            message: message.clone(),
            tool_use_id: tool_use_id.map(String::from),
            reader,
            read: reader == Reader::Model,
            instead: None,
            problem,
            printed,
        });
    }

    /// The backing service's answer to a call the server may make: the world's run of the tool,
    /// when the lesson has it. `{"ok": true, "result": ...}` or `{"ok": false, "kind": ...,
    /// "message": ..., "facts": {...}}`.
    fn service(&mut self, tool: &str, input: &Value) -> Option<ToolRun> {
        self.lesson.tool(tool)?;
        let mut cause = None;
        let result = self.world.call(tool, input, &mut |failure: &Failure| {
            cause = Some(failure.clone());
            Ok::<Value, Halt>(failed(failure))
        });
        let said = self.world.said();
        // A success is kept as the world gave it, so its card can say it in words.
        let result = result.unwrap_or(Value::Null);
        let attempt = Attempt {
            number: 1,
            result,
            failed: cause.is_some(),
            retry: None,
            action: None,
            read: None,
            wait: None,
            output: String::new(),
            cause,
            said,
        };
        Some(ToolRun {
            tool: tool.into(),
            input: input.clone(),
            attempts: vec![attempt],
            fault: None,
            settled: None,
            limit: 1,
        })
    }
}

/// A call answered with this content.
fn answer(id: &str, run: ToolRun, content: Value, is_error: bool) -> Served {
    let result = run.result().cloned().unwrap_or(Value::Null);
    Served::Answer(Box::new(Answered { id: id.to_string(), run, result, content, is_error }))
}

/// The service's answer to the server, from its run of the tool.
fn answered_by_service(attempt: &Attempt) -> Value {
    match attempt.failed {
        true => attempt.result.clone(),
        false => json!({"ok": true, "result": attempt.result}),
    }
}

/// A failure as the service answers it to the server.
fn failed(failure: &Failure) -> Value {
    let facts: Map<String, Value> = failure.fields.clone();
    json!({"ok": false, "kind": failure.category, "message": failure.message, "facts": facts})
}

/// A call no service ran (the server serves a tool the lesson does not have, or none).
fn nothing_ran(tool: &str, input: &Value) -> ToolRun {
    let (attempts, fault, settled) = (Vec::new(), None, None);
    ToolRun { tool: tool.into(), input: input.clone(), attempts, fault, settled, limit: 1 }
}

fn error_message(response: &Value) -> Option<&str> {
    response.pointer("/error/message").and_then(Value::as_str)
}

/// Read a response to `request` as JSON-RPC 2.0 and MCP want it.
fn read(request: &Value, response: &Value, method: &str) -> Response {
    let Some(object) = response.as_object() else {
        return Response::Unusable("it is not a JSON object, as every JSON-RPC response is".into());
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Response::Unusable("it does not say \"jsonrpc\": \"2.0\"".into());
    }
    let Some(id) = object.get("id") else {
        let why = "it has no id, so the client cannot tell which request it answers: \
                   the request waits until it times out";
        return Response::Unusable(why.into());
    };
    if Some(id) != request.get("id") {
        let asked = request.get("id").unwrap_or(&Value::Null);
        let why = format!("its id is {id}, the request's {asked}: the client waits on");
        return Response::Unusable(why);
    }
    match (object.get("result"), object.get("error")) {
        (Some(_), Some(_)) => Response::Unusable("it has a result and an error, not one".into()),
        (None, None) => Response::Unusable("it has neither a result nor an error".into()),
        (None, Some(error)) => {
            let code = error.get("code").and_then(Value::as_i64);
            let message = error.get("message").and_then(Value::as_str);
            match (code, message) {
                (Some(code), Some(text)) => Response::Error { code, message: text.into() },
                _ => Response::Unusable("its error needs an integer code and a message".into()),
            }
        }
        (Some(result), None) => match method {
            "tools/call" => tool_result(result),
            _ if listed(result) => Response::Result(result.clone()),
            _ => Response::Unusable("its result has no list of tools".into()),
        },
    }
}

/// Whether a result holds a list of tools, as `tools/list` answers.
fn listed(result: &Value) -> bool {
    result.get("tools").is_some_and(Value::is_array)
}

/// A `tools/call` result as MCP's `CallToolResult` has it.
fn tool_result(result: &Value) -> Response {
    if !result.get("content").is_some_and(Value::is_array) {
        return Response::Unusable("its result has no content list".into());
    }
    if result.get("isError").is_some_and(|f| !f.is_boolean()) {
        return Response::Unusable("its result's isError is not true or false".into());
    }
    Response::Result(result.clone())
}

/// The tools offered to the model: as the server last listed them, or the lesson's own with the
/// client's cached ones, named as the runtime names them.
pub(super) fn offered(listed: &[Value], runtime: Runtime, server: &str) -> Vec<Value> {
    listed
        .iter()
        .filter_map(|tool| {
            let name = tool.get("name")?.as_str()?;
            let name = match runtime {
                Runtime::Sdk => sdk::qualified(server, name),
                Runtime::Harness => name.to_string(),
            };
            let schema = tool.get("inputSchema").cloned();
            let schema = schema.unwrap_or_else(|| json!({"type": "object"}));
            let mut definition = json!({"name": name, "input_schema": schema});
            if let Some(description) = tool.get("description").and_then(Value::as_str) {
                definition["description"] = Value::from(description.trim());
            }
            Some(definition)
        })
        .collect()
}

/// The client's cached tools, as a Messages API `tools` list names them.
pub(super) fn cached(mcp: &McpData, runtime: Runtime, server: &str) -> Vec<Value> {
    mcp.cached
        .iter()
        .map(|t| {
            let name = match runtime {
                Runtime::Sdk => sdk::qualified(server, &t.name),
                Runtime::Harness => t.name.clone(),
            };
            let schema = serde_json::to_value(&t.input_schema).unwrap_or(Value::Null);
            json!({"name": name, "description": t.description.trim(), "input_schema": schema})
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask() -> Value {
        let params = json!({"name": "t", "arguments": {}});
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
    }

    fn why(response: Value) -> String {
        match read(&ask(), &response, "tools/call") {
            Response::Unusable(why) => why,
            _ => String::new(),
        }
    }

    #[test]
    fn a_response_must_answer_its_request_as_json_rpc_2() {
        let result = |id: u64, result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result});
        let error = |error: Value| json!({"jsonrpc": "2.0", "id": 7, "error": error});
        assert!(why(json!({"jsonrpc": "2.0", "result": {"content": []}})).contains("no id"));
        assert!(why(result(8, json!({"content": []}))).contains("id is 8"));
        assert!(why(json!({"id": 7, "result": {"content": []}})).contains("2.0"));
        assert!(why(result(7, json!({"content": "x"}))).contains("content list"));
        assert!(why(result(7, json!({"content": [], "isError": "yes"}))).contains("isError"));
        assert!(why(error(json!({"code": "x", "message": "m"}))).contains("integer"));
        let unknown = error(json!({"code": -32602, "message": "Unknown tool: t"}));
        let read = read(&ask(), &unknown, "tools/call");
        assert!(matches!(read, Response::Error { code: -32602, .. }));
    }

    #[test]
    fn listed_tools_are_offered_under_the_runtimes_names() {
        let object = json!({"type": "object"});
        let listed = vec![json!({"name": "get", "description": " Reads. ", "inputSchema": object})];
        let sdk = offered(&listed, Runtime::Sdk, "desk");
        assert_eq!(sdk[0]["name"], "mcp__desk__get");
        assert_eq!(sdk[0]["description"], "Reads.");
        assert_eq!(offered(&listed, Runtime::Harness, "desk")[0]["input_schema"], object);
    }
}
