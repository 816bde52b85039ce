//! The player's questions before a replay: the lesson's own, and a ticket's, answered by what
//! the run did.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::Cond;

/// A ticket's own question before a replay: asked before the run of `code`, and answered right
/// by the choice whose `when` holds of that run.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TicketPredict {
    /// The code whose run the question is about: `starter`, or the solution's label.
    #[serde(default = "starter_code")]
    pub code: String,
    pub ask: String,
    /// What the learner knows before guessing, by runtime.
    #[serde(default)]
    pub context: BTreeMap<String, String>,
    pub choices: Vec<PredictChoice>,
}

fn starter_code() -> String {
    "starter".into()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PredictChoice {
    pub says: String,
    pub when: BTreeMap<String, Cond>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Predict {
    #[serde(default)]
    pub ask: String,
    /// What the learner knows before guessing, by runtime.
    #[serde(default)]
    pub context: BTreeMap<String, String>,
}
