//! The harness: the code around the model that runs each tool call, shapes a failure with the
//! lesson's build hook, asks its decide hook what to do next, and acts on the answer: retry (at
//! most until the lesson's attempt limit, with a seeded, jittered backoff), verify (run the read
//! the failure names before repeating a side effect), or stop. Which functions run, what they
//! are given and how their answers are read are the lesson's data. The clock is simulated: the
//! wait is reported, not slept, so a replay is the same every time and `check` never waits.

use std::time::Duration;

use serde_json::{json, Value};

use crate::bridge::{Call, Outcome};
use crate::lesson::{Action, Answers, FailureShape, HarnessData, Hook, Hooks, Lesson};
use crate::text::pyrepr::truthy;
use crate::world::{Failure, Halt, Seen, World};

/// The first backoff before jitter; each later one doubles.
const BASE_BACKOFF_MS: u64 = 200;

/// Anything that can run the learner's functions: the Python bridge, or a fake in unit tests.
pub(crate) trait Code {
    fn call(&mut self, function: &str, args: &[Value]) -> Call;
}

impl Code for crate::bridge::Bridge {
    fn call(&mut self, function: &str, args: &[Value]) -> Call {
        crate::bridge::Bridge::call(self, function, args)
    }
}

/// A learner's function did not give an answer (it raised, hung, exited or returned non-JSON).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fault {
    pub(crate) function: String,
    pub(crate) args: Vec<Value>,
    pub(crate) call: Call,
}

/// Call a learner function, turning anything but a return into a `Fault`.
pub(crate) fn call_value(
    code: &mut dyn Code,
    function: &str,
    args: Vec<Value>,
) -> (Result<Value, Box<Fault>>, String) {
    let call = code.call(function, &args);
    let output = call.shown_output();
    match &call.outcome {
        Outcome::Returned(value) => (Ok(value.clone()), output),
        _ => (Err(Box::new(Fault { function: function.into(), args, call })), output),
    }
}

/// One execution of the tool.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Attempt {
    pub(crate) number: u32,
    pub(crate) result: Value,
    pub(crate) failed: bool,
    /// What the decision function answered, when it was asked.
    pub(crate) retry: Option<Value>,
    /// What the harness did on that answer.
    pub(crate) action: Option<Action>,
    /// The read that settled an uncertain failure, when the harness ran one.
    pub(crate) read: Option<Box<ToolRun>>,
    /// The wait before the next attempt, when there is one.
    pub(crate) wait: Option<Duration>,
    /// What the learner's code printed during this attempt.
    pub(crate) output: String,
    /// The failure the world reported: the truth, whatever the learner's code made of it.
    pub(crate) cause: Option<Failure>,
    /// The world's own lines about this attempt, for its card.
    pub(crate) said: Vec<String>,
}

/// A tool call taken through the harness.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ToolRun {
    pub(crate) tool: String,
    pub(crate) input: Value,
    pub(crate) attempts: Vec<Attempt>,
    /// The learner's code failed part way; the attempts before it are kept.
    pub(crate) fault: Option<Box<Fault>>,
    /// A read found that the call had gone through after all: this is what the model is given.
    pub(crate) settled: Option<Value>,
    /// The most attempts this run could make.
    pub(crate) limit: u32,
}

impl ToolRun {
    /// The result handed to the model: the last attempt's.
    pub(crate) fn result(&self) -> Option<&Value> {
        self.settled.as_ref().or_else(|| self.attempts.last().map(|a| &a.result))
    }

    pub(crate) fn is_error(&self) -> bool {
        self.settled.is_none() && self.attempts.last().is_some_and(|a| a.failed)
    }

    /// The reads the harness ran to settle failures.
    pub(crate) fn reads(&self) -> usize {
        self.attempts.iter().filter(|a| a.read.is_some()).count()
    }
}

