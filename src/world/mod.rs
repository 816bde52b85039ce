//! Worlds: where a lesson happens. A world is Python a course author writes
//! (`worlds/<name>/world.py`): it owns its data's schema and validation, what its tools do, the
//! fields drawn for sample inputs, how a result reads on a card and the sentences that describe
//! what a run did. It runs in its own process (`python`), never the learner's, so the effects of
//! a run cannot be forged by learner code.
//!
//! A lesson names its world in `setting`; loading the lesson starts that world and hands it the
//! lesson's `[world]` table and each ticket's world keys to check, and keeps a `Setting`: the loaded
//! world, from which every run starts a fresh `World`.

mod frames;
pub(crate) mod python;

use std::fmt::Debug;

use serde::Deserialize;
use serde_json::{json, Map, Value};

/// A tool the model can call: what the model reads, and the world behaviour behind it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    pub name: String,
    /// The world's behaviour this tool runs: the name of one of its `@tool`s.
    pub does: String,
    pub description: String,
    pub input_schema: Value,
    /// The call in words on its card, with `{field}` filled from the input.
    pub says: String,
    /// The words when the input lacks a field `says` needs.
    #[serde(default)]
    pub says_bare: Option<String>,
    /// Offered to the model when a ticket names no tools.
    #[serde(default)]
    pub default: bool,
    /// For a tool that starts a subagent: the tool the subagent runs.
    #[serde(default)]
    pub runs: Option<String>,
}

impl Tool {
    /// The tool's definition, as the Messages API's `tools` list holds it.
    pub(crate) fn definition(&self, name: &str) -> Value {
        json!({"name": name, "description": self.description.trim(), "input_schema": self.input_schema})
    }
}

/// A failure as the world reports it, before the learner's code (or the runtime) shapes it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Failure {
    pub(crate) category: String,
    pub(crate) message: String,
    /// The read that settles an uncertain outcome: `{"tool": ..., "input": {...}}`.
    pub(crate) verify: Option<Value>,
    /// The world's own fields of this failure (a cached figure, an `until` time), handed to the
    /// build hook by name where the lesson declares them (`[failure] fields`).
    pub(crate) fields: Map<String, Value>,
}

/// The learner's code could not shape a failure; whoever built the callback knows why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Halt;

/// Shapes a failure into the result the tool returns.
pub(crate) type Fail<'a> = dyn FnMut(&Failure) -> Result<Value, Halt> + 'a;

/// Something in the lesson's world data that is wrong: near what text, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    /// Text to find in the manifest, for the line.
    pub(crate) near: String,
    pub(crate) why: String,
}

impl Problem {
    pub(crate) fn new(near: impl Into<String>, why: impl Into<String>) -> Problem {
        Problem { near: near.into(), why: why.into() }
    }
}

/// A ticket's world keys (everything in `[[tickets]]` the runner itself does not read).
pub(crate) struct TicketKeys<'a> {
    pub(crate) id: &'a str,
    pub(crate) keys: &'a toml::Table,
}

/// What a world knows of a failure the learner's code shaped, read through the lesson's keys.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Seen {
    pub(crate) category: Option<String>,
    pub(crate) retryable: Option<bool>,
    pub(crate) message: Option<String>,
}

/// What a run did to the world, for checks, the JSON verdict and the verdict's sentences.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Effects {
    /// Counted effects a ticket check can expect on (a count of the world's `= 1`).
    pub(crate) counts: Map<String, Value>,
    /// The same effects in detail, for `watch --format json`.
    pub(crate) detail: Map<String, Value>,
    /// Sentences naming harm the run did ("paid twice"); empty when it did none.
    pub(crate) harms: Vec<String>,
}

