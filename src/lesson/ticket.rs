//! A ticket: a customer's request the agent works on, the tool calls a ticket check probes it
//! with, and the notes under its verdict.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::{Cond, TicketPredict};

#[derive(Debug, Clone, Deserialize)]
pub struct Ticket {
    pub id: String,
    pub text: String,
    /// A word for the ticket list, such as the category of its first failure.
    pub category: String,
    /// The tools the model is offered; empty means the lesson's default ones.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The runtimes the ticket runs in; empty means all of them.
    #[serde(default)]
    pub runtimes: Vec<String>,
    /// The tool calls a ticket check makes through the harness: one, or one turn of several.
    pub probe: Probes,
    /// Text the application adds for the model with the first turn's tool results.
    #[serde(default)]
    pub follow_up: Option<String>,
    /// Short notes under the verdict, each saying when it applies in terms of what the run did
    /// (its counts), tried in order: the harm a run like the starter's does, the gain of a run
    /// like the fix's, an honest line for any other.
    #[serde(default)]
    pub notes: Notes,
    /// The question the player asks before a replay of this ticket, judged by what the run did.
    #[serde(default)]
    pub predict: Option<TicketPredict>,
    /// Everything else: the world's keys for this ticket (its customer, its fault schedule),
    /// checked by the world.
    #[serde(flatten)]
    pub world: toml::Table,
}

impl Ticket {
    pub fn runs_in(&self, runtime: &str) -> bool {
        self.runtimes.is_empty() || self.runtimes.iter().any(|r| r == runtime)
    }

    /// The probe's calls, in order.
    pub fn probes(&self) -> &[Probe] {
        match &self.probe {
            Probes::One(p) => std::slice::from_ref(p),
            Probes::Turn(ps) => ps,
        }
    }
}

/// A ticket's notes.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Notes {
    /// Each note with the counts it applies to, tried in order.
    ByOutcome(Vec<Note>),
    /// The earlier form, one note per code (`notes.starter`): refused at load, with how to
    /// change it, because a note must follow what the run did, not which code ran.
    ByCode(BTreeMap<String, String>),
}

impl Default for Notes {
    fn default() -> Notes {
        Notes::ByOutcome(Vec::new())
    }
}

impl Notes {
    /// The notes that can apply (none in the earlier form).
    pub fn list(&self) -> &[Note] {
        match self {
            Notes::ByOutcome(notes) => notes,
            Notes::ByCode(_) => &[],
        }
    }
}

/// A note under the verdict: what it says, and the counts of the runs it is true of. A note
/// without `when` applies to any run.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Note {
    #[serde(default)]
    pub when: BTreeMap<String, Cond>,
    pub says: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Probes {
    One(Probe),
    /// Several calls in one assistant turn.
    Turn(Vec<Probe>),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Probe {
    pub tool: String,
    pub input: Value,
}
