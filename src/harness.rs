//! The harness: the code around the model that runs each tool call, asks the learner's decision
//! function about a failure, and acts on its answer: retry (at most until the lesson's attempt
//! limit, with a seeded, jittered backoff), verify (run the read the error names before repeating
//! a side effect), or stop. Which functions it calls, what it gives them and how it reads their
//! answers are the lesson's data. The clock is simulated: the wait is reported, not slept, so a
//! replay is the same every time and `check` never waits.

use std::time::Duration;

use serde_json::Value;

use crate::bridge::{Call, Outcome};
use crate::lesson::{Action, Answers, Give, HarnessData};
use crate::lumen::{Failure, World};

/// The first backoff before jitter; each later one doubles.
const BASE_BACKOFF_MS: u64 = 200;
/// Anything that can run the learner's functions: the Python bridge, or a fake in unit tests.
pub trait Code {
    fn call(&mut self, function: &str, args: &[Value]) -> Call;
}

impl Code for crate::bridge::Bridge {
    fn call(&mut self, function: &str, args: &[Value]) -> Call {
        crate::bridge::Bridge::call(self, function, args)
    }
}

/// A learner's function did not give an answer (it raised, hung, exited or returned non-JSON).
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    pub function: String,
    pub args: Vec<Value>,
    pub call: Call,
}

/// Call a learner function, turning anything but a return into a `Fault`.
pub fn call_value(code: &mut dyn Code, function: &str, args: Vec<Value>) -> (Result<Value, Box<Fault>>, String) {
    let call = code.call(function, &args);
    let output = call.shown_output();
    match &call.outcome {
        Outcome::Returned(value) => (Ok(value.clone()), output),
        _ => (Err(Box::new(Fault { function: function.into(), args, call })), output),
    }
}

/// One execution of the tool.
#[derive(Clone, Debug, PartialEq)]
pub struct Attempt {
    pub number: u32,
    pub result: Value,
    pub failed: bool,
    /// What the decision function answered, when it was asked.
    pub retry: Option<Value>,
    /// What the harness did on that answer.
    pub action: Option<Action>,
    /// The read that settled an uncertain failure, when the harness ran one.
    pub read: Option<Box<ToolRun>>,
    /// The wait before the next attempt, when there is one.
    pub wait: Option<Duration>,
    /// What the learner's code printed during this attempt.
    pub output: String,
    /// The category the tool gave `fail`: the truth, whatever the learner's code made of it.
    pub cause: Option<String>,
}

/// A tool call taken through the harness.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolRun {
    pub tool: String,
    pub input: Value,
    pub attempts: Vec<Attempt>,
    /// The learner's code failed part way; the attempts before it are kept.
    pub fault: Option<Box<Fault>>,
    /// A read found that the call had gone through after all: this is what the model is given.
    pub settled: Option<Value>,
}

impl ToolRun {
    /// The result handed to the model: the last attempt's.
    pub fn result(&self) -> Option<&Value> {
        self.settled.as_ref().or_else(|| self.attempts.last().map(|a| &a.result))
    }

    pub fn is_error(&self) -> bool {
        self.settled.is_none() && self.attempts.last().is_some_and(|a| a.failed)
    }

    /// The reads the harness ran to settle failures.
    pub fn reads(&self) -> usize {
        self.attempts.iter().filter(|a| a.read.is_some()).count()
    }
}

/// The harness's rule: a result failed when it has `isError: true` or an `error` key.
pub fn is_failure(result: &Value) -> bool {
    result.get("isError") == Some(&Value::Bool(true)) || result.get("error").is_some()
}

/// Python's truthiness of a JSON value, as the harness's `if decide(...)` reads it.
pub fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// A seeded jittered backoff: SplitMix64, so waits repeat exactly for the same seed.
#[derive(Clone, Debug)]
pub struct Backoff {
    state: u64,
}

impl Backoff {
    pub fn seeded(seed: &str) -> Backoff {
        // FNV-1a of the seed text.
        let state =
            seed.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
        Backoff { state }
    }

    pub fn from_seed(state: u64) -> Backoff {
        Backoff { state }
    }

    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        (self.next_unit() * n as f64) as u64 % n.max(1)
    }

    fn next_unit(&mut self) -> f64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The wait after failed attempt `n` (1-based): base × 2^(n-1), jittered by ±50 %.
    pub fn wait_after(&mut self, n: u32) -> Duration {
        let base = BASE_BACKOFF_MS << n.saturating_sub(1).min(8);
        let jitter = 0.5 + self.next_unit();
        Duration::from_millis((base as f64 * jitter).round() as u64)
    }
}

/// How the harness uses the learner's code, from the lesson.
#[derive(Clone, Copy, Debug)]
pub struct Policy<'l> {
    pub data: &'l HarnessData,
}

impl Policy<'_> {
    /// What the harness does on an answer of the decision function.
    pub fn action(&self, answer: &Value) -> Action {
        match &self.data.answers {
            Answers::Truthy(_) if truthy(answer) => Action::Retry,
            Answers::Truthy(_) => Action::Report,
            Answers::Table(table) => answer.as_str().and_then(|a| table.get(a)).copied().unwrap_or(Action::Report),
        }
    }

    /// Whether an answer could ask for more than another attempt.
    fn can_verify(&self) -> bool {
        matches!(&self.data.answers, Answers::Table(t) if t.values().any(|a| *a == Action::Verify))
    }

    /// Build a failure with the learner's code.
    pub fn build(&self, code: &mut dyn Code, failure: &Failure) -> (Result<Value, Box<Fault>>, String) {
        let mut args = vec![Value::from(failure.category.as_str()), Value::from(failure.message.as_str())];
        if self.data.pass_verify {
            if let Some(verify) = &failure.verify {
                args.push(verify.clone());
            }
        }
        call_value(code, &self.data.build, args)
    }

    /// What the decision function is given about a failed result.
    pub fn given(&self, result: &Value) -> Value {
        match self.data.give {
            Give::Error => result.get("error").cloned().unwrap_or(Value::Null),
            Give::Result => result.clone(),
        }
    }
}

