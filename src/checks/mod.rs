//! Runs a lesson's checks against the learner's Python, and grades the file. A lesson declares
//! its checks (`lessons/<id>/lesson.toml`): calls of a learner function with expectations on what
//! comes back, or a ticket's probe taken through the real harness and world with expectations on
//! what the run did (the expectations themselves are `crate::lesson::expect`). They run in order; each
//! looks at one aspect, so one bug fails the checks it breaks and no others.

pub(crate) mod one_file;
pub(crate) mod sample_key;
mod samples;

pub(crate) use samples::Samples;

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::bridge::{Call, Outcome};
use crate::lesson::expect::{expected_shape, first_difference, Expect};
use crate::lesson::{CheckSpec, Lesson, Runtime, Ticket};
use crate::replay::runtime::harness::{call_value, Backoff, Code, Fault, Harness, Policy, ToolRun};
use crate::replay::runtime::{answer_message, Answered};
use crate::text::pyrepr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Pass,
    Fail,
    Error,
    /// A check of a file that ran, left out: a function it needs hung before, so it was not
    /// called again. No verdict on the code either way.
    NotRun,
}

/// A likely mistake recognised in what the code returned.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Advice {
    pub mistake: String,
    pub says: String,
}

/// The verdict of one check.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct CheckResult {
    pub id: String,
    pub name: String,
    pub status: Status,
    /// Empty on a pass; otherwise what went wrong, in one line.
    pub message: String,
    /// What the learner's code printed during the call that decided the check.
    pub output: String,
    /// The deciding call, in Python syntax.
    pub call: Option<String>,
    pub expected: Option<Value>,
    pub got: Option<Value>,
    /// The mistake the shape of `got` suggests, when one of the lesson's patterns matches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guidance: Option<Advice>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<u32>,
    #[serde(skip)]
    pub hints: Vec<String>,
    /// With `Status::NotRun` (or `Error`), why the check did not run, without the `not run: `
    /// of `message`.
    #[serde(skip)]
    pub not_run: Option<String>,
    /// The deciding call hung (never returned): that call, short (`message('partial', …)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hung: Option<String>,
}

impl CheckResult {
    /// The result of the check `spec`, with its name, task and hints, nothing found yet.
    fn new(spec: &CheckSpec, status: Status, message: String) -> CheckResult {
        CheckResult {
            id: spec.id.clone(),
            name: spec.name.clone(),
            status,
            message,
            output: String::new(),
            call: None,
            expected: None,
            got: None,
            guidance: None,
            task_id: spec.task,
            hints: spec.hints.clone(),
            not_run: None,
            hung: None,
        }
    }
}

/// How a failing check went wrong, before it is named.
struct Miss {
    message: String,
    call: String,
    expected: Option<Value>,
    got: Option<Value>,
    output: String,
    guidance: Option<Advice>,
    /// The call hung: it, short.
    hung: Option<String>,
}

type CaseResult = Result<(), Box<Miss>>;

/// A learner's code, with calls that hung or killed the process remembered, so a loop costs its
/// deadline once, not once per check; and a function that hung twice is not called again, so a
/// loop costs about two deadlines however many checks need it.
struct Remembering<'c> {
    code: &'c mut dyn Code,
    broken: HashMap<String, Call>,
    /// Per function: how many of its calls hung, and the first that did, in Python syntax.
    hangs: HashMap<String, (usize, String)>,
    /// Why a call was refused during the current check, if one was (said after `not run: `).
    refused: Option<String>,
}

/// Hangs of one function after which it is called no more in the run.
const HANGS_BEFORE_GIVING_UP: usize = 2;

