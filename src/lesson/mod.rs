//! A lesson as data: `lessons/<id>/lesson.toml`, its starter files and its reference solution.
//! The runner knows no lesson: everything a lesson is (its learner functions, which of them run
//! at which point of a run, its tools, tickets, checks, hints and texts) is read from here and
//! validated. Its world's data is checked by the world the lesson names (`crate::world`). This
//! file holds the `Lesson` itself and what it is asked; each part of a manifest has its own.

mod agent;
mod check_spec;
mod cond;
pub(crate) mod expect;
mod find;
mod hooks;
pub(crate) mod kinds;
mod load;
pub(crate) mod mcp;
mod nowhere;
mod paths;
mod predict;
mod problems;
mod properties;
pub(crate) mod quiz;
mod running;
mod ticket;
mod validate;
mod wording;
mod world_checks;
mod world_slot;
pub(crate) use world_slot::WorldSince;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Deserialize;

pub(crate) use crate::world::Tool;
pub(crate) use agent::AgentData;
pub use agent::Runtime;
pub(crate) use check_spec::{CheckSpec, Sample};
pub(crate) use cond::{Cond, HAS, NAMED};
pub(crate) use find::resolve;
pub(crate) use hooks::{Action, Answers, FailureShape, HarnessData, Hook, Hooks};
pub(crate) use load::all_in_order;
pub(crate) use paths::{known_ids, validate_id};
pub(crate) use predict::{Predict, TicketPredict};
pub(crate) use ticket::{Note, Notes, Ticket};
use world_slot::WorldSlot;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    pub id: String,
    pub number: u32,
    pub course: String,
    pub title: String,
    pub summary: String,
    /// The world the lesson is set in: `worlds/<name>/world.py` under the root.
    #[serde(default)]
    pub setting: Option<String>,
    /// The learner's file name inside `work/<id>/`.
    pub file: String,
    pub functions: Vec<String>,
    /// The reference solution, relative to the lesson folder.
    pub solution: String,
    /// What `watch --code` calls the reference solution (`solution` is always accepted too).
    #[serde(default = "default_solution_label")]
    pub solution_label: String,
    /// Half-finished states the lesson's text describes, as files of their own: `watch --code
    /// <label>` replays one, and `doctor` replays each like the starter and the fix.
    #[serde(default)]
    pub mistakes: Vec<Mistake>,
    pub agent: AgentData,
    /// How the lesson's failure results look, when learner code builds them.
    #[serde(default)]
    pub failure: Option<FailureShape>,
    /// Which learner functions run at which points of a run.
    #[serde(default)]
    pub hooks: Hooks,
    #[serde(default)]
    pub harness: HarnessData,
    /// The lesson's MCP client, when the learner writes an MCP server (`lesson::mcp`).
    #[serde(default)]
    pub mcp: Option<mcp::McpData>,
    pub tools: Vec<Tool>,
    /// The world's own data, checked and loaded by the world (`setting`).
    #[serde(default = "empty_table")]
    pub world: toml::Value,
    /// Sample tool messages the checks pass to the learner's functions, by name (`$name`).
    #[serde(default)]
    pub samples: BTreeMap<String, Sample>,
    /// How the ids in the checks' cases begin (`toolu_`): each such id only names a call, so it
    /// is drawn afresh for each file, as sample fields are (`checks::Samples`).
    #[serde(default)]
    pub case_ids: Vec<String>,
    pub tickets: Vec<Ticket>,
    /// Words in requests that replies depend on only by their kind (`crate::lesson::kinds`).
    #[serde(default)]
    pub own_words: Vec<crate::lesson::kinds::Words>,
    /// Rival roles a message can give the facts it names, for `names ... as` expectations.
    #[serde(default)]
    pub(crate) wording: Vec<expect::Wording>,
    /// Properties of a message, by id, for checks, replay kinds and cards alike.
    #[serde(default)]
    pub(crate) properties: BTreeMap<String, expect::Property>,
    pub checks: Vec<CheckSpec>,
    /// The player's question before a starter replay.
    #[serde(default)]
    pub predict: Predict,
    #[serde(skip)]
    pub dir: PathBuf,
    /// The lesson's world: its process started at load, beside the learner's, and waited for
    /// (and its checks of the lesson's data made) at first use.
    #[serde(skip)]
    world_slot: Option<Arc<WorldSlot>>,
}

/// A named mistake: a learner's file stopped half way, shipped with the lesson.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mistake {
    /// What `--code` calls it, such as `no-verify`.
    pub label: String,
    /// The file, relative to the lesson folder.
    pub file: String,
}

fn default_solution_label() -> String {
    "solution".into()
}

fn empty_table() -> toml::Value {
    toml::Value::Table(toml::Table::new())
}

impl Lesson {
    /// The tickets that run in a runtime.
    pub fn tickets_for(&self, runtime: &str) -> Vec<&Ticket> {
        self.tickets.iter().filter(|t| t.runs_in(runtime)).collect()
    }

    pub fn ticket(&self, id: &str) -> Option<&Ticket> {
        self.tickets.iter().find(|t| t.id == id)
    }

    pub fn check(&self, id: &str) -> Option<&CheckSpec> {
        self.checks.iter().find(|c| c.id == id)
    }

    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The tools offered for a ticket, in the lesson's order.
    pub fn tools_for(&self, ticket: &Ticket) -> Vec<&Tool> {
        if ticket.tools.is_empty() {
            self.tools.iter().filter(|t| t.default).collect()
        } else {
            ticket.tools.iter().filter_map(|name| self.tool(name)).collect()
        }
    }

    /// The learner's functions as the bridge checks them at load: `name`, or `name=2,3` with
    /// every number of arguments the lesson calls it with (its hooks and its checks' cases).
    pub fn function_specs(&self) -> Vec<String> {
        self.functions
            .iter()
            .map(|name| {
                let mut counts = std::collections::BTreeSet::new();
                for (_, hook, _) in self.hooks.all().filter(|(_, h, _)| h.function == *name) {
                    counts.insert(hook.args.len());
                    // `verify` is given only when the world names a read.
                    if hook.args.iter().any(|a| a == "verify") {
                        counts.insert(hook.args.len() - 1);
                    }
                }
                for check in self.checks.iter().filter(|c| c.call.as_deref() == Some(name)) {
                    counts.extend(check.cases.iter().map(|c| c.args.len()));
                }
                match counts.is_empty() {
                    true => name.clone(),
                    false => format!(
                        "{name}={}",
                        counts.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
                    ),
                }
            })
            .collect()
    }

    /// The named mistake with this label.
    pub fn mistake(&self, label: &str) -> Option<&Mistake> {
        self.mistakes.iter().find(|m| m.label == label)
    }
}
