//! Where the model's turns come from: recordings (replay), or an authored script (when lesson
//! authors make recordings). Either way the harness and the tools around it run for real.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::lesson::kinds::{ByKind, Unanswered};
use crate::replay::recordings::{self, Cassette, Entry, Provenance};

/// The model's answer to one request.
pub(crate) enum Turn {
    Reply {
        response: Value,
        provenance: Provenance,
        /// When the reply was recorded for other words of the same kind: those words and these.
        by_kind: Vec<ByKind>,
        /// How long the request took on the replay's clock.
        took_ms: u64,
    },
    /// The API answered with an error (`{"type": "error", ...}`): a refusal of the request (a
    /// 400) or an error of its own (429, 500, 529). The host's to handle; the model never sees it.
    Refused {
        status: u16,
        error_type: String,
        message: String,
        /// How long the API asked the host to wait before it sends again (`retry-after`).
        retry_after_ms: Option<u64>,
        took_ms: u64,
    },
    /// No answer came back within the request's time limit.
    TimedOut { took_ms: u64 },
    /// Nobody recorded a reply to this request.
    Missing {
        closest: Option<String>,
        diff: String,
        /// The words of the request that replies depend on by kind, and the kinds recorded.
        words: Vec<Unanswered>,
    },
}

impl Turn {
    /// A recorded turn: the model's reply, or the API's error or a timeout when that is what
    /// was recorded.
    pub(crate) fn recorded(entry: &Entry) -> Turn {
        let response = &entry.response;
        let took_ms = entry.took_ms.unwrap_or(0);
        if entry.timed_out() {
            return Turn::TimedOut { took_ms };
        }
        if entry.refused() {
            let error = response.get("error");
            let text = |k: &str| {
                error.and_then(|e| e.get(k)).and_then(Value::as_str).unwrap_or("").to_string()
            };
            let status = response
                .get("status")
                .and_then(Value::as_u64)
                .and_then(|s| u16::try_from(s).ok())
                .unwrap_or(400);
            let retry_after = response.get("retry_after").and_then(Value::as_f64);
            let retry_after_ms = retry_after.map(|s| (s * 1000.0) as u64);
            return Turn::Refused {
                status,
                error_type: text("type"),
                message: text("message"),
                retry_after_ms,
                took_ms,
            };
        }
        let provenance = entry.provenance.clone();
        Turn::Reply { response: response.clone(), provenance, by_kind: Vec::new(), took_ms }
    }

    /// Nothing answers, and nothing is known of why.
    pub(crate) fn missing(diff: String) -> Turn {
        Turn::Missing { closest: None, diff, words: Vec::new() }
    }
}

pub(crate) trait Model {
    fn respond(&mut self, request: &Value) -> Turn;
}

/// Replays recorded turns, strictly by the request's key (and, for a request sent again after
/// a transient error, by how many times it was sent).
pub(crate) struct RecordedModel<'c> {
    cassette: &'c Cassette,
    root: PathBuf,
    /// Keys of the turns replayed so far (`recordings::used_key`).
    pub used: HashSet<String>,
    /// How many times each request was sent so far in this run.
    sent: HashMap<String, usize>,
}

impl<'c> RecordedModel<'c> {
    pub(crate) fn new(cassette: &'c Cassette, root: PathBuf) -> RecordedModel<'c> {
        RecordedModel { cassette, root, used: HashSet::new(), sent: HashMap::new() }
    }
}

impl RecordedModel<'_> {
    /// The recorded turn for this sending of the request with this key, if there is one.
    pub(crate) fn find(&mut self, key: &str) -> Option<Turn> {
        let nth = self.sent.get(key).copied().unwrap_or(0);
        let found = self.cassette.find_nth(key, nth)?;
        self.sent.insert(key.to_string(), nth + 1);
        self.used.insert(found.used_key());
        Some(Turn::recorded(&found.entry))
    }

    /// The turn recorded for other words of the same kind as this request's, labelled so.
    pub(crate) fn find_kind(&mut self, request: &Value) -> Option<Turn> {
        let (found, swaps) = self.cassette.find_kind(request)?;
        self.used.insert(found.used_key());
        let mut turn = Turn::recorded(&found.entry);
        if let Turn::Reply { by_kind, .. } = &mut turn {
            *by_kind = swaps;
        }
        Some(turn)
    }

    /// The request is not recorded: the closest recorded one, and how the two differ.
    pub(crate) fn missing(&self, request: &Value) -> Turn {
        let words = self.cassette.unanswered(request);
        let Some(closest) = self.cassette.closest(request) else {
            return Turn::Missing { closest: None, diff: String::new(), words };
        };
        let place = closest.file_line(&self.root);
        let recorded = recordings::canonical_pretty(&closest.entry.request);
        let mine = recordings::canonical_pretty(request);
        let diff = similar::TextDiff::from_lines(&recorded, &mine)
            .unified_diff()
            .context_radius(3)
            .header(&format!("recorded request ({place})"), "your run's request")
            .to_string();
        Turn::Missing { closest: Some(place), diff, words }
    }
}