impl Code for Remembering<'_> {
    fn call(&mut self, function: &str, args: &[Value]) -> Call {
        if let Some((_, first)) =
            self.hangs.get(function).filter(|(n, _)| *n >= HANGS_BEFORE_GIVING_UP)
        {
            let function = crate::text::pyrepr::shown_name(function);
            let reason = format!(
                "{function} hung twice in this run, so it is not called again; the first call that hung was {first}"
            );
            let message = format!("not run: {reason}");
            self.refused = Some(reason);
            return Call {
                outcome: Outcome::Unavailable { message },
                output: String::new(),
                dropped: 0,
            };
        }
        let key = format!("{function}{}", Value::from(args.to_vec()));
        if let Some(call) = self.broken.get(&key) {
            return call.clone();
        }
        let call = self.code.call(function, args);
        if matches!(call.outcome, Outcome::TimedOut { .. }) {
            let first = || (0, pyrepr::short_call(function, args));
            self.hangs.entry(function.to_string()).or_insert_with(first).0 += 1;
        }
        if matches!(
            call.outcome,
            Outcome::TimedOut { .. }
                | Outcome::Exited { .. }
                | Outcome::Unavailable { .. }
                | Outcome::Garbled { .. }
        ) {
            self.broken.insert(key, call.clone());
        }
        call
    }
}

/// The seed a file's checks draw their varying inputs from: its bytes, so the same file gets the
/// same report under one key and a file edited to match one run's sentences gets new ones, XOR
/// a key its author cannot know (`sample_key`), so no nonce searched for offline picks them.
pub(crate) fn seed_for(bytes: &[u8], key: u64) -> u64 {
    crate::fnv::fnv1a(bytes) ^ key
}

/// How to grade again, in the command that works from the learner's folder.
fn again_command(lesson: &str) -> String {
    crate::output::adapt(&format!("run ./workshop check {lesson} again")).into_owned()
}

/// Run every check of the lesson against the learner's code, in order.
pub(crate) fn run_all(lesson: &Lesson, code: &mut dyn Code, seed: u64) -> Vec<CheckResult> {
    let mut code =
        Remembering { code, broken: HashMap::new(), hangs: HashMap::new(), refused: None };
    let samples = Samples::draw(lesson, seed);
    lesson
        .checks
        .iter()
        .map(|spec| {
            code.refused = None;
            let verdict = run_one(spec, lesson, &samples, &mut code);
            // A refused call makes the check not run: no verdict on the code.
            let refused = code.refused.take();
            let mut result = CheckResult::new(spec, Status::Pass, String::new());
            if let Some(why) = refused {
                result.status = Status::NotRun;
                result.message = format!("not run: {why}");
                result.not_run = Some(why);
            } else if let Err(miss) = verdict {
                result.status = Status::Fail;
                result.message = miss.message;
                result.output = miss.output;
                result.call = Some(miss.call).filter(|c| !c.is_empty());
                result.expected = miss.expected;
                result.got = miss.got;
                result.guidance = miss.guidance;
                result.hung = miss.hung;
            }
            result
        })
        .collect()
}

/// Ask the lesson's world, while it loads, what the checks of a file with this seed will ask it
/// first: the sample fields, then the first call of each ticket check's run. Each answer is ready
/// when its check comes, worked out meanwhile in the world's process.
pub(crate) fn ask_ahead(lesson: &Lesson, seed: u64) {
    Samples::draw_ahead(lesson, seed);
    for spec in &lesson.checks {
        let ticket = spec.ticket.as_deref().and_then(|id| lesson.ticket(id));
        if let Some((ticket, probe)) = ticket.and_then(|t| Some((t, t.probes().first()?))) {
            lesson.call_ahead(&ticket.id, &probe.tool, &probe.input);
        }
    }
}