/// A seeded jittered backoff: SplitMix64, so waits repeat exactly for the same seed.
#[derive(Clone, Debug)]
pub(crate) struct Backoff {
    state: u64,
}

impl Backoff {
    pub(crate) fn seeded(seed: &str) -> Backoff {
        // FNV-1a of the seed text.
        let state = crate::fnv::fnv1a(seed.as_bytes());
        Backoff { state }
    }

    pub(crate) fn from_seed(state: u64) -> Backoff {
        Backoff { state }
    }

    /// A number in `0..n` (n > 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
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
    pub(crate) fn wait_after(&mut self, n: u32) -> Duration {
        let base = BASE_BACKOFF_MS << n.saturating_sub(1).min(8);
        let jitter = 0.5 + self.next_unit();
        Duration::from_millis((base as f64 * jitter).round() as u64)
    }
}

/// How the harness uses the learner's code, from the lesson.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Policy<'l> {
    pub(crate) hooks: &'l Hooks,
    shape: Option<&'l FailureShape>,
    pub(crate) data: &'l HarnessData,
}

impl<'l> Policy<'l> {
    pub(crate) fn of(lesson: &'l Lesson) -> Policy<'l> {
        Policy { hooks: &lesson.hooks, shape: lesson.failure.as_ref(), data: &lesson.harness }
    }

    /// What the harness does on an answer of the decision function.
    pub(crate) fn action(&self, answer: &Value) -> Action {
        match self.hooks.decide.as_ref().and_then(|h| h.answers.as_ref()) {
            Some(Answers::Table(table)) => {
                answer.as_str().and_then(|a| table.get(a)).copied().unwrap_or(Action::Report)
            }
            _ if truthy(answer) => Action::Retry,
            _ => Action::Report,
        }
    }

    /// The key a learner's result sets to `true` when it failed: the lesson's `[failure] flag`,
    /// else MCP's own `isError`.
    pub(crate) fn flag_key(&self) -> &str {
        self.shape.and_then(|s| s.flag.as_deref()).unwrap_or("isError")
    }

    /// Whether an answer could ask for more than another attempt.
    fn can_verify(&self) -> bool {
        matches!(
            self.hooks.decide.as_ref().and_then(|h| h.answers.as_ref()),
            Some(Answers::Table(t)) if t.values().any(|a| *a == Action::Verify)
        )
    }

    /// Shape a failure: with the learner's build hook, or as the runner's own outcome.
    pub(crate) fn build(
        &self,
        code: &mut dyn Code,
        failure: &Failure,
        tool: &str,
        input: &Value,
    ) -> (Result<Value, Box<Fault>>, String) {
        let Some(hook) = &self.hooks.build else {
            return (Ok(self.outcome_of_failure(failure)), String::new());
        };
        let mut args = Vec::new();
        for arg in &hook.args {
            match arg.as_str() {
                "category" => args.push(Value::from(failure.category.as_str())),
                "message" => args.push(Value::from(failure.message.as_str())),
                // Given only when the world names a read: the function gives it a default.
                "verify" => args.extend(failure.verify.clone()),
                "tool" => args.push(Value::from(tool)),
                "input" => args.push(input.clone()),
                // A field of the world's own, declared in `[failure] fields`.
                field => args.push(failure.fields.get(field).cloned().unwrap_or(Value::Null)),
            }
        }
        call_value(code, &hook.function, args)
    }

    /// A failure as the runner hands it to an answer hook, when no learner code shapes it.
    pub(crate) fn outcome_of_failure(&self, failure: &Failure) -> Value {
        let kind = self
            .hooks
            .answer
            .as_ref()
            .map(|h| h.kinds.get(&failure.category).cloned().unwrap_or_else(|| "failed".into()))
            .unwrap_or_else(|| failure.category.clone());
        json!({"ok": false, "kind": kind, "message": failure.message})
    }

    /// Whether a result failed, as the harness reads it: by the lesson's failure keys when the
    /// learner's code shapes failures, else by whether the world failed the call.
    pub(crate) fn is_failure(&self, result: &Value, world_failed: bool) -> bool {
        if self.hooks.build.is_none() {
            return world_failed;
        }
        let Some(shape) = self.shape else { return false };
        let flagged =
            shape.flag.as_ref().is_some_and(|k| result.get(k) == Some(&Value::Bool(true)));
        let errored = shape.error.as_ref().is_some_and(|k| result.get(k).is_some());
        flagged || errored
    }

    /// The error object of a failed result, by the lesson's keys (the result itself if none).
    pub(crate) fn error_of<'v>(&self, result: &'v Value) -> Option<&'v Value> {
        match self.shape.and_then(|s| s.error.as_ref()) {
            Some(key) => result.get(key),
            None => Some(result),
        }
    }

    /// What a failed result says, read through the lesson's keys.
    pub(crate) fn seen(&self, result: &Value) -> Seen {
        let Some(shape) = self.shape else {
            let message = result.get("message").and_then(Value::as_str).map(String::from);
            return Seen { category: None, retryable: None, message };
        };
        let error = self.error_of(result);
        let field = |key: &Option<String>| key.as_ref().and_then(|k| error.and_then(|e| e.get(k)));
        let message = field(&shape.message)
            .or_else(|| shape.message.as_ref().and_then(|k| result.get(k)))
            .and_then(Value::as_str)
            .map(String::from);
        Seen {
            category: field(&shape.category).and_then(Value::as_str).map(String::from),
            retryable: field(&shape.retryable).and_then(Value::as_bool),
            message,
        }
    }

    /// The read a failed result names (`{"tool": ..., "input": {...}}`), by the lesson's key.
    pub(crate) fn named_read(&self, result: &Value) -> Option<(String, Value)> {
        let key = self.shape?.verify.as_ref()?;
        let named = self.error_of(result)?.get(key)?;
        let tool = named.get("tool")?.as_str()?.to_string();
        Some((tool, named.get("input").cloned().unwrap_or(Value::Null)))
    }

    /// The arguments of the decide hook for a failed attempt.
    fn given(&self, hook: &Hook, attempt: &Attempt, tool: &str, input: &Value) -> Vec<Value> {
        hook.args
            .iter()
            .map(|arg| match arg.as_str() {
                "error" => self.error_of(&attempt.result).cloned().unwrap_or(Value::Null),
                "result" => attempt.result.clone(),
                "tool" => Value::from(tool),
                "input" => input.clone(),
                "attempt" => Value::from(attempt.number),
                _ => Value::Null,
            })
            .collect()
    }
}

