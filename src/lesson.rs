//! A lesson as data: `lessons/<id>/lesson.toml`, its starter files and its reference solution.
//! The runner knows no lesson: everything a lesson is (its learner functions, how the harness
//! uses them, its tools, tickets, checks, hints and texts) is read from here and validated.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::error::Error;
use crate::expect::Expect;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    pub id: String,
    pub number: u32,
    pub course: String,
    pub title: String,
    pub summary: String,
    /// The world the lesson is set in; its behaviour is a module of the runner.
    #[serde(default = "default_world_kind")]
    pub setting: String,
    /// The learner's file name inside `work/<id>/`.
    pub file: String,
    pub functions: Vec<String>,
    /// The reference solution, relative to the lesson folder.
    pub solution: String,
    /// What `watch --code` calls the reference solution.
    #[serde(default = "default_solution_label")]
    pub solution_label: String,
    pub agent: AgentData,
    pub harness: HarnessData,
    pub tools: Vec<Tool>,
    pub world: WorldData,
    /// Sample tool messages the checks pass to the learner's functions, by name (`$name`).
    #[serde(default)]
    pub samples: BTreeMap<String, Sample>,
    pub tickets: Vec<Ticket>,
    pub checks: Vec<CheckSpec>,
    /// The player's question before a starter replay.
    #[serde(default)]
    pub predict: Predict,
    #[serde(skip)]
    pub dir: PathBuf,
}

fn default_world_kind() -> String {
    "lumen".into()
}

fn default_solution_label() -> String {
    "structured".into()
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

/// How the harness uses the learner's functions.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarnessData {
    /// The function the tools build every failure with: `build(category, message)`, or
    /// `build(category, message, verify)` when the lesson passes the read that settles it.
    pub build: String,
    #[serde(default)]
    pub pass_verify: bool,
    /// The function asked after a failure.
    pub decide: String,
    /// What it is given: the inner `error` object, or the whole `result`.
    pub give: Give,
    /// How its answer is read: Python truthiness (yes = retry), or a table from each answer to
    /// what the harness then does.
    pub answers: Answers,
    /// Attempts in all, the first one included.
    pub max_attempts: u32,
    /// Attempts a subagent makes at its one task (the first, and local retries).
    #[serde(default = "default_subagent_attempts")]
    pub subagent_attempts: u32,
}

