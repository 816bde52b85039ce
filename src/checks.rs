//! The graded checks of structured-errors. Each looks at one aspect only, so one bug fails the
//! checks it breaks and no others. They call the learner's code through `harness::Code`, and the
//! `harness-*` checks run the real tools and harness.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::bridge::{Call, Outcome};
use crate::harness::{self, call_value, Backoff, Code, Fault, ToolRun};
use crate::lesson::{Lesson, Ticket};
use crate::lumen::World;
use crate::pyrepr;

/// The checks, in the order they run. The lesson manifest gives each its name and hints.
pub const CHECK_IDS: &[&str] = &[
    "fail-flags-failure",
    "fail-names-category",
    "fail-retry-hint",
    "fail-keeps-message",
    "empty-is-not-failure",
    "retry-transient",
    "no-retry-refusals",
    "no-retry-without-flag",
    "harness-old-order",
    "harness-wrong-id",
    "harness-not-yours",
    "harness-flaky-payment",
    "harness-no-orders",
];

/// The failure categories, in the order the checks try them.
pub const FAILURE_CATEGORIES: [&str; 4] = ["transient", "validation", "permission", "business"];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Error,
}

/// The verdict of one check.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckResult {
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
    #[serde(skip)]
    pub hints: Vec<String>,
}

/// How a failing check went wrong, before it is named.
struct Miss {
    message: String,
    call: String,
    expected: Option<Value>,
    got: Option<Value>,
    output: String,
}

type Verdict = Result<(), Box<Miss>>;

/// A learner's code, with calls that hung or killed the process remembered, so a loop costs its
/// deadline once, not once per check; and a function that hung twice is not called again, so a
/// loop costs about two deadlines however many checks need it.
struct Remembering<'c> {
    code: &'c mut dyn Code,
    broken: HashMap<String, Call>,
    /// Per function: how many of its calls hung, and the first that did, in Python syntax.
    hangs: HashMap<String, (usize, String)>,
    /// Why a call was refused during the current check, if one was.
    refused: Option<String>,
}

/// Hangs of one function after which it is called no more in the run.
const HANGS_BEFORE_GIVING_UP: usize = 2;

impl Code for Remembering<'_> {
    fn call(&mut self, function: &str, args: &[Value]) -> Call {
        if let Some((_, first)) = self.hangs.get(function).filter(|(n, _)| *n >= HANGS_BEFORE_GIVING_UP) {
            let message = format!(
                "not run: {function} hung twice in this run, so it is not called again; the first call that hung was {first}"
            );
            self.refused = Some(message.clone());
            return Call { outcome: Outcome::Unavailable { message }, output: String::new(), dropped: 0 };
        }
        let key = format!("{function}{}", Value::from(args.to_vec()));
        if let Some(call) = self.broken.get(&key) {
            return call.clone();
        }
        let call = self.code.call(function, args);
        if matches!(call.outcome, Outcome::TimedOut { .. }) {
            self.hangs.entry(function.to_string()).or_insert_with(|| (0, pyrepr::call(function, args))).0 += 1;
        }
        if matches!(
            call.outcome,
            Outcome::TimedOut { .. } | Outcome::Exited { .. } | Outcome::Unavailable { .. } | Outcome::Garbled { .. }
        ) {
            self.broken.insert(key, call.clone());
        }
        call
    }
}

