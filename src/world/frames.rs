//! The world host's answers (`host.py`) as types: each part read with its own keys, none
//! defaulted. A renamed or missing key fails with the key and the answer it was in, so a host
//! and a workshop that disagree say so instead of showing no lines or empty effects. The
//! golden frames of every answer kind are in tests/fixtures/protocol/world_answers.json, which
//! the host's own tests (tests/python) check its answers against too.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::{Effects, Failure, Problem};

/// One answer of the host, as it comes: exactly one of its kinds, and what a call's answer
/// carries beside it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HostFrame {
    #[serde(default, deserialize_with = "present")]
    value: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    failure: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    problems: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    lost: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    said: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    effects: Option<Value>,
}

/// A key that is there, even holding `null` (which `Option` alone would take for absent).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FailureFrame {
    category: String,
    message: String,
    verify: Value,
    fields: Map<String, Value>,
}

/// The author's code raised, or gave what cannot be used: where in the world file, if known.
#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(super) struct ErrorFrame {
    pub(super) message: String,
    pub(super) doing: String,
    #[serde(default)]
    pub(super) line: Option<u64>,
    #[serde(default)]
    pub(super) code: Option<String>,
    #[serde(default)]
    pub(super) function: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EffectsFrame {
    counts: Map<String, Value>,
    detail: Map<String, Value>,
    harms: Vec<String>,
}

/// What the host keeps of a loaded world, as `load_world` answers with it.
#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(super) struct LoadedWorld {
    pub(super) behaviours: Vec<String>,
    pub(super) messages: BTreeMap<String, String>,
    pub(super) fields: Vec<String>,
    pub(super) counts: BTreeMap<String, Vec<String>>,
    pub(super) retry_helps: Vec<String>,
    pub(super) internal: Vec<String>,
}

/// What one answer says.
#[derive(Debug, PartialEq)]
pub(super) enum HostSaid {
    Value(Value),
    Failed(Failure),
    Problems(Vec<Problem>),
    /// The run asked about was lost with a process that ended.
    Lost,
    Error(ErrorFrame),
}

/// An answer read: what it says, the world's own lines of the call, and what the run had done
/// after it (a call's answer carries both).
#[derive(Debug, PartialEq)]
pub(super) struct HostAnswer {
    pub(super) said: HostSaid,
    pub(super) lines: Vec<String>,
    pub(super) effects: Option<Effects>,
}

/// One part of an answer, read with its own keys; an error names the part.
fn part<T: DeserializeOwned>(name: &str, value: Value) -> Result<T, String> {
    let why = |e| format!("the world's host sent {name} the workshop cannot read ({e})");
    T::deserialize(value).map_err(why)
}

/// Read one answer of the host.
pub(super) fn read(raw: Value) -> Result<HostAnswer, String> {
    let frame: HostFrame = part("an answer", raw)?;
    let kinds = [
        ("value", frame.value.is_some()),
        ("failure", frame.failure.is_some()),
        ("problems", frame.problems.is_some()),
        ("lost", frame.lost.is_some()),
        ("error", frame.error.is_some()),
    ];
    let given: Vec<&str> = kinds.iter().filter(|(_, there)| *there).map(|(k, _)| *k).collect();
    if given.len() != 1 {
        return Err(format!(
            "the world's host sent an answer with {} of the keys value, failure, problems, lost \
             and error, where each answer has exactly one",
            if given.is_empty() { "none".to_string() } else { given.join(" and ") }
        ));
    }
    let said = if let Some(value) = frame.value {
        HostSaid::Value(value)
    } else if let Some(failure) = frame.failure {
        let f: FailureFrame = part("a `failure` answer", failure)?;
        let verify = Some(f.verify).filter(|v| !v.is_null());
        HostSaid::Failed(Failure {
            category: f.category,
            message: f.message,
            verify,
            fields: f.fields,
        })
    } else if let Some(problems) = frame.problems {
        let found: Vec<(String, String)> = part("a `problems` answer", problems)?;
        HostSaid::Problems(found.into_iter().map(|(near, why)| Problem::new(near, why)).collect())
    } else if let Some(lost) = frame.lost {
        part::<bool>("a `lost` answer", lost)?;
        HostSaid::Lost
    } else {
        HostSaid::Error(part("an `error` answer", frame.error.unwrap_or_default())?)
    };
    let lines = match frame.said {
        Some(lines) => part("the `said` lines of an answer", lines)?,
        None => Vec::new(),
    };
    let effects = frame.effects.map(|e| effects("the `effects` of an answer", e)).transpose()?;
    Ok(HostAnswer { said, lines, effects })
}

/// A run's effects (the value of an `effects` question, or what a call's answer carries).
pub(super) fn effects(name: &str, value: Value) -> Result<Effects, String> {
    let e: EffectsFrame = part(name, value)?;
    Ok(Effects { counts: e.counts, detail: e.detail, harms: e.harms })
}

/// What the host keeps of a loaded world: the value of `load_world`'s answer.
pub(super) fn loaded(value: Value) -> Result<LoadedWorld, String> {
    part("a loaded world (the value of `load_world`)", value)
}

#[cfg(test)]
mod tests;