fn default_subagent_attempts() -> u32 {
    2
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Give {
    Error,
    Result,
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

/// A tool the model can call: what the model reads (data) and the world behaviour behind it.
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

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorldData {
    pub today: String,
    pub refund_window_days: i64,
    /// The categories a retry can fix: the truth a replay's cards are coloured by.
    pub retry_helps: Vec<String>,
    pub messages: BTreeMap<String, String>,
    /// How the payment service can fail, by name; tickets schedule them.
    #[serde(default)]
    pub faults: BTreeMap<String, Fault>,
    pub customers: Vec<Customer>,
    pub orders: Vec<Order>,
}

/// One way the payment service fails a refund.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// The category the tool reports.
    pub category: String,
    /// The message key the tool reports with.
    pub message: String,
    /// Whether the money moved although the tool could not confirm it.
    #[serde(default)]
    pub paid: bool,
    /// The read that settles what happened, named in the failure.
    #[serde(default)]
    pub verify: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Customer {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Order {
    pub id: String,
    pub customer: String,
    pub item: String,
    pub purchased: String,
    pub total: String,
    /// Where the parcel is, for order lookups.
    #[serde(default = "default_status")]
    pub status: String,
    /// Refunded before the ticket began.
    #[serde(default)]
    pub refunded: bool,
}

fn default_status() -> String {
    "delivered".into()
}

/// A tool message used as a sample input: the world's template, filled in. `order_id` is drawn
/// from the run's seed unless given, so a file that hard-codes the sentences does not pass.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    pub message: String,
    #[serde(default)]
    pub fields: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ticket {
    pub id: String,
    pub customer: String,
    pub text: String,
    /// A word for the ticket list, such as the category of its first failure.
    pub category: String,
    /// The payment service's faults on successive refund attempts (names from `world.faults`).
    #[serde(default)]
    pub payment_faults: Vec<String>,
    /// Order lookups that time out this many times before they answer, by order id.
    #[serde(default)]
    pub lookup_timeouts: BTreeMap<String, u32>,
    /// Reads of the refund ledger that time out before it answers.
    #[serde(default)]
    pub read_timeouts: u32,
    /// The tools the model is offered; empty means the lesson's default ones.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The runtimes the ticket runs in; empty means all of them.
    #[serde(default)]
    pub runtimes: Vec<String>,
    /// The tool call a ticket check makes through the harness.
    pub probe: Probe,
    /// A short note under the verdict, by code (`starter`, or the solution's label): the harm or
    /// the gain that run shows.
    #[serde(default)]
    pub notes: BTreeMap<String, String>,
}

impl Ticket {
    pub fn runs_in(&self, runtime: &str) -> bool {
        self.runtimes.is_empty() || self.runtimes.iter().any(|r| r == runtime)
    }
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
    pub expect: Vec<Expect>,
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
    pub expect: Vec<Expect>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Guidance {
    /// A short name for the mistake.
    pub mistake: String,
    /// How to recognise it: expectations that all hold on what came back.
    #[serde(default)]
    pub when: Vec<Expect>,
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

/// A lesson id is a folder name: no separators, no `..`, nothing hidden.
pub fn validate_id(id: &str) -> Result<(), Error> {
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
pub fn known_ids(root: &Path) -> Vec<String> {
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

/// The line of the first occurrence of `needle` in `text`, 1-based.
fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.find(needle).map(|at| text[..at].lines().count().max(1) + usize::from(text[..at].ends_with('\n')))
}

impl Lesson {
    /// Load and validate `lessons/<id>/lesson.toml`.
    pub fn load(root: &Path, id: &str) -> Result<Lesson, Error> {
        validate_id(id)?;
        let dir = root.join("lessons").join(id);
        let path = dir.join("lesson.toml");
        if !path.is_file() {
            let known = known_ids(root);
            let list = if known.is_empty() { "none".to_string() } else { known.join(", ") };
            return Err(Error::usage(format!("there is no lesson '{id}'. Lessons here: {list}.")));
        }
        Lesson::load_file(&path, &dir, Some(id))
    }

    /// Load a manifest from any path (lesson authors' fixtures too), validated.
    pub fn load_file(path: &Path, dir: &Path, id: Option<&str>) -> Result<Lesson, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::corrupt(path, format!("cannot be read: {e}")))?;
        let mut lesson: Lesson = toml::from_str(&text).map_err(|e| {
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
        let problems = lesson.problems(&text);
        if !problems.is_empty() {
            return Err(Error::corrupt(path, problems.join("\n  ")));
        }
        Ok(lesson)
    }

    /// Everything in the manifest that disagrees with itself, each with its line.
    fn problems(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut say = |needle: &str, why: String| {
            let at = line_of(text, needle).map(|l| format!("line {l}: ")).unwrap_or_default();
            out.push(format!("{at}{why}"));
        };
        if crate::lumen::parse_date(&self.world.today).is_none() {
            say("today", format!("world.today '{}' is not a YYYY-MM-DD date", self.world.today));
        }
        if self.setting != crate::lumen::NAME {
            say(
                "setting",
                format!("setting '{}' is not a world this runner has: {}", self.setting, crate::lumen::NAME),
            );
        }
        for f in [&self.harness.build, &self.harness.decide] {
            if !self.functions.contains(f) {
                say(
                    &format!("\"{f}\""),
                    format!("the harness uses '{f}', which is not among the learner's functions {:?}", self.functions),
                );
            }
        }
        if let Answers::Truthy(word) = &self.harness.answers {
            if word != "truthy" {
                say("answers", format!("harness.answers is '{word}': give \"truthy\" or a table of answers"));
            }
        }
        if !(1..=10).contains(&self.harness.max_attempts) {
            say("max_attempts", format!("harness.max_attempts is {}: give 1 to 10", self.harness.max_attempts));
        }
        let tool_names: Vec<&str> = self.tools.iter().map(|t| t.name.as_str()).collect();
        for tool in &self.tools {
            if !crate::lumen::BEHAVIOURS.contains(&tool.does.as_str()) {
                say(
                    &format!("does = \"{}\"", tool.does),
                    format!(
                        "tool {} does '{}', which the world cannot do: {}",
                        tool.name,
                        tool.does,
                        crate::lumen::BEHAVIOURS.join(", ")
                    ),
                );
            }
            if let Some(runs) = &tool.runs {
                if !tool_names.contains(&runs.as_str()) {
                    say(&format!("runs = \"{runs}\""), format!("tool {} runs an unknown tool '{runs}'", tool.name));
                }
            }
        }
        for (name, fault) in &self.world.faults {
            if let Some(read) = &fault.verify {
                if !tool_names.contains(&read.as_str()) {
                    say(&format!("verify = \"{read}\""), format!("fault {name} names an unknown read tool '{read}'"));
                }
            }
            if !self.world.messages.contains_key(&fault.message) {
                say(
                    &format!("[world.faults.{name}]"),
                    format!("fault {name} uses an unknown message '{}'", fault.message),
                );
            }
        }
        for order in &self.world.orders {
            if crate::lumen::parse_date(&order.purchased).is_none() {
                say(
                    &format!("id = \"{}\"", order.id),
                    format!("order {} has a purchase date '{}' that is not YYYY-MM-DD", order.id, order.purchased),
                );
            }
            if !self.world.customers.iter().any(|c| c.id == order.customer) {
                say(
                    &format!("id = \"{}\"", order.id),
                    format!("order {} belongs to an unknown customer '{}'", order.id, order.customer),
                );
            }
        }
        for (name, sample) in &self.samples {
            if !self.world.messages.contains_key(&sample.message) {
                say(&format!("{name} = {{"), format!("sample {name} uses an unknown message '{}'", sample.message));
            }
        }
        for ticket in &self.tickets {
            let at = format!("id = \"{}\"", ticket.id);
            if !self.world.customers.iter().any(|c| c.id == ticket.customer) {
                say(&at, format!("ticket {} names an unknown customer '{}'", ticket.id, ticket.customer));
            }
            for fault in &ticket.payment_faults {
                if !self.world.faults.contains_key(fault) {
                    say(&at, format!("ticket {} schedules an unknown fault '{fault}'", ticket.id));
                }
            }
            for tool in ticket.tools.iter().chain(std::iter::once(&ticket.probe.tool)) {
                if !tool_names.contains(&tool.as_str()) {
                    say(&at, format!("ticket {} names an unknown tool '{tool}'", ticket.id));
                }
            }
            for runtime in &ticket.runtimes {
                if crate::agent::Runtime::parse(runtime).is_none() {
                    say(&at, format!("ticket {} names an unknown runtime '{runtime}'", ticket.id));
                }
            }
            for code in ticket.notes.keys() {
                if code != "starter" && *code != self.solution_label {
                    say(
                        &at,
                        format!(
                            "ticket {} has a note for '{code}': notes are for starter or {}",
                            ticket.id, self.solution_label
                        ),
                    );
                }
            }
        }
        // The question before a replay must not give its answer away.
        for text in self.predict.context.values() {
            let lower = text.to_lowercase();
            let counts = ["once", "twice", "three", "two", "four", "times"];
            if text.chars().any(|c| c.is_ascii_digit()) || counts.iter().any(|w| lower.contains(w)) {
                say(text, "a [predict] text names a count, which gives the answer away: describe, do not count".into());
            }
        }
        let mut seen = std::collections::HashSet::new();
        for check in &self.checks {
            let at = format!("id = \"{}\"", check.id);
            if !seen.insert(&check.id) {
                say(&at, format!("check {} is declared twice", check.id));
            }
            if check.hints.is_empty() {
                say(&at, format!("check {} has no hints", check.id));
            }
            match (&check.call, &check.ticket) {
                (Some(function), None) => {
                    if !self.functions.contains(function) {
                        say(&at, format!("check {} calls '{function}', which is not a learner function", check.id));
                    }
                    if check.cases.is_empty() {
                        say(&at, format!("check {} calls {function} but has no cases", check.id));
                    }
                    for case in &check.cases {
                        for name in sample_refs(&case.args) {
                            if !self.samples.contains_key(&name) {
                                say(&at, format!("check {} uses an unknown sample '${name}'", check.id));
                            }
                        }
                        if case.expect.is_empty() {
                            say(&at, format!("check {} has a case with nothing expected", check.id));
                        }
                    }
                }
                (None, Some(ticket)) => {
                    if self.ticket(ticket).is_none() {
                        say(&at, format!("check {} runs an unknown ticket '{ticket}'", check.id));
                    }
                    if check.expect.is_empty() {
                        say(&at, format!("check {} expects nothing of its run", check.id));
                    }
                }
                _ => say(&at, format!("check {} must have either `call` (with cases) or `ticket`", check.id)),
            }
            for g in &check.guidance {
                if g.when.is_empty() == g.raises.is_none() {
                    say(&at, format!("check {}: guidance '{}' needs either `when` or `raises`", check.id, g.mistake));
                }
            }
            for e in check
                .cases
                .iter()
                .flat_map(|c| &c.expect)
                .chain(&check.expect)
                .chain(check.guidance.iter().flat_map(|g| &g.when))
            {
                if let Err(why) = e.validate() {
                    say(&at, format!("check {}: {why}", check.id));
                }
            }
        }
        out
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

/// The `$name` sample references in a value.
pub fn sample_refs(values: &[Value]) -> Vec<String> {
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