impl Model for RecordedModel<'_> {
    fn respond(&mut self, request: &Value) -> Turn {
        let key = recordings::key(request);
        self.find(&key).or_else(|| self.find_kind(request)).unwrap_or_else(|| self.missing(request))
    }
}

/// A tool's name as an MCP server offers it to the model: `mcp__<server>__<tool>`.
pub(crate) fn qualified(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}

/// The plain tool name of a qualified one, when it is this server's.
pub(crate) fn unqualified<'n>(server: &str, name: &'n str) -> Option<&'n str> {
    name.strip_prefix("mcp__")?.strip_prefix(server)?.strip_prefix("__")
}

/// One authored model turn: optional text, then optional tool calls; or what the API answered
/// instead of the model (an error, or nothing within the time limit).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScriptTurn {
    #[serde(default)]
    pub say: Option<String>,
    #[serde(default)]
    pub call: Vec<ScriptCall>,
    /// Why the model stopped when it is not the end of its turn or a tool call: `max_tokens`
    /// (the text is cut there) or `refusal`.
    #[serde(default)]
    pub stop: Option<String>,
    /// The API answered with this error instead.
    #[serde(default)]
    pub error: Option<ScriptError>,
    /// The request timed out: nothing came back.
    #[serde(default)]
    pub timeout: bool,
    /// How long the request took, on the replay's clock.
    #[serde(default)]
    pub took_ms: Option<u64>,
}

/// An error the API answers a request with, as its body says it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScriptError {
    pub status: u16,
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
    /// Seconds the API asks the host to wait (its `retry-after` header).
    #[serde(default)]
    pub retry_after: Option<f64>,
}

/// The stop reasons a script may give a reply besides the two it works out itself.
const SCRIPT_STOPS: [&str; 2] = ["max_tokens", "refusal"];

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScriptCall {
    /// The plain tool name; the SDK runtime qualifies it.
    pub tool: String,
    pub input: Value,
}

/// One combination the authors scripted, and the tool runs it must show.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScriptRun {
    pub runtime: String,
    pub ticket: String,
    pub code: String,
    pub tool_calls: usize,
    pub turns: Vec<ScriptTurn>,
}

/// `recordings/<lesson>/script.toml`: the authored side of every recorded run.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Script {
    pub by: String,
    pub written: String,
    #[serde(rename = "run")]
    pub runs: Vec<ScriptRun>,
}

impl Script {
    /// The script in a lesson's recordings folder, if it has one.
    pub(crate) fn load(
        root: &std::path::Path,
        recordings: &std::path::Path,
    ) -> Result<Option<Script>, crate::error::Error> {
        let path = recordings.join("script.toml");
        let shown = |p: &std::path::Path| crate::course::root::shown(root, p);
        if !path.is_file() {
            return Ok(None);
        }
        let text = crate::files::read_data_text(&path, crate::files::DATA_CAP)
            .map_err(|e| crate::error::Error::io(shown(&path), e))?;
        toml::from_str(&text).map(Some).map_err(|e| {
            let line = e.span().map_or(1, |span| {
                text.get(..span.start).unwrap_or(&text).matches('\n').count() + 1
            });
            let flaw = crate::error::Flaw::Script(e);
            crate::error::Error::from(crate::error::Corrupt::at(&shown(&path), line, flaw))
        })
    }
}

/// Answers each request with the next authored turn, and keeps what it answered as recordings.
pub(crate) struct ScriptModel {
    turns: VecDeque<ScriptTurn>,
    /// The MCP server's name, in the sdk runtime.
    server: Option<String>,
    provenance: Provenance,
    seed: String,
    count: usize,
    pub recorded: Vec<Entry>,
}

impl ScriptModel {
    pub(crate) fn new(script: &Script, run: &ScriptRun, server: &str) -> ScriptModel {
        ScriptModel {
            turns: run.turns.iter().cloned().collect(),
            server: (run.runtime == "sdk").then(|| server.to_string()),
            provenance: Provenance::Authored {
                by: script.by.clone(),
                written: script.written.clone(),
            },
            seed: format!("{}/{}", run.runtime, run.ticket),
            count: 0,
            recorded: Vec::new(),
        }
    }

    pub(crate) fn turns_left(&self) -> usize {
        self.turns.len()
    }