/// Run every check against the learner's code, in order.
pub fn run_all(lesson: &Lesson, code: &mut dyn Code) -> Vec<CheckResult> {
    let mut code = Remembering { code, broken: HashMap::new(), hangs: HashMap::new(), refused: None };
    let samples = failure_samples(lesson);
    CHECK_IDS
        .iter()
        .map(|id| {
            code.refused = None;
            let verdict = run_one(id, lesson, &samples, &mut code);
            // A refused call makes the check not run: no verdict on the code.
            let refused = code.refused.take();
            let not_run = refused.is_some();
            let verdict = match refused {
                Some(why) => Err(Box::new(Miss {
                    message: why,
                    call: String::new(),
                    expected: None,
                    got: None,
                    output: String::new(),
                })),
                None => verdict,
            };
            let text = lesson.check_text(id);
            let name = text.map(|t| t.name.clone()).unwrap_or_else(|| id.to_string());
            let hints = text.map(|t| t.hints.clone()).unwrap_or_default();
            match verdict {
                Ok(()) => CheckResult {
                    id: id.to_string(),
                    name,
                    status: Status::Pass,
                    message: String::new(),
                    output: String::new(),
                    call: None,
                    expected: None,
                    got: None,
                    hints,
                },
                Err(miss) => CheckResult {
                    id: id.to_string(),
                    name,
                    status: if not_run { Status::Error } else { Status::Fail },
                    message: miss.message,
                    output: miss.output,
                    call: (!not_run).then_some(miss.call),
                    expected: miss.expected,
                    got: miss.got,
                    hints,
                },
            }
        })
        .collect()
}

/// The message each category's tool failure carries, taken from the world itself.
pub fn failure_samples(lesson: &Lesson) -> Vec<(String, String)> {
    let mut samples = Vec::new();
    for ticket in &lesson.tickets {
        let mut world = World::for_ticket(lesson, ticket);
        let mut seen = None;
        let _ = world.call(&ticket.probe.tool, &ticket.probe.input, &mut |category: &str, message: &str| {
            seen = Some((category.to_string(), message.to_string()));
            Err::<Value, ()>(())
        });
        if let Some(sample) = seen {
            if !samples.iter().any(|(c, _): &(String, String)| *c == sample.0) {
                samples.push(sample);
            }
        }
    }
    samples
}

fn sample<'s>(samples: &'s [(String, String)], category: &str) -> &'s str {
    samples.iter().find(|(c, _)| c == category).map(|(_, m)| m.as_str()).unwrap_or("The tool could not do that.")
}

fn run_one(id: &str, lesson: &Lesson, samples: &[(String, String)], code: &mut dyn Code) -> Verdict {
    let each_failure = |code: &mut dyn Code, expect: &dyn Fn(&str, &str) -> Value| -> Verdict {
        for category in FAILURE_CATEGORIES {
            let message = sample(samples, category);
            let args = vec![Value::from(category), Value::from(message)];
            let (result, output) = call_value(code, "fail", args.clone());
            let call = pyrepr::call("fail", &args);
            let got = result.map_err(|f| fault_miss(&f, output.clone()))?;
            compare(&expect(category, message), &got, false)
                .map_err(|d| miss(d, call, &expect(category, message), got, output))?;
        }
        Ok(())
    };
    match id {
        "fail-flags-failure" => each_failure(code, &|_, _| json!({"isError": true})),
        "fail-names-category" => each_failure(code, &|c, _| json!({"error": {"errorCategory": c}})),
        "fail-retry-hint" => each_failure(code, &|c, _| json!({"error": {"isRetryable": c == "transient"}})),
        "fail-keeps-message" => each_failure(code, &|_, m| json!({"error": {"message": m}})),
        "empty-is-not-failure" => {
            let message = sample(samples, "empty");
            let args = vec![Value::from("empty"), Value::from(message)];
            let (result, output) = call_value(code, "fail", args.clone());
            let got = result.map_err(|f| fault_miss(&f, output.clone()))?;
            let expected = json!({"orders": [], "message": message});
            compare(&expected, &got, true).map_err(|d| miss(d, pyrepr::call("fail", &args), &expected, got, output))
        }
        "retry-transient" => {
            let error = error_object("transient", Some(true), sample(samples, "transient"));
            decide(code, error, true)
        }
        "no-retry-refusals" => {
            for category in &FAILURE_CATEGORIES[1..] {
                decide(code, error_object(category, Some(false), sample(samples, category)), false)?;
            }
            Ok(())
        }
        "no-retry-without-flag" => {
            decide(code, json!({"message": "Error"}), false)?;
            decide(code, error_object("business", None, sample(samples, "business")), false)
        }
        other => {
            let ticket_id = other.strip_prefix("harness-").unwrap_or(other);
            let Some(ticket) = lesson.ticket(ticket_id) else {
                return Err(Box::new(Miss {
                    message: format!("the lesson has no ticket '{ticket_id}' for this check"),
                    call: String::new(),
                    expected: None,
                    got: None,
                    output: String::new(),
                }));
            };
            harness_check(lesson, ticket, code)
        }
    }
}