fn run_one(
    spec: &CheckSpec,
    lesson: &Lesson,
    samples: &Samples,
    code: &mut dyn Code,
) -> CaseResult {
    if let Some(ticket) = spec.ticket.as_deref().and_then(|id| lesson.ticket(id)) {
        return ticket_check(spec, lesson, ticket, samples, code);
    }
    let function = spec.call.as_deref().unwrap_or_default();
    for case in &spec.cases {
        let args: Vec<Value> = case.args.iter().map(|a| samples.resolve(a)).collect();
        let (result, output) = call_value(code, function, args.clone());
        let got = result.map_err(|f| {
            let mut miss = fault_miss(&f, output.clone());
            miss.guidance = raised_advice(spec, &miss.message);
            miss
        })?;
        let expect: Vec<Expect> = case.expect.iter().map(|e| resolved(e, samples)).collect();
        if let Err(d) = first_difference(&expect, &got, &args) {
            let verdict = d.verdict();
            let message = match d.path.as_str() {
                "" => returned(function, &got, &verdict),
                _ => d.to_string(),
            };
            return Err(Box::new(Miss {
                message,
                call: pyrepr::call(function, &args),
                expected: expected_shape(&expect, &args),
                guidance: advice(spec, &got, &args, samples),
                got: Some(got),
                output,
                hung: None,
            }));
        }
    }
    Ok(())
}

/// What a call returned and what is wrong with it: a short value first, else the words first
/// and the value after, cut (the report shows it whole under `got`).
fn returned(function: &str, got: &Value, verdict: &str) -> String {
    const SHORT: usize = 48;
    let shown = pyrepr::repr(&crate::text::shorten::shorten(got));
    if shown.chars().count() <= SHORT {
        format!("{function} returned {shown}: {verdict}")
    } else {
        let cut = crate::text::shorten::shorten_text(&shown, SHORT);
        format!("{verdict}; {function} returned {cut}")
    }
}

fn resolved(e: &Expect, samples: &Samples) -> Expect {
    e.map_values(&|v| samples.resolve(v))
}

/// The lesson's advice for a call that raised, matched on what it raised.
fn raised_advice(spec: &CheckSpec, problem: &str) -> Option<Advice> {
    spec.guidance.iter().find_map(|g| {
        let raised = g.raises.as_deref()?;
        problem
            .contains(raised)
            .then(|| Advice { mistake: g.mistake.clone(), says: g.says.trim().to_string() })
    })
}

fn advice(spec: &CheckSpec, got: &Value, args: &[Value], samples: &Samples) -> Option<Advice> {
    spec.guidance.iter().filter(|g| !g.when.is_empty()).find_map(|g| {
        let when: Vec<Expect> = g.when.iter().map(|e| resolved(e, samples)).collect();
        first_difference(&when, got, args)
            .is_ok()
            .then(|| Advice { mistake: g.mistake.clone(), says: g.says.trim().to_string() })
    })
}

fn ticket_check(
    spec: &CheckSpec,
    lesson: &Lesson,
    ticket: &Ticket,
    samples: &Samples,
    code: &mut dyn Code,
) -> CaseResult {
    let mut world = lesson.setting().start(&ticket.id);
    let mut backoff = Backoff::seeded(&ticket.id);
    let policy = Policy::of(lesson);
    let probes = ticket.probes();
    let mut runs: Vec<ToolRun> = Vec::new();
    {
        let mut harness =
            Harness { world: world.as_mut(), policy, code: &mut *code, backoff: &mut backoff };
        for probe in probes {
            let run = harness.run_tool(&probe.tool, &probe.input);
            let faulted = run.fault.is_some();
            runs.push(run);
            if faulted {
                break;
            }
        }
    }
    let calls: Vec<String> =
        probes.iter().map(|p| pyrepr::keyword_call(&p.tool, &p.input)).collect();
    let call = format!("{}  # through the harness, ticket {}", calls.join("; "), ticket.id);
    let mut output: String =
        runs.iter().flat_map(|run| run.attempts.iter()).flat_map(attempt_output).collect();
    if let Some((run, fault)) = runs.iter().find_map(|r| r.fault.as_ref().map(|f| (r, f))) {
        let mut m = fault_miss(fault, output);
        let built = lesson.hooks.build.as_ref().is_some_and(|h| h.function == fault.function);
        let during = run.attempts.len() + usize::from(built);
        m.message = format!("during attempt {}: {}", during.max(1), m.message);
        return Err(m);
    }
    let mut got = summarise(&runs);
    if lesson.hooks.answer.is_some() {
        match answered_turn(lesson, ticket, policy, code, runs, samples.seed) {
            Ok((turn, printed)) => {
                output.push_str(&printed);
                merge(&mut got, turn);
            }
            Err(fault) => return Err(fault_miss(&fault, output)),
        }
    }
    merge(&mut got, Value::Object(world.effects().counts));
    let expect: Vec<Expect> = spec.expect.iter().map(|e| resolved(e, samples)).collect();
    first_difference(&expect, &got, &[]).map_err(|d| {
        Box::new(Miss {
            message: d.to_string(),
            call,
            expected: expected_shape(&expect, &[]),
            guidance: advice(spec, &got, &[], samples),
            got: Some(got.clone()),
            output,
            hung: None,
        })
    })
}

