//! The harness: the code around the model that runs each tool call, asks the learner's
//! `should_retry` about a failure, and retries at most until `MAX_ATTEMPTS`, with a seeded,
//! jittered backoff between attempts. The clock is simulated: the wait is reported, not slept,
//! so a replay is the same every time and `check` never waits.

use std::time::Duration;

use serde_json::Value;

use crate::bridge::{Call, Outcome};
use crate::lumen::World;

/// Attempts in all, the first one included.
pub const MAX_ATTEMPTS: u32 = 3;
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
    /// What `should_retry` said, when it was asked.
    pub retry: Option<Value>,
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
}

impl ToolRun {
    /// The result handed to the model: the last attempt's.
    pub fn result(&self) -> Option<&Value> {
        self.attempts.last().map(|a| &a.result)
    }

    pub fn is_error(&self) -> bool {
        self.attempts.last().is_some_and(|a| a.failed)
    }
}

/// The harness's rule: a result failed when it has `isError: true` or an `error` key.
pub fn is_failure(result: &Value) -> bool {
    result.get("isError") == Some(&Value::Bool(true)) || result.get("error").is_some()
}

/// Python's truthiness of a JSON value, as `if should_retry(...)` reads it.
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

/// Run one tool call through the harness with the learner's `fail` and `should_retry`.
pub fn run_tool(
    world: &mut World<'_>,
    code: &mut dyn Code,
    backoff: &mut Backoff,
    tool: &str,
    input: &Value,
) -> ToolRun {
    run_with(world, code, Some((backoff, MAX_ATTEMPTS)), tool, input)
}

/// The same, with a tighter bound: a subagent retries at most once, locally.
pub fn run_limited(
    world: &mut World<'_>,
    code: &mut dyn Code,
    backoff: &mut Backoff,
    tool: &str,
    input: &Value,
    attempts: u32,
) -> ToolRun {
    run_with(world, code, Some((backoff, attempts)), tool, input)
}

/// Run a tool once, with no retry and no `should_retry`: how the SDK runtime calls it.
pub fn run_once(world: &mut World<'_>, code: &mut dyn Code, tool: &str, input: &Value) -> ToolRun {
    run_with(world, code, None, tool, input)
}

fn run_with(
    world: &mut World<'_>,
    code: &mut dyn Code,
    mut retry: Option<(&mut Backoff, u32)>,
    tool: &str,
    input: &Value,
) -> ToolRun {
    let limit = retry.as_ref().map_or(1, |(_, limit)| *limit);
    let mut run = ToolRun { tool: tool.into(), input: input.clone(), attempts: Vec::new(), fault: None };
    for number in 1..=limit {
        let mut printed = String::new();
        let mut cause = None;
        let result = world.call(tool, input, &mut |category: &str, message: &str| {
            cause = Some(category.to_string());
            let (value, output) = call_value(code, "fail", vec![Value::from(category), Value::from(message)]);
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
        let mut attempt = Attempt { number, result, failed, retry: None, wait: None, output: printed, cause };
        let Some((backoff, _)) = retry.as_mut() else {
            run.attempts.push(attempt);
            return run;
        };
        if !failed {
            run.attempts.push(attempt);
            return run;
        }
        let error = attempt.result.get("error").cloned().unwrap_or(Value::Null);
        let (decision, output) = call_value(code, "should_retry", vec![error]);
        attempt.output.push_str(&output);
        match decision {
            Ok(decision) => {
                let again = truthy(&decision) && number < limit;
                attempt.retry = Some(decision);
                if again {
                    attempt.wait = Some(backoff.wait_after(number));
                }
                let stop = !again;
                run.attempts.push(attempt);
                if stop {
                    return run;
                }
            }
            Err(fault) => {
                run.attempts.push(attempt);
                run.fault = Some(fault);
                return run;
            }
        }
    }
    run
}