/// A lesson's loaded world, shared by all its runs.
pub(crate) trait Setting: Send + Sync + Debug {
    /// A fresh world for one run of a ticket.
    fn start(&self, ticket: &str) -> Box<dyn World + '_>;
    /// One of the world's message templates.
    fn message(&self, key: &str) -> Option<&str>;
    /// Whether a retry can really fix a failure of this category: the truth replays judge by.
    fn retry_helps(&self, category: &str) -> bool;
    /// Whether a failure of this category carries the service's own internals (a traceback, a
    /// connection string) that must never reach the model: a replay counts each that did.
    fn internal(&self, _category: &str) -> bool {
        false
    }
    /// Fields for the sample messages, drawn with `draw(n)` (0..n); a sample's own fields win
    /// over these (see `checks::Samples`).
    fn draw_fields(&self, draw: &mut dyn FnMut(u64) -> u64) -> Vec<(String, String)>;
    /// A successful result without a message, in words, where the world knows its shape.
    fn summary(&self, output: &Value) -> Option<String>;
}

/// One run's world.
pub(crate) trait World {
    /// Run a tool by name; every failure goes through `fail`.
    fn call(&mut self, tool: &str, input: &Value, fail: &mut Fail<'_>) -> Result<Value, Halt>;
    /// The world's own lines about the last call, for its card ("Dana declined the scaling").
    fn said(&mut self) -> Vec<String> {
        Vec::new()
    }
    /// Whether a read's result found what it looked for.
    fn found(&self, read: &Value) -> bool;
    /// What the run has done to the world so far.
    fn effects(&self) -> Effects;
    /// What a subagent whose task failed passes up, built from what the failure said; `None`
    /// when it said nothing to report.
    fn report(&self, seen: &Seen, attempts: usize, input: &Value) -> Option<Value>;
}

/// A template with `{name}` fields filled in.
pub(crate) fn fill<K: AsRef<str>>(template: &str, fields: &[(K, String)]) -> String {
    let mut text = template.to_string();
    for (name, value) in fields {
        text = text.replace(&format!("{{{}}}", name.as_ref()), value);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::{Call, Outcome};
    use crate::lesson::{Lesson, Runtime};
    use crate::replay::runtime::harness::Code;

    #[test]
    fn templates_fill_their_fields() {
        assert_eq!(
            fill(
                "order {order_id}, {age} days",
                &[("order_id", "0871".to_string()), ("age", "239".to_string())]
            ),
            "order 0871, 239 days"
        );
    }

    const MANIFEST: &str = r#"
id = "bells"
number = 1
course = "c"
title = "Bells"
summary = "s"
setting = "belfry"
file = "bell.py"
functions = ["shape", "again"]
solution = "solution/bell.py"
[agent]
model = "m"
max_tokens = 10
harness_system = "h"
sdk_system = "s"
[failure]
flag = "down"
error = "why"
category = "kind"
[hooks.build]
function = "shape"
args = ["category", "message"]
[hooks.decide]
function = "again"
args = ["error"]
answers = "truthy"
[harness]
max_attempts = 2
[[tools]]
name = "pull_rope"
does = "ring"
default = true
description = "Ring the bell."
input_schema = { type = "object" }
says = "pulls the rope"
[world]
bells = 1
[[tickets]]
id = "noon"
text = "Ring noon."
category = "transient"
quiet = 1
probe = { tool = "pull_rope", input = {} }
[[checks]]
id = "noon-rings-once"
name = "noon rings once"
hints = ["Try again after a quiet bell.", "Answer yes when the kind is transient."]
ticket = "noon"
expect = [{ path = "attempts", equals = 2 }, { path = "rings", equals = 1 }]
"#;

    /// The learner's code, as Rust: `shape` builds `{"down": true, "why": {"kind": ...}}`,
    /// `again` says yes to a transient failure.
    struct Ropes;

    impl Code for Ropes {
        fn call(&mut self, function: &str, args: &[Value]) -> Call {
            Flagged("down").call(function, args)
        }
    }

    /// `Ropes` with the failure flag under another key.
    struct Flagged(&'static str);

    impl Code for Flagged {
        fn call(&mut self, function: &str, args: &[Value]) -> Call {
            let value = match function {
                "shape" => json!({self.0: true, "why": {"kind": args[0]}}),
                _ => Value::Bool(args[0]["kind"] == "transient"),
            };
            Call { outcome: Outcome::Returned(value), output: String::new(), dropped: 0 }
        }
    }

    /// The root whose `worlds/` holds the Belfry, a world of the tests.
    fn fixtures() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
    }

    fn load(manifest: &str) -> Result<Lesson, crate::error::Error> {
        let dir = std::path::Path::new("/nowhere");
        Lesson::from_text(manifest, &dir.join("lesson.toml"), dir, None, Some(&fixtures()))
            .and_then(Lesson::opened)
    }

    fn bells() -> Lesson {
        load(MANIFEST).expect("the bell lesson loads")
    }

    #[test]
    fn a_second_world_loads_validates_and_counts_its_own_effects() {
        let lesson = bells();
        let results = crate::checks::run_all(&lesson, &mut Ropes, 7);
        assert_eq!(results[0].status, crate::checks::Status::Pass, "{:?}", results[0]);
        // Its data is checked by the world itself, with the line.
        let broken = MANIFEST
            .replace("bells = 1", "bells = 3")
            .replace("quiet = 1", "quiet = 1\ncolour = \"red\"");
        let err = load(&broken).unwrap_err().to_string();
        assert!(err.contains("a belfry has bells = 1"), "{err}");
        assert!(err.contains("ticket noon: unknown key colour"), "{err}");
        assert!(err.contains("line "), "{err}");
        // A world that is not there is named with the ones that are.
        let err = load(&MANIFEST.replace("setting = \"belfry\"", "setting = \"chimes\""))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "setting 'chimes' is not a world here: there is no worlds/chimes/world.py (worlds here: belfry)"
            ),
            "{err}"
        );
        // A tool that does what the world cannot is named with what it can.
        let err =
            load(&MANIFEST.replace("does = \"ring\"", "does = \"toll\"")).unwrap_err().to_string();
        assert!(
            err.contains("tool pull_rope does 'toll', which the world belfry cannot do: ring"),
            "{err}"
        );
    }