/// How far the harness may go with one call.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The full harness: decide, retry, verify.
    Full(u32),
    /// Called once, with no decision: how the SDK runtime calls a tool.
    Once,
}

/// Run one tool call through the harness with the learner's functions.
pub fn run_tool(
    world: &mut World<'_>,
    policy: Policy<'_>,
    code: &mut dyn Code,
    backoff: &mut Backoff,
    tool: &str,
    input: &Value,
) -> ToolRun {
    run_with(world, policy, code, Some(backoff), Mode::Full(policy.data.max_attempts), tool, input, true)
}

/// The same, with a tighter bound: a subagent retries locally, a few times at most.
pub fn run_limited(
    world: &mut World<'_>,
    policy: Policy<'_>,
    code: &mut dyn Code,
    backoff: &mut Backoff,
    tool: &str,
    input: &Value,
    attempts: u32,
) -> ToolRun {
    run_with(world, policy, code, Some(backoff), Mode::Full(attempts), tool, input, true)
}

/// Run a tool once, with no decision and no retry: how the SDK runtime calls it.
pub fn run_once(world: &mut World<'_>, policy: Policy<'_>, code: &mut dyn Code, tool: &str, input: &Value) -> ToolRun {
    run_with(world, policy, code, None, Mode::Once, tool, input, false)
}

#[allow(clippy::too_many_arguments)]
fn run_with(
    world: &mut World<'_>,
    policy: Policy<'_>,
    code: &mut dyn Code,
    mut backoff: Option<&mut Backoff>,
    mode: Mode,
    tool: &str,
    input: &Value,
    may_verify: bool,
) -> ToolRun {
    let limit = match mode {
        Mode::Full(limit) => limit.max(1),
        Mode::Once => 1,
    };
    let mut run = ToolRun { tool: tool.into(), input: input.clone(), attempts: Vec::new(), fault: None, settled: None };
    let mut number = 1;
    loop {
        let mut printed = String::new();
        let mut cause = None;
        let result = world.call(tool, input, &mut |failure: &Failure| {
            cause = Some(failure.category.clone());
            let (value, output) = policy.build(code, failure);
            printed.push_str(&output);
            value
        });
        let result = match result {
            Ok(result) => result,
            Err(fault) => {
                run.fault = Some(fault);
                return run;
            }
        };
        let failed = is_failure(&result);
        let mut attempt = Attempt {
            number,
            result,
            failed,
            retry: None,
            action: None,
            read: None,
            wait: None,
            output: printed,
            cause,
        };
        let remaining = number < limit;
        // Ask only when the answer can be acted on: while an attempt remains, or when the answer
        // may ask for a read, which needs no attempt.
        let ask = failed && mode != Mode::Once && (remaining || (may_verify && policy.can_verify()));
        if !ask {
            run.attempts.push(attempt);
            return run;
        }
        let (decision, output) = call_value(code, &policy.data.decide, vec![policy.given(&attempt.result)]);
        attempt.output.push_str(&output);
        let decision = match decision {
            Ok(decision) => decision,
            Err(fault) => {
                run.attempts.push(attempt);
                run.fault = Some(fault);
                return run;
            }
        };
        let mut action = policy.action(&decision);
        attempt.retry = Some(decision);
        if action == Action::Verify {
            // The read the learner's failure names; without one there is nothing to verify with.
            let named = attempt.result.get("error").and_then(|e| e.get("verify")).cloned();
            let read_tool = named.as_ref().and_then(|v| v.get("tool")).and_then(Value::as_str).map(String::from);
            let read_input = named.as_ref().and_then(|v| v.get("input")).cloned().unwrap_or(Value::Null);
            action = Action::Report;
            if let (true, Some(read_tool)) = (may_verify, read_tool) {
                let limit = policy.data.max_attempts;
                let read = run_with(
                    world,
                    policy,
                    code,
                    backoff.as_deref_mut(),
                    Mode::Full(limit),
                    &read_tool,
                    &read_input,
                    false,
                );
                let fault = read.fault.clone();
                // A read that answered without `found: true` found nothing (an empty answer).
                let found =
                    (!read.is_error()).then(|| Some(read.result().and_then(|r| r.get("found")).is_some_and(truthy)));
                let result = read.result().cloned();
                attempt.read = Some(Box::new(read));
                if let Some(fault) = fault {
                    attempt.action = Some(Action::Verify);
                    run.attempts.push(attempt);
                    run.fault = Some(fault);
                    return run;
                }
                match found {
                    Some(Some(true)) => {
                        run.settled = result;
                        action = Action::Done;
                    }
                    Some(Some(false)) => action = Action::Retry,
                    _ => {}
                }
            }
            attempt.action = Some(Action::Verify);
        } else {
            attempt.action = Some(action);
        }
        if action == Action::Retry && remaining {
            if let Some(backoff) = backoff.as_deref_mut() {
                attempt.wait = Some(backoff.wait_after(number));
            }
            run.attempts.push(attempt);
            number += 1;
            continue;
        }
        run.attempts.push(attempt);
        return run;
    }
}
