//! Worlds: where a lesson happens. A world is Rust and trusted: it owns its data's schema and
//! validation, what its tools do, the fields drawn for sample inputs, how a result reads on a
//! card and the sentences that describe what a run did (what it paid). It runs outside the
//! learner's interpreter, so the effects of a run cannot be forged by learner code.
//!
//! A lesson names its world in `setting`; the registry below maps that name to a `Setting`,
//! which checks the lesson's `[world]` table and each ticket's world keys once, at load, and
//! hands back a `Place`: the loaded world, from which every run starts a fresh `World`.

pub(crate) mod lumen;

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Map, Value};

/// A tool the model can call: what the model reads, and the world behaviour behind it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    pub name: String,
    /// The world's behaviour this tool runs, such as `refund` or `list_orders`.
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
    /// Counted effects a ticket check can expect on (`refunds_paid = 1`).
    pub(crate) counts: Map<String, Value>,
    /// The same effects in detail, for `watch --format json`.
    pub(crate) detail: Map<String, Value>,
    /// Sentences naming harm the run did ("paid twice"); empty when it did none.
    pub(crate) harms: Vec<String>,
}

/// A world the runner can host, found by name.
pub(crate) trait Setting: Sync {
    fn name(&self) -> &'static str;
    /// The behaviours a lesson's tools may name in `does`.
    fn behaviours(&self) -> &'static [&'static str];
    /// Check and load a lesson's world: its `[world]` table, its tools and its tickets' keys.
    fn load(
        &self,
        data: &toml::Value,
        tools: &[Tool],
        tickets: &[TicketKeys<'_>],
    ) -> Result<Arc<dyn Place>, Vec<Problem>>;
}

/// A lesson's loaded world, shared by all its runs.
pub(crate) trait Place: Send + Sync + Debug {
    /// A fresh world for one run of a ticket.
    fn start(&self, ticket: &str) -> Box<dyn World + '_>;
    /// One of the world's message templates.
    fn message(&self, key: &str) -> Option<&str>;
    /// Whether a retry can really fix a failure of this category: the truth replays judge by.
    fn retry_helps(&self, category: &str) -> bool;
    /// Fields for a sample message that the sample does not give, drawn with `draw(n)` (0..n).
    fn draw_fields(&self, given: &BTreeMap<String, String>, draw: &mut dyn FnMut(u64) -> u64) -> Vec<(String, String)>;
    /// A successful result without a message, in words, where the world knows its shape.
    fn summary(&self, output: &Value) -> Option<String>;
}

/// One run's world.
pub(crate) trait World {
    /// Run a tool by name; every failure goes through `fail`.
    fn call(&mut self, tool: &str, input: &Value, fail: &mut Fail<'_>) -> Result<Value, Halt>;
    /// Whether a read's result found what it looked for.
    fn found(&self, read: &Value) -> bool;
    /// What the run has done to the world so far.
    fn effects(&self) -> Effects;
    /// What a subagent whose task failed passes up, built from what the failure said; `None`
    /// when it said nothing to report.
    fn report(&self, seen: &Seen, attempts: usize, input: &Value) -> Option<Value>;
}

const SETTINGS: [&dyn Setting; 1] = [&lumen::Lumen];

/// The world a lesson's `setting` names.
pub(crate) fn setting(name: &str) -> Option<&'static dyn Setting> {
    SETTINGS.into_iter().find(|s| s.name() == name)
}

/// The names of the worlds this runner has.
pub(crate) fn names() -> Vec<&'static str> {
    SETTINGS.iter().map(|s| s.name()).collect()
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

    #[test]
    fn templates_fill_their_fields() {
        assert_eq!(
            fill("order {order_id}, {age} days", &[("order_id", "0871".to_string()), ("age", "239".to_string())]),
            "order 0871, 239 days"
        );
    }

    #[test]
    fn the_registry_finds_worlds_by_name() {
        assert_eq!(setting("lumen").map(|s| s.name()), Some("lumen"));
        assert!(setting("atlantis").is_none());
        assert_eq!(names(), vec!["lumen"]);
    }
}