fn error_object(category: &str, retryable: Option<bool>, message: &str) -> Value {
    let mut error = Map::new();
    error.insert("errorCategory".into(), category.into());
    if let Some(r) = retryable {
        error.insert("isRetryable".into(), r.into());
    }
    error.insert("message".into(), message.into());
    Value::Object(error)
}

/// `should_retry(error)` must say yes (truthy) or no (falsy), as the harness reads it.
fn decide(code: &mut dyn Code, error: Value, yes: bool) -> Verdict {
    let args = vec![error];
    let (result, output) = call_value(code, "should_retry", args.clone());
    let call = pyrepr::call("should_retry", &args);
    let got = result.map_err(|f| fault_miss(&f, output.clone()))?;
    if harness::truthy(&got) == yes {
        return Ok(());
    }
    let word = if yes { "yes (True)" } else { "no (False)" };
    Err(Box::new(Miss {
        message: format!("should_retry returned {}: expected {word}", pyrepr::repr(&crate::shorten::shorten(&got))),
        call,
        expected: Some(Value::Bool(yes)),
        got: Some(got),
        output,
    }))
}

fn harness_check(lesson: &Lesson, ticket: &Ticket, code: &mut dyn Code) -> Verdict {
    let mut world = World::for_ticket(lesson, ticket);
    let mut backoff = Backoff::seeded(&ticket.id);
    let run = harness::run_tool(&mut world, code, &mut backoff, &ticket.probe.tool, &ticket.probe.input);
    let call = format!(
        "{}  # through the harness, ticket {}",
        pyrepr::keyword_call(&ticket.probe.tool, &ticket.probe.input),
        ticket.id
    );
    let output: String = run.attempts.iter().map(|a| a.output.as_str()).collect();
    if let Some(fault) = &run.fault {
        let mut m = fault_miss(fault, output);
        m.message =
            format!("during attempt {}: {}", run.attempts.len() + usize::from(fault.function == "fail"), m.message);
        return Err(m);
    }
    let got = summarise(&run);
    let expected = match ticket.category.as_str() {
        "transient" => json!({"attempts": 2, "failed": false, "result": {"refunded": true}}),
        "empty" => json!({"attempts": 1, "failed": false, "result": {"orders": []}}),
        _ => json!({"attempts": 1}),
    };
    // What the harness did is this check's aspect; the exact shape of the empty answer (no
    // `isError: False` beside it) is `empty-is-not-failure`'s, so one bug fails one check.
    compare(&expected, &got, false).map_err(|d| miss(d, call, &expected, got, output))
}

/// What a harness run did, in the shape the harness checks compare.
fn summarise(run: &ToolRun) -> Value {
    let decisions: Vec<Value> = run.attempts.iter().filter_map(|a| a.retry.clone()).collect();
    json!({
        "attempts": run.attempts.len(),
        "failed": run.is_error(),
        "result": run.result().cloned().unwrap_or(Value::Null),
        "should_retry": decisions,
    })
}

fn fault_miss(fault: &Fault, output: String) -> Box<Miss> {
    Box::new(Miss {
        message: fault.call.outcome.problem().unwrap_or_default(),
        call: pyrepr::call(&fault.function, &fault.args),
        expected: None,
        got: None,
        output: if output.is_empty() { fault.call.shown_output() } else { output },
    })
}

fn miss(d: Box<Difference>, call: String, expected: &Value, got: Value, output: String) -> Box<Miss> {
    Box::new(Miss { message: d.to_string(), call, expected: Some(expected.clone()), got: Some(got), output })
}

/// The first place where `got` differs from `expected`.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    pub path: String,
    /// `None`: the key should not be there.
    pub expected: Option<Value>,
    /// `None`: the key is missing.
    pub got: Option<Value>,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |v: &Option<Value>| {
            v.as_ref().map(|v| pyrepr::repr(&crate::shorten::shorten(v))).unwrap_or_else(|| "missing".into())
        };
        let path = if self.path.is_empty() { "the result" } else { &self.path };
        write!(f, "{path}: expected {}, got {}", show(&self.expected), show(&self.got))
    }
}