/// What the learner's code printed during an attempt, and during the read it ran.
fn attempt_output(a: &crate::replay::runtime::harness::Attempt) -> Vec<&str> {
    std::iter::once(a.output.as_str())
        .chain(a.read.iter().flat_map(|r| r.attempts.iter().map(|x| x.output.as_str())))
        .collect()
}

fn merge(got: &mut Value, more: Value) {
    if let (Value::Object(into), Value::Object(from)) = (got, more) {
        into.extend(from);
    }
}

/// The turn a ticket's probes make, answered by the lesson's answer hook and held to the API's
/// rules: the message built, and the 400 the API would give (absent when the request is valid).
fn answered_turn(
    lesson: &Lesson,
    ticket: &Ticket,
    policy: Policy<'_>,
    code: &mut dyn Code,
    runs: Vec<ToolRun>,
    seed: u64,
) -> Result<(Value, String), Box<Fault>> {
    let calls: Vec<Value> = ticket
        .probes()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let id = probe_id(ticket, i, seed);
            json!({"type": "tool_use", "id": id, "name": p.tool, "input": p.input})
        })
        .collect();
    let answered = |(i, run)| Answered::plain(probe_id(ticket, i, seed), run);
    let results: Vec<Answered> = runs.into_iter().enumerate().map(answered).collect();
    let (message, printed) = answer_message(
        lesson,
        Runtime::Harness,
        policy,
        code,
        &calls,
        &results,
        ticket.follow_up.clone(),
    )?;
    let mut messages = vec![
        json!({"role": "user", "content": ticket.text}),
        json!({"role": "assistant", "content": calls}),
    ];
    messages.extend(crate::replay::runtime::sent_as(message.clone()));
    let request = crate::replay::runtime::request(lesson, ticket, Runtime::Harness, &messages);
    let mut turn = Map::new();
    turn.insert("message".into(), message);
    if let Err(why) = crate::replay::messages::check_request(&request) {
        turn.insert("api_error".into(), Value::from(why.to_string()));
    }
    Ok((Value::Object(turn), printed))
}

/// The id of a probe's `tool_use` block, in the API's shape, drawn for the file like its
/// samples: the same for the same file, and nothing a file could know in advance.
fn probe_id(ticket: &Ticket, index: usize, seed: u64) -> String {
    crate::replay::recordings::api_id("toolu", &json!(["probe", ticket.id, index, seed]))
}

/// What the harness runs did, in the shape ticket checks look at: the one call's attempts,
/// result and answers (the first call's, for a turn of several), and every call under `calls`.
fn summarise(runs: &[ToolRun]) -> Value {
    let one = |run: &ToolRun| {
        let answers: Vec<Value> = run.attempts.iter().filter_map(|a| a.retry.clone()).collect();
        json!({
            "attempts": run.attempts.len(),
            "failed": run.is_error(),
            "result": run.result().cloned().unwrap_or(Value::Null),
            "answers": answers,
            "reads": run.reads(),
        })
    };
    let mut got = runs.first().map(one).unwrap_or_else(|| json!({}));
    if runs.len() > 1 {
        got["calls"] = Value::from(runs.iter().map(one).collect::<Vec<_>>());
    }
    got
}

