//! A lesson as data: `lessons/<id>/lesson.toml`, its starter files and its reference solution.
//! The runner knows no lesson: everything a lesson is (its learner functions, which of them run
//! at which point of a run, its tools, tickets, checks, hints and texts) is read from here and
//! validated. Its world's data is checked by the world the lesson names (`crate::world`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use crate::error::Error;
use crate::expect::{Expect, Expectations};
use crate::world::python::{PythonWorld, Refused};
pub(crate) use crate::world::Tool;
use crate::world::{Place, Problem, TicketKeys};

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
    pub tools: Vec<Tool>,
    /// The world's own data, checked and loaded by the world (`setting`).
    #[serde(default = "empty_table")]
    pub world: toml::Value,
    /// Sample tool messages the checks pass to the learner's functions, by name (`$name`).
    #[serde(default)]
    pub samples: BTreeMap<String, Sample>,
    pub tickets: Vec<Ticket>,
    /// Words in requests that replies depend on only by their kind (`crate::kinds`).
    #[serde(default)]
    pub own_words: Vec<crate::kinds::Words>,
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

/// The runtimes a ticket can run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    Harness,
    Sdk,
}

impl Runtime {
    pub const ALL: [Runtime; 2] = [Runtime::Harness, Runtime::Sdk];

    pub fn name(self) -> &'static str {
        match self {
            Runtime::Harness => "harness",
            Runtime::Sdk => "sdk",
        }
    }

    pub fn parse(text: &str) -> Option<Runtime> {
        Runtime::ALL.into_iter().find(|r| r.name() == text)
    }
}

/// What the agent sends the model, per runtime.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentData {
    pub model: String,
    pub max_tokens: u32,
    pub harness_system: String,
    pub sdk_system: String,
    /// The in-process MCP server's name in the sdk runtime.
    #[serde(default = "default_server")]
    pub server: String,
    /// Model turns at most in one run.
    #[serde(default = "default_max_turns")]
    pub max_turns: usize,
}

fn default_server() -> String {
    "support".into()
}

fn default_max_turns() -> usize {
    6
}

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