/// Compare `got` against `expected`. Objects in `expected` are patterns (keys not named are not
/// looked at) unless `exact`, when extra keys count as differences too.
pub fn compare(expected: &Value, got: &Value, exact: bool) -> Result<(), Box<Difference>> {
    walk(expected, got, exact, String::new())
}

fn walk(expected: &Value, got: &Value, exact: bool, path: String) -> Result<(), Box<Difference>> {
    let join = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
    match (expected, got) {
        (Value::Object(want), Value::Object(have)) => {
            for (key, want_value) in want {
                match have.get(key) {
                    Some(have_value) => walk(want_value, have_value, exact, join(key))?,
                    None => {
                        return Err(Box::new(Difference {
                            path: join(key),
                            expected: Some(want_value.clone()),
                            got: None,
                        }))
                    }
                }
            }
            if exact {
                if let Some((key, extra)) = have.iter().find(|(k, _)| !want.contains_key(*k)) {
                    return Err(Box::new(Difference { path: join(key), expected: None, got: Some(extra.clone()) }));
                }
            }
            Ok(())
        }
        _ if expected == got => Ok(()),
        _ => Err(Box::new(Difference { path, expected: Some(expected.clone()), got: Some(got.clone()) })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_names_the_first_difference() {
        let d =
            compare(&json!({"error": {"isRetryable": true}}), &json!({"error": {"message": "x"}}), false).unwrap_err();
        assert_eq!(d.to_string(), "error.isRetryable: expected True, got missing");
        let d = compare(&json!({"isError": true}), &json!({"isError": 1}), false).unwrap_err();
        assert_eq!(d.to_string(), "isError: expected True, got 1");
        let d = compare(&json!({"orders": []}), &json!({"orders": [], "isError": false}), true).unwrap_err();
        assert_eq!(d.to_string(), "isError: expected missing, got False");
        assert!(compare(&json!({"a": 1}), &json!({"a": 1, "b": 2}), false).is_ok());
        let d = compare(&json!({"a": 1}), &json!("text"), false).unwrap_err();
        assert_eq!(d.to_string(), "the result: expected {'a': 1}, got 'text'");
    }
}

/// The whole grading of one file, as `check` prints it and autograders read it.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub lesson: String,
    pub file: String,
    /// `error` only when the file could not be loaded.
    pub status: Status,
    pub message: String,
    pub checks: Vec<CheckResult>,
    pub passed: usize,
    pub total: usize,
    /// What the file printed while loading, shown with a load error.
    #[serde(skip)]
    pub load_output: String,
}

impl Report {
    pub fn graded(lesson: &Lesson, file: String, checks: Vec<CheckResult>) -> Report {
        let passed = checks.iter().filter(|c| c.status == Status::Pass).count();
        let total = checks.len();
        let (status, message) = if passed == total {
            (Status::Pass, format!("all {total} checks pass"))
        } else {
            let first = checks.iter().find(|c| c.status != Status::Pass).map(|c| c.id.as_str()).unwrap_or("");
            (Status::Fail, format!("{passed} of {total} checks pass; the first to fix is {first}"))
        };
        Report { lesson: lesson.id.clone(), file, status, message, checks, passed, total, load_output: String::new() }
    }

    pub fn not_loaded(lesson: &Lesson, file: String, error: &crate::bridge::LoadError) -> Report {
        let checks: Vec<CheckResult> = CHECK_IDS
            .iter()
            .map(|id| CheckResult {
                id: id.to_string(),
                name: lesson.check_text(id).map(|t| t.name.clone()).unwrap_or_else(|| id.to_string()),
                status: Status::Error,
                message: "not run: the file did not load".into(),
                output: String::new(),
                call: None,
                expected: None,
                got: None,
                hints: Vec::new(),
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
        }
    }

    pub fn first_failure(&self) -> Option<&CheckResult> {
        self.checks.iter().find(|c| c.status == Status::Fail)
    }
}