    /// The host opens a run with its first question and forgets it with the next question after
    /// it ends: however many runs a session makes (each save in `check --watch`), it keeps one.
    #[test]
    fn the_host_forgets_each_run_with_the_next_question_after_it_ends() {
        let lesson = bells();
        let setting = lesson.setting();
        for _ in 0..3 {
            let run = setting.start("noon");
            assert_eq!(run.effects().detail.get("runs_kept"), Some(&Value::from(1)));
        }
        // A run asked nothing leaves nothing behind either.
        drop(setting.start("noon"));
        let run = setting.start("noon");
        assert_eq!(run.effects().detail.get("runs_kept"), Some(&Value::from(1)));
    }

    /// A call's answer brings what the run has done after it, so a run whose last question was a
    /// call is not asked for its effects again; asked anything else since (a read's `found`), it is.
    #[test]
    fn a_runs_effects_come_with_its_last_call_and_are_asked_for_after_anything_else() {
        let lesson = bells();
        let setting = lesson.setting();
        let mut run = setting.start("noon");
        let mut failed = |f: &Failure| Ok(json!({"failed": f.category}));
        assert_eq!(
            run.call("pull_rope", &json!({}), &mut failed),
            Ok(json!({"failed": "transient"}))
        );
        assert_eq!(run.call("pull_rope", &json!({}), &mut failed), Ok(json!({"rang": true})));
        let read = |run: &dyn World, key: &str| run.effects().detail.get(key).cloned();
        // Read once after each call, and not again when asked.
        assert_eq!(read(&*run, "details_read"), Some(Value::from(2)));
        assert_eq!(read(&*run, "details_read"), Some(Value::from(2)));
        assert_eq!(run.effects().counts.get("rings"), Some(&Value::from(1)));
        // A read may change the world: the effects are asked for again, and show it.
        assert!(run.found(&json!({"rang": true})));
        assert_eq!(read(&*run, "reads"), Some(Value::from(1)));
        assert_eq!(read(&*run, "details_read"), Some(Value::from(4)));
    }