/// How far the harness may go with one call.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The full harness: decide, retry, verify, up to this many attempts.
    Full(u32),
    /// Called once, with no decision: how the SDK runtime calls a tool.
    Once,
}

/// What one run of a tool call needs: the world, the lesson's policy, the learner's code and
/// the backoff's clock.
pub(crate) struct Harness<'r, 'l> {
    pub(crate) world: &'r mut dyn World,
    pub(crate) policy: Policy<'l>,
    pub(crate) code: &'r mut dyn Code,
    pub(crate) backoff: &'r mut Backoff,
}

impl Harness<'_, '_> {
    /// Run one tool call through the full harness.
    pub(crate) fn run_tool(&mut self, tool: &str, input: &Value) -> ToolRun {
        let limit = self.policy.data.max_attempts;
        self.run(Mode::Full(limit), tool, input, true)
    }

    /// Run a tool call as far as `mode` allows; `may_verify`: a read may settle a failure (a
    /// read is never itself verified).
    pub(crate) fn run(
        &mut self,
        mode: Mode,
        tool: &str,
        input: &Value,
        may_verify: bool,
    ) -> ToolRun {
        let limit = match mode {
            Mode::Full(limit) => limit.max(1),
            Mode::Once => 1,
        };
        let mut run = ToolRun {
            tool: tool.into(),
            input: input.clone(),
            attempts: Vec::new(),
            fault: None,
            settled: None,
            limit,
        };
        let mut number = 1;
        loop {
            let mut attempt = match self.attempt(number, tool, input) {
                Ok(attempt) => attempt,
                Err(fault) => {
                    run.fault = Some(fault);
                    return run;
                }
            };
            let remaining = number < limit;
            // Ask only when the answer can be acted on: while an attempt remains, or when the
            // answer may ask for a read, which needs no attempt.
            let may_read = may_verify && self.policy.can_verify();
            let ask = attempt.failed && mode != Mode::Once && (remaining || may_read);
            let Some(hook) = self.policy.hooks.decide.as_ref().filter(|_| ask) else {
                run.attempts.push(attempt);
                return run;
            };
            let args = self.policy.given(hook, &attempt, tool, input);
            let (decision, output) = call_value(self.code, &hook.function, args);
            attempt.output.push_str(&output);
            let decision = match decision {
                Ok(decision) => decision,
                Err(fault) => {
                    run.attempts.push(attempt);
                    run.fault = Some(fault);
                    return run;
                }
            };
            let mut action = self.policy.action(&decision);
            attempt.retry = Some(decision);
            attempt.action = Some(action);
            if action == Action::Verify {
                action = self.verify(&mut run, &mut attempt, may_verify);
                if run.fault.is_some() {
                    run.attempts.push(attempt);
                    return run;
                }
            }
            if action == Action::Retry && remaining {
                attempt.wait = Some(self.backoff.wait_after(number));
                run.attempts.push(attempt);
                number += 1;
                continue;
            }
            run.attempts.push(attempt);
            return run;
        }
    }

