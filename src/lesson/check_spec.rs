//! A lesson's checks as declared: the calls or the ticket each makes, what it expects, the
//! guidance for likely mistakes, and the sample messages the calls are given.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::lesson::expect::{Expect, Expectations};

/// A declared check: calls of a learner function with expectations on what it returns, or a
/// ticket's probe taken through the real harness with expectations on what the run did.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub hints: Vec<String>,
    /// The learner function this check calls.
    #[serde(default)]
    pub call: Option<String>,
    #[serde(default)]
    pub cases: Vec<Case>,
    /// The ticket whose probe this check runs through the harness.
    #[serde(default)]
    pub ticket: Option<String>,
    /// For a ticket check: what the run must show.
    #[serde(default)]
    pub expect: Expectations,
    /// Likely mistakes, recognised by the shape of what came back, each with its own advice.
    #[serde(default)]
    pub guidance: Vec<Guidance>,
    /// A group of checks, for graders that report by task.
    #[serde(default)]
    pub task: Option<u32>,
    /// The `$name`s it resolves, sorted, once: filled in as the lesson loads (`name_samples`), so
    /// the check against the world's drawn fields, which a command waits for, only compares.
    #[serde(skip)]
    pub(crate) samples: Vec<String>,
}

impl CheckSpec {
    /// Note every sample name this check resolves (`checks::resolved`): in the cases' arguments
    /// and expectations, a ticket check's expectations and the guidance's `when`, each
    /// expectation visited by the same walk that resolves it.
    pub(crate) fn name_samples(&mut self) {
        let values = std::cell::RefCell::new(Vec::new());
        let collect = |e: &Expect| {
            e.map_values(&|v| {
                values.borrow_mut().push(v.clone());
                v.clone()
            });
        };
        for case in &self.cases {
            values.borrow_mut().extend(case.args.iter().cloned());
            case.expect.iter().for_each(collect);
        }
        self.expect.iter().for_each(collect);
        self.guidance.iter().flat_map(|g| &g.when).for_each(collect);
        let mut names = sample_refs(&values.into_inner());
        names.sort();
        names.dedup();
        self.samples = names;
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// The arguments; a string `$name` is the sample of that name.
    pub args: Vec<Value>,
    pub expect: Expectations,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Guidance {
    /// A short name for the mistake.
    pub mistake: String,
    /// How to recognise it: expectations that all hold on what came back.
    #[serde(default)]
    pub when: Expectations,
    /// Or: the call raised, and its error reads like this (`KeyError: 'error'`).
    #[serde(default)]
    pub raises: Option<String>,
    pub says: String,
}

/// A tool message used as a sample input: the world's template, filled in. Fields the sample
/// does not give are drawn by the world from the run's seed, so a file that hard-codes the
/// sentences does not pass.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    pub message: String,
    #[serde(default)]
    pub fields: BTreeMap<String, String>,
}

/// The `$name` sample references in a value.
fn sample_refs(values: &[Value]) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => {
                if let Some(name) = s.strip_prefix('$') {
                    out.push(name.to_string());
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    values.iter().for_each(|v| walk(v, &mut out));
    out
}