fn fault_miss(fault: &Fault, output: String) -> Box<Miss> {
    let hung = matches!(fault.call.outcome, Outcome::TimedOut { stopped: false, .. })
        .then(|| pyrepr::short_call(&fault.function, &fault.args));
    let problem = fault.call.outcome.problem().unwrap_or_default();
    Box::new(Miss {
        message: match &hung {
            Some(call) => format!("{call} hung: it {problem}"),
            None => problem,
        },
        call: pyrepr::call(&fault.function, &fault.args),
        expected: None,
        got: None,
        output: if output.is_empty() { fault.call.shown_output() } else { output },
        guidance: None,
        hung,
    })
}

/// The whole grading of one file, as `check` prints it and autograders read it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Report {
    pub lesson: String,
    pub file: String,
    /// `error` only when the file could not be loaded.
    pub status: Status,
    pub message: String,
    pub checks: Vec<CheckResult>,
    pub passed: usize,
    pub total: usize,
    /// What the file printed while it loaded (at import time), before any check ran.
    #[serde(rename = "output")]
    pub load_output: String,
    /// How to grade again, as the learner asked the first time (or "save" in watch mode).
    #[serde(skip)]
    pub again: String,
}

impl Report {
    pub(crate) fn graded(lesson: &Lesson, file: String, checks: Vec<CheckResult>) -> Report {
        let passed = checks.iter().filter(|c| c.status == Status::Pass).count();
        let total = checks.len();
        let not_run = checks.iter().filter(|c| c.status == Status::NotRun).count();
        let (status, message) = if passed == total {
            (Status::Pass, format!("all {total} checks pass"))
        } else {
            let first = checks
                .iter()
                .find(|c| c.status != Status::Pass)
                .map(|c| c.id.as_str())
                .unwrap_or("");
            let unrun = if not_run > 0 { format!(", {not_run} not run") } else { String::new() };
            let hang = match checks.iter().find_map(|c| c.hung.as_deref()) {
                Some(call) => format!("; {call} hung"),
                None => String::new(),
            };
            let tally = format!("{passed} of {total} checks pass{unrun}{hang}");
            (Status::Fail, format!("{tally}; the first to fix is {first}"))
        };
        let again = again_command(&lesson.id);
        Report {
            lesson: lesson.id.clone(),
            file,
            status,
            message,
            checks,
            passed,
            total,
            load_output: String::new(),
            again,
        }
    }

    pub(crate) fn not_loaded(
        lesson: &Lesson,
        file: String,
        error: &crate::bridge::LoadError,
    ) -> Report {
        let (why, not_run) = match error.kind {
            crate::bridge::LoadKind::Garbled => {
                ("not graded: an answer did not come from the workshop's runner", None)
            }
            crate::bridge::LoadKind::UpsetTheWorld => {
                ("not graded: the file's run upset the lesson's world", None)
            }
            _ => ("not run: the file did not load", Some("the file did not load")),
        };
        let checks: Vec<CheckResult> = lesson
            .checks
            .iter()
            // Nothing of a file that did not load was checked: no hint applies.
            .map(|spec| CheckResult {
                hints: Vec::new(),
                not_run: not_run.map(String::from),
                ..CheckResult::new(spec, Status::Error, why.into())
            })
            .collect();
        let total = checks.len();
        Report {
            lesson: lesson.id.clone(),
            file,
            status: Status::Error,
            message: error.message.clone(),
            checks,
            passed: 0,
            total,
            load_output: error.output.clone(),
            again: again_command(&lesson.id),
        }
    }

    pub(crate) fn first_failure(&self) -> Option<&CheckResult> {
        self.checks.iter().find(|c| c.status == Status::Fail)
    }

    /// The checks left out because a function they need hung before.
    pub(crate) fn not_run(&self) -> usize {
        self.checks.iter().filter(|c| c.status == Status::NotRun).count()
    }
}