    /// An id in the API's shape, the same for the same run and turn every time it is recorded.
    fn id(&mut self, prefix: &str, request: &Value) -> String {
        self.count += 1;
        let turn = request.get("messages").and_then(Value::as_array).map_or(0, |m| m.len());
        recordings::api_id(prefix, &json!([self.seed, self.count, turn]))
    }
}

impl Model for ScriptModel {
    fn respond(&mut self, request: &Value) -> Turn {
        // The same request asked again in one run after its reply (a host that took a turn back
        // and asked the model afresh) gets the reply already recorded for it, as a replay keyed
        // by request would; one sent again after an error takes the script's next turn.
        let key = recordings::key(request);
        let replied = |e: &&Entry| {
            e.key == key && e.response.get("type").and_then(Value::as_str) == Some("message")
        };
        if let Some(earlier) = self.recorded.iter().rev().find(replied) {
            return Turn::recorded(earlier);
        }
        let Some(turn) = self.turns.pop_front() else {
            return Turn::missing("the script has no more turns for this run".into());
        };
        let (response, answer) = match self.answer(&turn, request) {
            Ok(answered) => answered,
            Err(why) => return Turn::missing(why),
        };
        let entry = Entry {
            key,
            provenance: self.provenance.clone(),
            request: request.clone(),
            response,
            took_ms: turn.took_ms,
        };
        self.recorded.push(entry);
        answer
    }
}

impl ScriptModel {
    /// The response a scripted turn records, and the turn it is. Err: the script asks for
    /// what no API answers.
    fn answer(&mut self, turn: &ScriptTurn, request: &Value) -> Result<(Value, Turn), String> {
        let took_ms = turn.took_ms.unwrap_or(0);
        if turn.timeout {
            return Ok((json!({"type": "timeout"}), Turn::TimedOut { took_ms }));
        }
        if let Some(error) = &turn.error {
            if !(400..600).contains(&error.status) {
                let status = error.status;
                return Err(format!("the scripted error's status {status} is not an API status"));
            }
            let mut response = json!({
                "type": "error",
                "status": error.status,
                "error": {"type": error.kind, "message": error.message},
            });
            if let Some(seconds) = error.retry_after {
                response["retry_after"] = json!(seconds);
            }
            let recorded = Entry {
                key: String::new(),
                provenance: self.provenance.clone(),
                request: Value::Null,
                response: response.clone(),
                took_ms: Some(took_ms),
            };
            return Ok((response, Turn::recorded(&recorded)));
        }
        let mut content = Vec::new();
        if let Some(text) = &turn.say {
            content.push(json!({"type": "text", "text": text.trim()}));
        }
        for call in &turn.call {
            let name = match &self.server {
                Some(server) => qualified(server, &call.tool),
                None => call.tool.clone(),
            };
            let id = self.id("toolu", request);
            content.push(json!({"type": "tool_use", "id": id, "name": name, "input": call.input}));
        }
        let stop = match &turn.stop {
            Some(stop) if SCRIPT_STOPS.contains(&stop.as_str()) => stop.as_str(),
            Some(other) => {
                let known = SCRIPT_STOPS.join(", ");
                return Err(format!("the scripted stop {other:?} is not one of {known}"));
            }
            None if turn.call.is_empty() => "end_turn",
            None => "tool_use",
        };
        let response = json!({
            "id": self.id("msg", request),
            "type": "message",
            "role": "assistant",
            "model": request.get("model").cloned().unwrap_or(Value::Null),
            "content": content,
            "stop_reason": stop,
        });
        let provenance = self.provenance.clone();
        Ok((response.clone(), Turn::Reply { response, provenance, by_kind: Vec::new(), took_ms }))
    }
}

#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;

    /// A model that answers each request with the next of these contents, in order.
    pub(crate) struct Scripted {
        turns: VecDeque<Value>,
        /// Every request it was sent, in order.
        pub(crate) requests: Vec<Value>,
    }

    impl Scripted {
        pub(crate) fn new(turns: Vec<Value>) -> Scripted {
            Scripted { turns: turns.into(), requests: Vec::new() }
        }
    }

    impl Model for Scripted {
        fn respond(&mut self, request: &Value) -> Turn {
            self.requests.push(request.clone());
            let Some(content) = self.turns.pop_front() else {
                return Turn::missing(String::new());
            };
            let calls =
                content.as_array().is_some_and(|c| c.iter().any(|b| b["type"] == "tool_use"));
            let response = json!({"role": "assistant", "content": content, "stop_reason": if calls { "tool_use" } else { "end_turn" }});
            let provenance = Provenance::Authored { by: "a test".into(), written: "today".into() };
            Turn::Reply { response, provenance, by_kind: Vec::new(), took_ms: 0 }
        }
    }
}
