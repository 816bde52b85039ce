//! Which learner functions run at which points of a run (`[hooks]`), how a failure they build
//! looks (`[failure]`), and how the harness runs tool calls (`[harness]`).

use std::collections::BTreeMap;

use serde::Deserialize;

/// The keys of a failure result that learner code built: how the harness knows it failed, and
/// what a card shows of it. Each names a key of the lesson's own results.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureShape {
    /// A result with this key set to `true` failed.
    #[serde(default)]
    pub flag: Option<String>,
    /// A result with this key failed too; its value is the error object.
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub retryable: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    /// The read that settles an uncertain failure, inside the error object.
    #[serde(default)]
    pub verify: Option<String>,
    /// The world's own fields of a failure that the build hook may be given by name, beside
    /// `category` and `message` (a cached figure, an `until` time); `None` when a failure has none.
    #[serde(default)]
    pub fields: Vec<String>,
}

/// Which learner functions run at which points of a run.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hooks {
    /// Every tool failure is built with this function.
    #[serde(default)]
    pub build: Option<Hook>,
    /// Asked after a failed attempt: retry, verify, report or done.
    #[serde(default)]
    pub decide: Option<Hook>,
    /// Builds the user message that answers one assistant turn's tool calls.
    #[serde(default)]
    pub answer: Option<Hook>,
    /// Asked when the Messages API answers a request with an error or not at all: a number of
    /// seconds sends the same request again after that wait; anything else stops the run.
    #[serde(default)]
    pub api_error: Option<Hook>,
    /// Asked before each model request after the first: a falsy answer stops the run there.
    #[serde(default)]
    pub go_on: Option<Hook>,
    /// Asked when the run ends without the model's answer (a cap, an API error, a reply cut
    /// off or refused): what the person is told.
    #[serde(default)]
    pub tell: Option<Hook>,
    /// The learner's own loop (`[hooks.loop]`), called through a kit (`anthropic:answer`): it
    /// sends the requests and runs the tools itself, and the runtime answers them.
    #[serde(default, rename = "loop")]
    pub host_loop: Option<Hook>,
}

/// One hook: the learner function, and the arguments it is given, by name.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hook {
    pub function: String,
    pub args: Vec<String>,
    /// For `decide`: how its answer is read.
    #[serde(default)]
    pub answers: Option<Answers>,
    /// For `answer`: the outcome kind of a failure of each world category (else `failed`).
    #[serde(default)]
    pub kinds: BTreeMap<String, String>,
}

/// The arguments each hook may be given.
pub(crate) const BUILD_ARGS: [&str; 5] = ["category", "message", "verify", "tool", "input"];
pub(crate) const DECIDE_ARGS: [&str; 5] = ["error", "result", "tool", "input", "attempt"];
pub(crate) const ANSWER_ARGS: [&str; 3] = ["tool_uses", "outcomes", "note"];
pub(crate) const API_ERROR_ARGS: [&str; 5] = [
    // What the API answered.
    "status",
    "error_type",
    "retry_after",
    // Which sending, and when.
    "attempt",
    "elapsed",
];
pub(crate) const GO_ON_ARGS: [&str; 2] = ["turn", "elapsed"];
pub(crate) const TELL_ARGS: [&str; 3] = ["reason", "detail", "text"];
/// `replay`: the answers so far (see the kit's `_workshop_call`); `text`: the ticket's words.
pub(crate) const LOOP_ARGS: [&str; 2] = ["replay", "text"];
/// The stand-in modules the runner has, by the name a learner's file imports.
pub(crate) const KITS: [&str; 1] = ["anthropic"];

impl Hooks {
    /// Every hook with its place's name and the arguments that place offers.
    pub fn all(&self) -> impl Iterator<Item = (&'static str, &Hook, &'static [&'static str])> {
        [
            ("build", &self.build, &BUILD_ARGS[..]),
            ("decide", &self.decide, &DECIDE_ARGS[..]),
            ("answer", &self.answer, &ANSWER_ARGS[..]),
            ("api_error", &self.api_error, &API_ERROR_ARGS[..]),
            ("go_on", &self.go_on, &GO_ON_ARGS[..]),
            ("tell", &self.tell, &TELL_ARGS[..]),
            ("loop", &self.host_loop, &LOOP_ARGS[..]),
        ]
        .into_iter()
        .filter_map(|(name, hook, args)| hook.as_ref().map(|h| (name, h, args)))
    }
}

/// How the harness runs tool calls.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarnessData {
    /// Attempts in all, the first one included.
    #[serde(default = "one")]
    pub max_attempts: u32,
    /// Attempts a subagent makes at its one task (the first, and local retries).
    #[serde(default = "default_subagent_attempts")]
    pub subagent_attempts: u32,
    // The manifest's earlier form, before `[hooks]`: read only to be refused with the hooks to
    // write instead (`validate`).
    #[serde(default)]
    build: Option<toml::Value>,
    #[serde(default)]
    pass_verify: Option<toml::Value>,
    #[serde(default)]
    decide: Option<toml::Value>,
    #[serde(default)]
    give: Option<toml::Value>,
    #[serde(default)]
    answers: Option<toml::Value>,
}

impl Default for HarnessData {
    fn default() -> HarnessData {
        HarnessData {
            max_attempts: 1,
            subagent_attempts: default_subagent_attempts(),
            build: None,
            pass_verify: None,
            decide: None,
            give: None,
            answers: None,
        }
    }
}

impl HarnessData {
    /// The keys of the earlier form the manifest still has, in the order they are listed here.
    pub(super) fn earlier_keys(&self) -> Vec<&'static str> {
        let keys = [
            ("build", &self.build),
            ("decide", &self.decide),
            ("give", &self.give),
            ("answers", &self.answers),
            ("pass_verify", &self.pass_verify),
        ];
        keys.into_iter().filter(|(_, value)| value.is_some()).map(|(key, _)| key).collect()
    }

    /// The hooks the earlier form meant, as the `[hooks]` tables to write instead.
    pub(super) fn hooks_meant(&self) -> Vec<String> {
        let shown = |value: &toml::Value| value.to_string();
        let mut tables = Vec::new();
        if let Some(function) = &self.build {
            let verify = self.pass_verify.as_ref().and_then(toml::Value::as_bool).unwrap_or(false);
            let args = if verify {
                r#"["category", "message", "verify"]"#
            } else {
                r#"["category", "message"]"#
            };
            tables.push(format!(
                "[hooks.build] with function = {} and args = {args}",
                shown(function)
            ));
        }
        if let Some(function) = &self.decide {
            let give = self.give.as_ref().map_or_else(|| r#""error""#.to_string(), shown);
            let answers = self.answers.as_ref().map_or_else(|| r#""truthy""#.to_string(), shown);
            tables.push(format!(
                "[hooks.decide] with function = {}, args = [{give}] and answers = {answers}",
                shown(function)
            ));
        }
        tables
    }
}

fn one() -> u32 {
    1
}

fn default_subagent_attempts() -> u32 {
    2
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Answers {
    /// `"truthy"`: a yes retries, a no stops.
    Truthy(String),
    /// Each answer the function may give, and what the harness does on it.
    Table(BTreeMap<String, Action>),
}

/// What the harness does after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Try the same call again, while attempts remain.
    Retry,
    /// Run the read the error names first; repeat the call only if it found nothing.
    Verify,
    /// Stop and hand the result to the model.
    Report,
    /// Stop: the call is settled.
    Done,
}