impl Hooks {
    /// Every hook with its place's name and the arguments that place offers.
    pub fn all(&self) -> impl Iterator<Item = (&'static str, &Hook, &'static [&'static str])> {
        [
            ("build", &self.build, &BUILD_ARGS[..]),
            ("decide", &self.decide, &DECIDE_ARGS[..]),
            ("answer", &self.answer, &ANSWER_ARGS[..]),
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
    // The manifest's earlier form, before `[hooks]`: read and turned into hooks at load.
    #[serde(default)]
    build: Option<String>,
    #[serde(default)]
    pass_verify: bool,
    #[serde(default)]
    decide: Option<String>,
    #[serde(default)]
    give: Option<String>,
    #[serde(default)]
    answers: Option<Answers>,
}

impl Default for HarnessData {
    fn default() -> HarnessData {
        HarnessData {
            max_attempts: 1,
            subagent_attempts: default_subagent_attempts(),
            build: None,
            pass_verify: false,
            decide: None,
            give: None,
            answers: None,
        }
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

/// What one count must be: a number (`1`), a comparison (`">=1"`, `"<3"`, `"!=2"`), a yes or
/// no (`failed = true`), or a word (`ends = "reply"`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Cond {
    Bool(bool),
    Number(i64),
    Text(String),
}

impl Cond {
    /// A comparison written as text: `">=1"` is `(">=", 1)`.
    fn comparison(text: &str) -> Option<(&str, i64)> {
        let text = text.trim();
        let op = [">=", "<=", "!=", ">", "<", "="].into_iter().find(|op| text.starts_with(op))?;
        Some((op, text[op.len()..].trim().parse().ok()?))
    }

    /// Whether a count holds this condition; a count the run does not have holds none.
    pub fn holds(&self, value: Option<&Value>) -> bool {
        let Some(value) = value else { return false };
        match self {
            Cond::Bool(b) => value.as_bool() == Some(*b),
            Cond::Number(n) => value.as_i64() == Some(*n),
            Cond::Text(text) => match (Cond::comparison(text), value.as_i64()) {
                (Some((op, n)), Some(v)) => match op {
                    ">=" => v >= n,
                    "<=" => v <= n,
                    "!=" => v != n,
                    ">" => v > n,
                    "<" => v < n,
                    _ => v == n,
                },
                _ => value.as_str() == Some(text.as_str()),
            },
        }
    }

    /// Why this condition cannot apply to the count `key`, if it cannot.
    fn problem(&self, key: &str) -> Option<String> {
        match (key, self) {
            ("failed", Cond::Bool(_)) => None,
            ("failed", _) => Some("failed is true or false".into()),
            ("ends", Cond::Text(word)) if crate::events::ENDINGS.contains(&word.as_str()) => None,
            ("ends", _) => Some(format!("ends is one of {}", crate::events::ENDINGS.join(", "))),
            (_, Cond::Number(n)) if *n >= 0 => None,
            (_, Cond::Text(text)) if Cond::comparison(text).is_some() => None,
            _ => Some(format!("{key} is a count: give a number such as 1, or a comparison such as \">=1\"")),
        }
    }
}

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

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Predict {
    #[serde(default)]
    pub ask: String,
    /// What the learner knows before guessing, by runtime.
    #[serde(default)]
    pub context: BTreeMap<String, String>,
}

/// The question before a replay must not give its answer away.
fn no_count(text: &str, problems: &mut Problems) {
    let lower = text.to_lowercase();
    let counts = ["once", "twice", "three", "two", "four", "times"];
    if text.chars().any(|c| c.is_ascii_digit()) || counts.iter().any(|w| lower.contains(w)) {
        problems.say(text, "a [predict] text names a count, which gives the answer away: describe, do not count");
    }
}

/// A lesson id is a folder name: no separators, no `..`, nothing hidden.
pub(crate) fn validate_id(id: &str) -> Result<(), Error> {
    let bad = id.is_empty()
        || id.starts_with('.')
        || id.contains(['/', '\\'])
        || id.contains("..")
        || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bad {
        return Err(Error::usage(format!(
            "'{id}' is not a lesson id: ids are plain names, the folders under lessons/, with no path in them. Run ./workshop list to see them."
        )));
    }
    Ok(())
}

/// The ids of the lessons under `root/lessons`, sorted.
pub(crate) fn known_ids(root: &Path) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(root.join("lessons"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("lesson.toml").is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    ids.sort();
    ids
}

/// Every lesson of the root, loaded, in course order (by number).
pub(crate) fn all_in_order(root: &Path) -> Result<Vec<Lesson>, Error> {
    let mut lessons: Vec<Lesson> =
        known_ids(root).iter().map(|id| Lesson::load_listed(root, id)).collect::<Result<_, _>>()?;
    lessons.sort_by_key(|l| l.number);
    Ok(lessons)
}

/// Letters, digits, `-` and `_`, starting with a letter or digit.
fn plain_word(text: &str) -> bool {
    text.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A file name with no folder in it, not hidden, not `..`.
fn plain_file_name(text: &str) -> bool {
    !text.is_empty() && !text.starts_with('.') && !text.contains(['/', '\\']) && text != ".."
}

/// The line of the first occurrence of `needle` in `text`, 1-based.
fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.find(needle).map(|at| text[..at].lines().count().max(1) + usize::from(text[..at].ends_with('\n')))
}

/// Problems found while loading, each to be placed at a line of the manifest.
#[derive(Default)]
struct Problems {
    found: Vec<Problem>,
}

impl Problems {
    fn say(&mut self, near: impl Into<String>, why: impl Into<String>) {
        self.found.push(Problem::new(near, why));
    }

    fn placed(self, text: &str) -> Vec<String> {
        self.found
            .into_iter()
            .map(|p| {
                let at = line_of(text, &p.near).map(|l| format!("line {l}: ")).unwrap_or_default();
                format!("{at}{}", p.why)
            })
            .collect()
    }
}

impl Lesson {
    /// Load and validate `lessons/<id>/lesson.toml`.
    pub fn load(root: &Path, id: &str) -> Result<Lesson, Error> {
        Lesson::load_in(root, id, true)
    }

    /// A lesson to list, its world not started: its place is nowhere, so nothing of it runs.
    /// Its world's checks wait for a command that runs it.
    pub(crate) fn load_listed(root: &Path, id: &str) -> Result<Lesson, Error> {
        Lesson::load_in(root, id, false)
    }

    fn load_in(root: &Path, id: &str, world: bool) -> Result<Lesson, Error> {
        validate_id(id)?;
        let dir = root.join("lessons").join(id);
        let path = dir.join("lesson.toml");
        if !path.is_file() {
            let known = known_ids(root);
            let list = if known.is_empty() { "none".to_string() } else { known.join(", ") };
            return Err(Error::usage(format!("there is no lesson '{id}'. Lessons here: {list}.")));
        }
        let text = crate::files::read_data_text(&path, crate::files::DATA_CAP)
            .map_err(|e| Error::corrupt(&path, format!("cannot be read: {e}")))?;
        Lesson::from_text(&text, &path, &dir, Some(id), world.then_some(root))
    }

    /// Load a manifest from any path (lesson authors' fixtures too), validated.
    pub fn load_file(path: &Path, dir: &Path, id: Option<&str>) -> Result<Lesson, Error> {
        let text = crate::files::read_data_text(path, crate::files::DATA_CAP)
            .map_err(|e| Error::corrupt(path, format!("cannot be read: {e}")))?;
        // A lesson lives in <root>/lessons/<id>/, its world in <root>/worlds/<name>/.
        let root = dir.parent().and_then(Path::parent).unwrap_or(dir);
        Lesson::from_text(&text, path, dir, id, Some(root))
    }

    /// A manifest's text, validated, its world found under `<root>/worlds/` and loaded.
    pub(crate) fn from_text(
        text: &str,
        path: &Path,
        dir: &Path,
        id: Option<&str>,
        root: Option<&Path>,
    ) -> Result<Lesson, Error> {
        let mut lesson: Lesson = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| format!(" (line {})", text[..s.start.min(text.len())].lines().count().max(1)))
                .unwrap_or_default();
            Error::corrupt(
                path,
                format!(
                    "is not a valid lesson manifest{at}: {}. Fix it, or restore it with git checkout.",
                    e.message().trim()
                ),
            )
        })?;
        lesson.dir = dir.to_path_buf();
        if let Some(id) = id {
            if lesson.id != id {
                return Err(Error::corrupt(
                    path,
                    format!("says its id is '{}', but it lives in lessons/{id}", lesson.id),
                ));
            }
        }
        let mut problems = Problems::default();
        lesson.check_names_and_paths(&mut problems);
        lesson.adopt_old_harness(&mut problems);
        lesson.check_hooks(&mut problems);
        lesson.check_tools_and_tickets(&mut problems);
        lesson.check_checks(&mut problems);
        let ids: Vec<&str> = lesson.tickets.iter().map(|t| t.id.as_str()).collect();
        for words in &lesson.own_words {
            words.problems(&ids).into_iter().for_each(|why| problems.say(format!("id = \"{}\"", words.id), why));
        }
        let Some(root) = root else {
            // Listed only: what needs the world waits for a command that starts it.
            let problems = problems.placed(text);
            if !problems.is_empty() {
                return Err(Error::corrupt(path, problems.join("\n  ")));
            }
            return Ok(lesson);
        };
        if problems.found.is_empty() {
            lesson.start_world(&mut problems, root, text, path);
        }
        let problems = problems.placed(text);
        if !problems.is_empty() {
            return Err(Error::corrupt(path, problems.join("\n  ")));
        }
        Ok(lesson)
    }

    /// The lesson once its world has loaded and checked the lesson's data: for a caller that
    /// wants those problems now, not at the world's first use.
    pub(crate) fn opened(self) -> Result<Lesson, Error> {
        self.world()?;
        Ok(self)
    }

    /// The lesson's world, waited for: `None` when it has none to run (listed only, or no Python).
    fn world(&self) -> Result<Option<&PythonWorld>, Error> {
        let Some(slot) = &self.world_slot else { return Ok(None) };
        match slot.opened.get_or_init(|| self.finish_opening(slot)) {
            Ok(world) => Ok(world.as_deref()),
            Err((path, why)) => Err(Error::Corrupt { path: path.clone(), why: why.clone() }),
        }
    }

    /// The lesson's world, loaded (nowhere when it could not be: `world_error` says why).
    pub(crate) fn place(&self) -> &dyn Place {
        match self.world() {
            Ok(Some(world)) => world,
            _ => &NOWHERE,
        }
    }

    /// What keeps the lesson's world from answering, if anything: data it refused, or an
    /// author's error in it met while running. The command reports it instead of anything it
    /// would have said of the learner's code.
    pub(crate) fn world_error(&self) -> Option<Error> {
        match self.world() {
            Err(e) => Some(e),
            Ok(Some(world)) => world.broken().map(|why| world.error(why)),
            Ok(None) => None,
        }
    }

    /// Names a shell or a path could misread: ids are plain words, the learner's file a plain
    /// name, the solution a path inside the lesson's folder, functions Python identifiers.
    fn check_names_and_paths(&self, problems: &mut Problems) {
        if !plain_file_name(&self.file) {
            problems.say(
                format!("file = \"{}\"", self.file),
                format!(
                    "file '{}' must be a plain file name (no folders, no ..): it is created in work/{}/",
                    self.file, self.id
                ),
            );
        }
        if !inside_folder(&self.solution) {
            problems.say(
                format!("solution = \"{}\"", self.solution),
                format!("solution '{}' must be a path inside the lesson's folder (no leading /, no ..)", self.solution),
            );
        } else if !resolves_inside(&self.dir, &self.solution) {
            problems.say(
                format!("solution = \"{}\"", self.solution),
                format!(
                    "solution '{}' is a link (or lies under one) that leads out of the lesson's folder: put the reference solution itself in lessons/{}/",
                    self.solution, self.id
                ),
            );
        }
        for mistake in &self.mistakes {
            let at = format!("label = \"{}\"", mistake.label);
            let taken = ["starter", "yours", "auto", "solution", self.solution_label.as_str()];
            if !plain_word(&mistake.label) || taken.contains(&mistake.label.as_str()) {
                problems.say(
                    &at,
                    format!(
                        "mistake label '{}' must be a plain word (letters, digits, - and _) other than {}",
                        mistake.label,
                        taken.join(", ")
                    ),
                );
            }
            if self.mistakes.iter().filter(|m| m.label == mistake.label).count() > 1 {
                problems.say(&at, format!("mistake '{}' is declared twice", mistake.label));
            }
            if !inside_folder(&mistake.file) {
                problems.say(
                    format!("file = \"{}\"", mistake.file),
                    format!(
                        "mistake {}'s file '{}' must be a path inside the lesson's folder",
                        mistake.label, mistake.file
                    ),
                );
            } else if !resolves_inside(&self.dir, &mistake.file) {
                problems.say(
                    format!("file = \"{}\"", mistake.file),
                    format!(
                        "mistake {}'s file '{}' is a link (or lies under one) that leads out of the lesson's folder: put the file itself in lessons/{}/",
                        mistake.label, mistake.file, self.id
                    ),
                );
            }
        }
        for f in &self.functions {
            let identifier = f.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !identifier {
                problems.say(format!("\"{f}\""), format!("function '{f}' is not a Python name"));
            }
        }
        let ids = self.checks.iter().map(|c| ("check", &c.id)).chain(self.tickets.iter().map(|t| ("ticket", &t.id)));
        for (what, id) in ids {
            if !plain_word(id) {
                problems.say(
                    format!("id = \"{id}\""),
                    format!("{what} id '{id}' may hold only letters, digits, - and _ (graders and shell completion key on it)"),
                );
            }
        }
    }

    /// The manifest's earlier `[harness]` form (`build`, `decide`, `give`, `answers`,
    /// `pass_verify`) read as the hooks it means.
    fn adopt_old_harness(&mut self, problems: &mut Problems) {
        let h = &mut self.harness;
        if h.build.is_none() && h.decide.is_none() && h.give.is_none() && h.answers.is_none() && !h.pass_verify {
            return;
        }
        if self.hooks.build.is_some() || self.hooks.decide.is_some() {
            problems.say(
                "[harness]",
                "[harness] names build or decide, and [hooks] does too: keep [hooks.build] and [hooks.decide] and remove build, decide, give, answers and pass_verify from [harness]",
            );
            return;
        }
        if let Some(function) = h.build.take() {
            let mut args = vec!["category".to_string(), "message".to_string()];
            if h.pass_verify {
                args.push("verify".into());
            }
            self.hooks.build = Some(Hook { function, args, answers: None, kinds: BTreeMap::new() });
        }
        if let Some(function) = h.decide.take() {
            let give = h.give.take().unwrap_or_else(|| "error".into());
            if give != "error" && give != "result" {
                problems.say("give", format!("harness.give is '{give}': give \"error\" or \"result\""));
            }
            self.hooks.decide =
                Some(Hook { function, args: vec![give], answers: h.answers.take(), kinds: BTreeMap::new() });
        }
    }

    fn check_hooks(&self, problems: &mut Problems) {
        let fields: Vec<&str> = self.failure.iter().flat_map(|f| &f.fields).map(String::as_str).collect();
        for field in &fields {
            if BUILD_ARGS.contains(field) {
                problems.say(
                    "[failure]",
                    format!("[failure] fields names '{field}', which the build hook is given anyway"),
                );
            }
        }
        for (place, hook, offered) in self.hooks.all() {
            let offered: Vec<&str> =
                offered.iter().copied().chain(fields.iter().copied().filter(|_| place == "build")).collect();
            let at = format!("[hooks.{place}]");
            if !self.functions.contains(&hook.function) {
                problems.say(
                    format!("\"{}\"", hook.function),
                    format!(
                        "the {place} hook calls '{}', which is not among the learner's functions {:?}",
                        hook.function, self.functions
                    ),
                );
            }
            for arg in &hook.args {
                if !offered.contains(&arg.as_str()) {
                    problems.say(
                        &at,
                        format!(
                            "the {place} hook is given '{arg}', which that point of a run cannot give: choose from {}",
                            offered.join(", ")
                        ),
                    );
                }
            }
            if hook.answers.is_some() != (place == "decide") {
                if place == "decide" {
                    problems.say(&at, "the decide hook needs `answers`: \"truthy\" or a table of answers");
                } else {
                    problems.say(&at, format!("`answers` belongs to the decide hook, not to {place}"));
                }
            }
            if !hook.kinds.is_empty() && place != "answer" {
                problems.say(&at, format!("`kinds` belongs to the answer hook, not to {place}"));
            }
        }
        if let Some(Answers::Truthy(word)) = self.hooks.decide.as_ref().and_then(|h| h.answers.as_ref()) {
            if word != "truthy" {
                problems.say(
                    "answers",
                    format!("the decide hook's answers is '{word}': give \"truthy\" or a table of answers"),
                );
            }
        }
        let shape = self.failure.as_ref();
        if self.hooks.build.is_some() && shape.is_none_or(|f| f.flag.is_none() && f.error.is_none()) {
            problems.say(
                "[hooks.build]",
                "the learner's code builds failures, but no [failure] table says how they look: add [failure] with `flag` (the key set to true on a failure) and/or `error` (the key holding the error object), and `category`, `retryable`, `message`, `verify` for the keys inside it that the cards show (see lessons/README.md)",
            );
        }
        if self.hooks.decide.is_some() && self.hooks.build.is_none() {
            problems
                .say("[hooks.decide]", "the decide hook judges failures the build hook made: add [hooks.build] too");
        }
        if !(1..=10).contains(&self.harness.max_attempts) {
            problems
                .say("max_attempts", format!("harness.max_attempts is {}: give 1 to 10", self.harness.max_attempts));
        }
    }

    fn check_tools_and_tickets(&self, problems: &mut Problems) {
        let tool_names: Vec<&str> = self.tools.iter().map(|t| t.name.as_str()).collect();
        for tool in &self.tools {
            if let Some(runs) = &tool.runs {
                if !tool_names.contains(&runs.as_str()) {
                    problems
                        .say(format!("runs = \"{runs}\""), format!("tool {} runs an unknown tool '{runs}'", tool.name));
                }
            }
        }
        for ticket in &self.tickets {
            let at = format!("id = \"{}\"", ticket.id);
            let probed = ticket.probes().iter().map(|p| &p.tool);
            for tool in ticket.tools.iter().chain(probed) {
                if !tool_names.contains(&tool.as_str()) {
                    problems.say(&at, format!("ticket {} names an unknown tool '{tool}'", ticket.id));
                }
            }
            if ticket.probes().is_empty() {
                problems
                    .say(&at, format!("ticket {} has an empty probe: give one call, or a list of calls", ticket.id));
            }
            for runtime in &ticket.runtimes {
                if Runtime::parse(runtime).is_none() {
                    problems.say(&at, format!("ticket {} names an unknown runtime '{runtime}'", ticket.id));
                }
            }
            if let Notes::ByCode(by_code) = &ticket.notes {
                let codes: Vec<&str> = by_code.keys().map(String::as_str).collect();
                problems.say(
                    &at,
                    format!(
                        "ticket {}: notes are keyed by code ({}), but a note now says when it applies by what the run did, so that any code that behaves like the fix gets the fix's note: write notes = [{{ when = {{ attempts = 2, reads = \">=1\" }}, says = \"...\" }}, ..., {{ says = \"for any other run\" }}] (the keys are in lessons/README.md)",
                        ticket.id,
                        codes.join(", ")
                    ),
                );
            }
            if let Some(predict) = &ticket.predict {
                if predict.code != "starter" && predict.code != self.solution_label {
                    problems.say(
                        &at,
                        format!(
                            "ticket {}'s question is about the code '{}': ask about starter or {}",
                            ticket.id, predict.code, self.solution_label
                        ),
                    );
                }
                if !(2..=9).contains(&predict.choices.len()) {
                    problems.say(
                        &at,
                        format!("ticket {}'s question has {} choices: give 2 to 9", ticket.id, predict.choices.len()),
                    );
                }
                for (runtime, text) in &predict.context {
                    if Runtime::parse(runtime).is_none() {
                        problems.say(
                            &at,
                            format!("ticket {}'s question has context for an unknown runtime '{runtime}'", ticket.id),
                        );
                    }
                    no_count(text, problems);
                }
            }
        }
        for text in self.predict.context.values() {
            no_count(text, problems);
        }
    }

    /// Every `$name` in a case is a sample, or a field the world draws for the samples (an id
    /// every sample message of the run names, say).
    fn check_sample_refs(&self, problems: &mut Problems, world: &PythonWorld) {
        let drawn = world.drawn();
        for check in &self.checks {
            let at = format!("id = \"{}\"", check.id);
            // Every value the checks resolve samples in (`checks::resolved`): the cases' arguments
            // and expectations, a ticket check's expectations and the guidance's `when`, each
            // expectation visited by the same walk that resolves it.
            let values = std::cell::RefCell::new(Vec::new());
            let collect = |e: &Expect| {
                e.map_values(&|v| {
                    values.borrow_mut().push(v.clone());
                    v.clone()
                });
            };
            for case in &check.cases {
                values.borrow_mut().extend(case.args.iter().cloned());
                case.expect.iter().for_each(collect);
            }
            check.expect.iter().for_each(collect);
            check.guidance.iter().flat_map(|g| &g.when).for_each(collect);
            let mut names = sample_refs(&values.into_inner());
            names.sort();
            names.dedup();
            for name in names {
                if !self.samples.contains_key(&name) && !drawn.contains(&name) {
                    let also = if drawn.is_empty() {
                        String::new()
                    } else {
                        format!(", or a drawn field: ${}", drawn.join(", $"))
                    };
                    problems.say(
                        &at,
                        format!("check {} uses an unknown sample '${name}': name one of [samples]{also}", check.id),
                    );
                }
            }
        }
    }

    /// The counts each note and question names are counts a run has, with values they can have.
    fn check_outcomes(&self, problems: &mut Problems, world: &PythonWorld) {
        for ticket in &self.tickets {
            let at = format!("id = \"{}\"", ticket.id);
            let mut known = crate::events::Counts::keys();
            known.extend(world.counted(&ticket.id));
            let notes = ticket.notes.list().iter().map(|n| ("a note", &n.when));
            let choices = ticket.predict.iter().flat_map(|p| &p.choices).map(|c| ("a choice of its question", &c.when));
            for (what, when) in notes.chain(choices) {
                for (key, cond) in when {
                    let why = if known.contains(key) {
                        cond.problem(key)
                    } else {
                        Some(format!("'{key}' is not something a run counts: choose from {}", known.join(", ")))
                    };
                    if let Some(why) = why {
                        problems.say(&at, format!("ticket {}: {what} asks for {key}: {why}", ticket.id));
                    }
                }
            }
            let list = ticket.notes.list();
            if let Some(i) = list.iter().position(|n| n.when.is_empty()).filter(|i| i + 1 < list.len()) {
                problems.say(
                    &at,
                    format!(
                        "ticket {}: note {} applies to every run, so the notes after it never show: put it last",
                        ticket.id,
                        i + 1
                    ),
                );
            }
        }
    }

    fn check_checks(&self, problems: &mut Problems) {
        let mut seen = std::collections::HashSet::new();
        for check in &self.checks {
            let at = format!("id = \"{}\"", check.id);
            if !seen.insert(&check.id) {
                problems.say(&at, format!("check {} is declared twice", check.id));
            }
            if check.hints.is_empty() {
                problems.say(&at, format!("check {} has no hints", check.id));
            }
            match (&check.call, &check.ticket) {
                (Some(function), None) => self.check_call_check(check, function, &at, problems),
                (None, Some(ticket)) => {
                    if self.ticket(ticket).is_none() {
                        problems.say(&at, format!("check {} runs an unknown ticket '{ticket}'", check.id));
                    }
                    if check.expect.is_empty() {
                        problems.say(&at, format!("check {} expects nothing of its run", check.id));
                    }
                }
                _ => problems.say(&at, format!("check {} must have either `call` (with cases) or `ticket`", check.id)),
            }
            for g in &check.guidance {
                if g.when.is_empty() == g.raises.is_none() {
                    problems.say(
                        &at,
                        format!("check {}: guidance '{}' needs either `when` or `raises`", check.id, g.mistake),
                    );
                }
            }
            let malformed = check
                .cases
                .iter()
                .flat_map(|c| c.expect.malformed())
                .chain(check.expect.malformed())
                .chain(check.guidance.iter().flat_map(|g| g.when.malformed()));
            for why in malformed {
                problems.say(&at, format!("check {}: {why}", check.id));
            }
        }
    }

    fn check_call_check(&self, check: &CheckSpec, function: &str, at: &str, problems: &mut Problems) {
        if !self.functions.iter().any(|f| f == function) {
            problems.say(at, format!("check {} calls '{function}', which is not a learner function", check.id));
        }
        if check.cases.is_empty() {
            problems.say(at, format!("check {} calls {function} but has no cases", check.id));
        }
        for case in &check.cases {
            if case.expect.is_empty() {
                problems.say(at, format!("check {} has a case with nothing expected", check.id));
            }
        }
    }

    /// Start the world the lesson names (`<root>/worlds/<name>/world.py`) in its own process,
    /// in the background: it loads while the command goes on (and the learner's Python starts),
    /// and is waited for at its first use.
    fn start_world(&mut self, problems: &mut Problems, root: &Path, text: &str, path: &Path) {
        let worlds = root.join("worlds");
        let Some(name) = self.setting.clone() else {
            problems.say(
                "title",
                format!(
                    "the manifest names no world: add setting = \"<name>\" near the top (worlds here: {})",
                    world_names(&worlds)
                ),
            );
            return;
        };
        let file = worlds.join(&name).join("world.py");
        if !plain_word(&name) || !file.is_file() {
            problems.say(
                "setting",
                format!(
                    "setting '{name}' is not a world here: there is no worlds/{name}/world.py (worlds here: {})",
                    world_names(&worlds)
                ),
            );
            return;
        }
        let shown = file.strip_prefix(root).unwrap_or(&file).display().to_string();
        let (data, tools) = (self.world.clone(), self.tools.clone());
        let tickets: Vec<(String, toml::Table)> =
            self.tickets.iter().map(|t| (t.id.clone(), t.world.clone())).collect();
        let opening = file.clone();
        let open = move || {
            let keys: Vec<TicketKeys<'_>> = tickets.iter().map(|(id, keys)| TicketKeys { id, keys }).collect();
            PythonWorld::open(&opening, &shown, &data, &tools, &keys)
        };
        let pending = match std::thread::Builder::new().name("world".into()).spawn(open.clone()) {
            Ok(handle) => Pending::Thread(handle),
            Err(_) => Pending::Now(Box::new(open)),
        };
        self.world_slot = Some(Arc::new(WorldSlot {
            pending: std::sync::Mutex::new(Some(pending)),
            opened: std::sync::OnceLock::new(),
            text: text.to_string(),
            path: path.to_path_buf(),
            file,
            name,
        }));
    }

    /// Wait for the world, then check what of the lesson only it can tell: its tools' behaviours,
    /// the samples' messages and fields, the counts notes name.
    fn finish_opening(&self, slot: &WorldSlot) -> Opened {
        let pending = slot.pending.lock().ok().and_then(|mut p| p.take());
        let opened = match pending {
            Some(Pending::Thread(handle)) => {
                handle.join().unwrap_or_else(|_| Err(Refused::Broken("its loading stopped unexpectedly".into())))
            }
            Some(Pending::Now(open)) => open(),
            None => Err(Refused::Broken("it was waited for twice".into())),
        };
        let manifest = |problems: Problems| {
            let placed = problems.placed(&slot.text);
            (slot.path.display().to_string(), placed.join("\n  "))
        };
        let world = match opened {
            Ok(world) => world,
            Err(Refused::Problems(found)) => return Err(manifest(Problems { found })),
            Err(Refused::Broken(why)) => return Err((slot.file.display().to_string(), why)),
            // With no Python nothing can run: the learner's bridge says so in its own words, and
            // an autograder still gets its report.
            Err(Refused::NoPython) => return Ok(None),
        };
        let mut problems = Problems::default();
        let name = &slot.name;
        for tool in &self.tools {
            if !world.behaviours().contains(&tool.does) {
                problems.say(
                    format!("does = \"{}\"", tool.does),
                    format!(
                        "tool {} does '{}', which the world {name} cannot do: {}",
                        tool.name,
                        tool.does,
                        world.behaviours().join(", ")
                    ),
                );
            }
        }
        for (sample_name, sample) in &self.samples {
            if world.message(&sample.message).is_none() {
                problems.say(
                    format!("{sample_name} = {{"),
                    format!("sample {sample_name} uses an unknown message '{}'", sample.message),
                );
            }
        }
        if problems.found.is_empty() {
            self.check_sample_refs(&mut problems, &world);
            self.check_outcomes(&mut problems, &world);
        }
        if problems.found.is_empty() {
            Ok(Some(Arc::new(world)))
        } else {
            Err(manifest(problems))
        }
    }

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
                    false => format!("{name}={}", counts.iter().map(usize::to_string).collect::<Vec<_>>().join(",")),
                }
            })
            .collect()
    }

    /// The named mistake with this label.
    pub fn mistake(&self, label: &str) -> Option<&Mistake> {
        self.mistakes.iter().find(|m| m.label == label)
    }

    pub fn solution_path(&self) -> PathBuf {
        self.dir.join(&self.solution)
    }

    pub fn starter_dir(&self, root: &Path) -> PathBuf {
        root.join("starter").join(&self.id)
    }

    pub fn work_dir(&self, root: &Path) -> PathBuf {
        root.join("work").join(&self.id)
    }

    pub fn recordings_dir(&self, root: &Path) -> PathBuf {
        root.join("recordings").join(&self.id)
    }

    pub fn starter_file(&self, root: &Path) -> PathBuf {
        self.starter_dir(root).join(&self.file)
    }

    pub fn work_file(&self, root: &Path) -> PathBuf {
        self.work_dir(root).join(&self.file)
    }
}