    #[test]
    fn a_run_in_a_second_world_is_judged_and_summarised_by_that_world() {
        let lesson = bells();
        let ticket = lesson.ticket("noon").unwrap();
        let mut model = crate::replay::turns::tests_support::Scripted::new(vec![
            json!([{"type": "tool_use", "id": "toolu_1", "name": "pull_rope", "input": {}}]),
            json!([{"type": "text", "text": "It is noon."}]),
        ]);
        let replay = crate::replay::runtime::run(
            &lesson,
            ticket,
            Runtime::Harness,
            "mine",
            &mut Ropes,
            &mut model,
        );
        let summaries: Vec<&str> = replay
            .events
            .iter()
            .filter_map(|e| match e {
                crate::replay::events::Event::Attempt { summary, .. } => summary.as_deref(),
                _ => None,
            })
            .collect();
        assert_eq!(summaries, ["the bell rang"]);
        assert_eq!(replay.verdict.effects.get("rings"), Some(&Value::from(1)));
        assert!(
            replay.verdict.text.starts_with("Tried twice: the retry got it through."),
            "{}",
            replay.verdict.text
        );
    }

    /// The `tool_result` blocks of every request a scripted model was sent, in order.
    fn results_sent(model: &crate::replay::turns::tests_support::Scripted) -> Vec<Value> {
        let last = model.requests.last().expect("a request was sent");
        let messages = last["messages"].as_array().cloned().unwrap_or_default();
        messages
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .filter(|b| b["type"] == "tool_result")
            .collect()
    }

    #[test]
    fn the_sdk_runtime_reads_the_lessons_own_failure_flag() {
        // The lesson flags a failure with the API's own spelling, `is_error`, not MCP's `isError`.
        for (flag, code) in [("is_error", Flagged("is_error")), ("down", Flagged("down"))] {
            let manifest = MANIFEST.replace("flag = \"down\"", &format!("flag = \"{flag}\""));
            let lesson = load(&manifest).unwrap();
            let ticket = lesson.ticket("noon").unwrap();
            let mut model = crate::replay::turns::tests_support::Scripted::new(vec![
                json!([{"type": "tool_use", "id": "toolu_1", "name": "mcp__support__pull_rope", "input": {}}]),
                json!([{"type": "text", "text": "The bell is quiet."}]),
            ]);
            let mut code = code;
            crate::replay::runtime::run(
                &lesson,
                ticket,
                Runtime::Sdk,
                "mine",
                &mut code,
                &mut model,
            );
            let results = results_sent(&model);
            assert_eq!(results.len(), 1, "{results:?}");
            assert_eq!(results[0]["is_error"], Value::Bool(true), "flag {flag}: {results:?}");
        }
        // A result that does not set the lesson's flag is not flagged, whatever else it says.
        let lesson = load(&MANIFEST.replace("flag = \"down\"", "flag = \"is_error\"")).unwrap();
        let mut model = crate::replay::turns::tests_support::Scripted::new(vec![
            json!([{"type": "tool_use", "id": "toolu_1", "name": "mcp__support__pull_rope", "input": {}}]),
            json!([{"type": "text", "text": "The bell is quiet."}]),
        ]);
        crate::replay::runtime::run(
            &lesson,
            lesson.ticket("noon").unwrap(),
            Runtime::Sdk,
            "mine",
            &mut Ropes,
            &mut model,
        );
        assert_eq!(results_sent(&model)[0].get("is_error"), None);
    }
}