    /// One execution of the tool, its failure shaped by the learner's code.
    fn attempt(&mut self, number: u32, tool: &str, input: &Value) -> Result<Attempt, Box<Fault>> {
        let mut printed = String::new();
        let mut cause = None;
        let mut fault = None;
        let policy = self.policy;
        let code = &mut *self.code;
        let result = self.world.call(tool, input, &mut |failure: &Failure| {
            cause = Some(failure.clone());
            let (value, output) = policy.build(code, failure, tool, input);
            printed.push_str(&output);
            value.map_err(|f| {
                fault = Some(f);
                Halt
            })
        });
        let said = self.world.said();
        let result = match (result, fault) {
            (Ok(result), _) => result,
            (Err(Halt), Some(fault)) => return Err(fault),
            (Err(Halt), None) => Value::Null,
        };
        let failed = self.policy.is_failure(&result, cause.is_some());
        Ok(Attempt {
            number,
            result,
            failed,
            retry: None,
            action: None,
            read: None,
            wait: None,
            output: printed,
            cause,
            said,
        })
    }

    /// Run the read a failure names; what it found decides the next action: found settles the
    /// call, nothing found makes one more attempt safe, a failed read leaves it reported.
    fn verify(&mut self, run: &mut ToolRun, attempt: &mut Attempt, may_verify: bool) -> Action {
        let Some((read_tool, read_input)) =
            self.policy.named_read(&attempt.result).filter(|_| may_verify)
        else {
            return Action::Report;
        };
        let limit = self.policy.data.max_attempts;
        let read = self.run(Mode::Full(limit), &read_tool, &read_input, false);
        let fault = read.fault.clone();
        let found = (!read.is_error()).then(|| read.result().is_some_and(|r| self.world.found(r)));
        let result = read.result().cloned();
        attempt.read = Some(Box::new(read));
        if let Some(fault) = fault {
            run.fault = Some(fault);
            return Action::Report;
        }
        match found {
            Some(true) => {
                run.settled = result;
                Action::Done
            }
            Some(false) => Action::Retry,
            None => Action::Report,
        }
    }
}