/// The world of a lesson that has none loaded: no messages, nothing helps, nothing to say.
#[derive(Debug)]
struct Nowhere;

static NOWHERE: Nowhere = Nowhere;

impl Place for Nowhere {
    fn start(&self, _ticket: &str) -> Box<dyn crate::world::World + '_> {
        Box::new(Nowhere)
    }
    fn message(&self, _key: &str) -> Option<&str> {
        None
    }
    fn retry_helps(&self, _category: &str) -> bool {
        false
    }
    fn draw_fields(&self, _draw: &mut dyn FnMut(u64) -> u64) -> Vec<(String, String)> {
        Vec::new()
    }
    fn summary(&self, _output: &Value) -> Option<String> {
        None
    }
}

impl crate::world::World for Nowhere {
    fn call(
        &mut self,
        tool: &str,
        _input: &Value,
        fail: &mut crate::world::Fail<'_>,
    ) -> Result<Value, crate::world::Halt> {
        fail(&crate::world::Failure {
            category: "validation".into(),
            message: format!("There is no tool named {tool}: this lesson has no world."),
            verify: None,
            fields: Default::default(),
        })
    }
    fn found(&self, _read: &Value) -> bool {
        false
    }
    fn effects(&self) -> crate::world::Effects {
        crate::world::Effects::default()
    }
    fn report(&self, _seen: &crate::world::Seen, _attempts: usize, _input: &Value) -> Option<Value> {
        None
    }
}

/// A world's process being started: on a thread of its own, or (when no thread could be made)
/// at its first use.
enum Pending {
    Thread(std::thread::JoinHandle<Result<PythonWorld, Refused>>),
    Now(Box<dyn FnOnce() -> Result<PythonWorld, Refused> + Send>),
}

/// A world once waited for: loaded (`None`: nothing to run it with), or why not, as a path and
/// a reason.
type Opened = Result<Option<Arc<PythonWorld>>, (String, String)>;

/// A lesson's world: being started, then loaded (or why not).
pub(crate) struct WorldSlot {
    pending: std::sync::Mutex<Option<Pending>>,
    opened: std::sync::OnceLock<Opened>,
    /// The manifest's text and path, to place the world's problems at their lines.
    text: String,
    path: PathBuf,
    /// The world's file, and its name.
    file: PathBuf,
    name: String,
}

impl std::fmt::Debug for WorldSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the world {}", self.name)
    }
}

/// The worlds under a root's `worlds/` folder, for messages: `harbour, shop`, or `none`.
fn world_names(worlds: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(worlds)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().join("world.py").is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// Whether a manifest's path stays inside the lesson's folder: not empty, no leading `/`, no `..`.
fn inside_folder(path: &str) -> bool {
    !path.is_empty() && Path::new(path).components().all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// Whether `path` in the lesson's folder `dir`, its links followed, is still in that folder. A
/// path that is not there resolves to nothing and passes: that it is missing is said elsewhere.
fn resolves_inside(dir: &Path, path: &str) -> bool {
    match (dir.canonicalize(), dir.join(path).canonicalize()) {
        (Ok(folder), Ok(file)) => file.starts_with(folder),
        _ => true,
    }
}

/// The `$name` sample references in a value.
pub(crate) fn sample_refs(values: &[Value]) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::Cond;
    use serde_json::json;

    #[test]
    fn a_condition_holds_of_a_number_a_comparison_a_yes_or_no_and_a_word() {
        let holds = |cond: Cond, value: serde_json::Value| cond.holds(Some(&value));
        assert!(holds(Cond::Number(2), json!(2)));
        assert!(!holds(Cond::Number(2), json!(1)));
        for (text, yes, no) in [(">=1", 1, 0), ("<3", 2, 3), ("!=2", 1, 2), (">0", 5, 0), ("<=1", 1, 2), ("=4", 4, 3)] {
            assert!(holds(Cond::Text(text.into()), json!(yes)), "{text} of {yes}");
            assert!(!holds(Cond::Text(text.into()), json!(no)), "{text} of {no}");
        }
        assert!(holds(Cond::Bool(true), json!(true)));
        assert!(!holds(Cond::Bool(true), json!(1)), "a yes is not a number");
        assert!(holds(Cond::Text("reply".into()), json!("reply")));
        assert!(!holds(Cond::Text("reply".into()), json!("no_recording")));
        // A count the run does not have holds nothing, not even a "not".
        assert!(!Cond::Text("!=1".into()).holds(None));
    }

    #[test]
    fn a_condition_that_cannot_apply_to_its_count_says_why() {
        assert_eq!(Cond::Number(1).problem("reads"), None);
        assert_eq!(Cond::Text(">= 2".into()).problem("retries"), None);
        assert!(Cond::Text("many".into()).problem("retries").is_some());
        assert!(Cond::Number(-1).problem("attempts").is_some());
        assert!(Cond::Number(1).problem("failed").is_some());
        assert!(Cond::Text("later".into()).problem("ends").is_some());
        assert_eq!(Cond::Text("api_error".into()).problem("ends"), None);
    }
}
