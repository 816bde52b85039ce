//! A replay as a stream of events: what the cards show, the JSON lists and the player steps
//! through. Knows nothing of terminals.

use serde::Serialize;
use serde_json::Value;

use crate::recordings::Provenance;

/// How an attempt went, which decides its card's colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    /// It worked.
    Worked,
    /// A transient failure, and it was retried.
    Retried,
    /// It was retried (or was a retry) although a retry could not have helped.
    Wasted,
    /// A failure reported and not retried.
    Reported,
    /// Retried although nothing said it was safe, and the retry went through: a gamble.
    Blind,
    /// An uncertain failure that a read settled: it had gone through.
    Settled,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Customer {
        text: String,
    },
    /// The model asks for a tool.
    ToolCall {
        id: String,
        tool: String,
        input: Value,
        /// The call in words: "refunds order 0871".
        words: String,
        /// Text the model wrote before the call, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        preface: Option<String>,
        provenance: Provenance,
    },
    /// One execution of the tool.
    Attempt {
        tool_use_id: String,
        number: u32,
        output: Value,
        failed: bool,
        /// What the result claims, read from its `error` object.
        category: Option<String>,
        retryable: Option<bool>,
        message: Option<String>,
        /// The category the tool itself gave `fail`.
        cause: Option<String>,
        retried: bool,
        tone: Tone,
        /// The MCP `CallToolResult` the SDK runtime sent, in wire form.
        #[serde(skip_serializing_if = "Option::is_none")]
        wire: Option<Value>,
        /// What the code printed during the attempt.
        #[serde(skip_serializing_if = "String::is_empty")]
        printed: String,
        /// What the learner's decision function answered about this failure, when asked.
        #[serde(skip_serializing_if = "Option::is_none")]
        answer: Option<Value>,
    },
    /// The harness ran the read a failure named, to learn whether the call went through.
    Verify {
        tool_use_id: String,
        tool: String,
        input: Value,
        /// Attempts the read took (it may itself time out and be retried).
        tries: usize,
        /// What it found; `None` when the read itself failed.
        found: Option<bool>,
        message: Option<String>,
        output: Value,
    },
    /// What a subagent passed up to its coordinator when its work failed.
    Report {
        tool_use_id: String,
        /// The four labelled parts: failed, tried, partial, next.
        report: Value,
    },
    /// The harness's backoff before the next attempt.
    Wait {
        ms: u64,
    },
    Reply {
        text: String,
        provenance: Provenance,
    },
    /// The run asked for a model turn nobody recorded. The replay stops here.
    NoRecording {
        /// The new message the model would have been sent.
        sent: Value,
        /// `recordings/...:line` of the closest recorded request.
        closest: Option<String>,
        /// A labelled diff: the closest recorded request against this one.
        diff: String,
        explanation: String,
    },
    /// The code under replay failed (did not load, raised, hung). The replay stops here.
    CodeError {
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        call: Option<String>,
        #[serde(skip_serializing_if = "String::is_empty")]
        printed: String,
    },
}

impl Event {
    /// The model turn's provenance, on the events that are model turns.
    pub fn provenance(&self) -> Option<&Provenance> {
        match self {
            Event::ToolCall { provenance, .. } | Event::Reply { provenance, .. } => Some(provenance),
            _ => None,
        }
    }

    /// The event without what may differ between two runs that did the same thing (ids, text the
    /// model wrote, printed output): two runs split at the first event whose signature differs.
    pub fn signature(&self) -> Value {
        match self {
            Event::ToolCall { tool, input, .. } => serde_json::json!(["tool_call", tool, input]),
            Event::Attempt { output, number, .. } => serde_json::json!(["attempt", number, output]),
            Event::Reply { text, .. } => serde_json::json!(["reply", text]),
            other => serde_json::to_value(other).unwrap_or(Value::Null),
        }
    }
}

/// The one-line summary under a replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// How many times a tool ran.
    pub tool_calls: usize,
    /// Retries that followed a failure no retry could fix.
    pub wasted_retries: usize,
    pub text: String,
    /// Why the replay stopped before a reply: `no_recording` or `code_error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Refunds that actually moved money in this run, per order.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub refunds_paid: std::collections::BTreeMap<String, u32>,
    /// The lesson's note on this ticket and code: the harm or the gain the run shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A replayed run of one ticket.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Replay {
    pub lesson: String,
    pub ticket: String,
    pub code: String,
    pub runtime: String,
    pub events: Vec<Event>,
    pub verdict: Verdict,
}

/// How a retried attempt's retry is judged, once the run is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Retry {
    /// The failure was one a retry can fix, or a read showed nothing had happened.
    Sound,
    /// The same failure came back: the retry could not have helped.
    Wasted,
    /// Nothing said it was safe, yet it went through.
    Blind,
}

/// For each attempt (by event index): how its retry is judged, when it was retried, and whether a
/// read right after it settled the call.
fn judge(events: &[Event], retry_helps: &[String]) -> Vec<(usize, Option<Retry>, bool)> {
    let call_of = |id: &str| {
        events.iter().find_map(|e| match e {
            Event::ToolCall { id: i, tool, input, .. } if i == id => Some((tool.clone(), input.clone())),
            _ => None,
        })
    };
    let mut out = Vec::new();
    for (i, event) in events.iter().enumerate() {
        let Event::Attempt { tool_use_id, retried, failed, cause, .. } = event else { continue };
        // The read the harness ran right after this attempt, if any.
        let read = events[i + 1..].iter().take_while(|e| !matches!(e, Event::Attempt { .. })).find_map(|e| match e {
            Event::Verify { tool_use_id: t, found, .. } if t == tool_use_id => Some(*found),
            _ => None,
        });
        let settled = read == Some(Some(true));
        if !(*retried && *failed) {
            out.push((i, None, settled));
            continue;
        }
        let key = call_of(tool_use_id);
        let next = events[i + 1..].iter().find_map(|e| match e {
            Event::Attempt { tool_use_id: t, failed, .. } if call_of(t) == key => Some(*failed),
            _ => None,
        });
        let sound = cause.as_ref().is_some_and(|c| retry_helps.contains(c)) || read == Some(Some(false));
        let verdict = match next {
            _ if sound => Retry::Sound,
            Some(false) => Retry::Blind,
            _ => Retry::Wasted,
        };
        out.push((i, Some(verdict), settled));
    }
    out
}

/// Colour the attempts once the run is over: whether an attempt was retried, and how that went,
/// is known only then.
pub fn settle_tones(events: &mut [Event], retry_helps: &[String]) {
    for (i, retry, settled) in judge(events, retry_helps) {
        if let Event::Attempt { failed, cause, number, tone, .. } = &mut events[i] {
            let helps = cause.as_ref().is_some_and(|c| retry_helps.contains(c));
            *tone = match retry {
                _ if !*failed => Tone::Worked,
                Some(Retry::Sound) => Tone::Retried,
                Some(Retry::Wasted) => Tone::Wasted,
                Some(Retry::Blind) => Tone::Blind,
                None if settled => Tone::Settled,
                None if !helps && *number > 1 => Tone::Wasted,
                None => Tone::Reported,
            };
        }
    }
}

/// Count the tool runs and the retries no retry could fix, and say it in a line.
pub fn verdict(events: &[Event], retry_helps: &[String], paid: &std::collections::BTreeMap<String, u32>) -> Verdict {
    let attempts: Vec<&Event> = events.iter().filter(|e| matches!(e, Event::Attempt { .. })).collect();
    let tool_calls = attempts.len();
    let (mut wasted, mut useful, mut gambles) = (0, 0, 0);
    for (_, retry, _) in judge(events, retry_helps) {
        match retry {
            Some(Retry::Sound) => useful += 1,
            Some(Retry::Wasted) => wasted += 1,
            Some(Retry::Blind) => gambles += 1,
            None => {}
        }
    }
    let stopped = events.iter().rev().find_map(|e| match e {
        Event::NoRecording { .. } => Some(("no_recording", "no recorded reply for this request")),
        Event::CodeError { .. } => Some(("code_error", "the code under replay failed")),
        _ => None,
    });
    let called = events.iter().any(|e| matches!(e, Event::ToolCall { .. }));
    let times = match tool_calls {
        0 if called => "The tool was called, but no attempt finished".to_string(),
        0 => "The tool never ran".to_string(),
        1 => "Tried once".to_string(),
        2 => "Tried twice".to_string(),
        n => format!("Tried {n} times"),
    };
    let last_worked = attempts.last().is_some_and(|a| matches!(a, Event::Attempt { failed: false, .. }));
    let text = if let Some((_, why)) = stopped {
        format!("{times}, then the replay stopped: {why}.")
    } else if wasted > 0 {
        let retries = if wasted == 1 { "1 retry".to_string() } else { format!("{wasted} retries") };
        format!("{times}. {retries} could not have helped.")
    } else if gambles > 0 && last_worked {
        format!("{times}: the retry went through, but nothing said it was safe to repeat.")
    } else if useful > 0 && last_worked {
        format!("{times}: the retry got it through.")
    } else if tool_calls == 0 {
        format!("{times}; the agent answered directly.")
    } else if let Some(fan_out) = fan_out(events) {
        fan_out
    } else {
        format!("{times}, then explained the result.")
    };
    let mut text = text;
    for (order, times) in paid.iter().filter(|(_, n)| **n > 1) {
        text.push_str(&format!(" Order {order} was refunded {times} times: the customer was paid more than once."));
    }
    Verdict {
        tool_calls,
        wasted_retries: wasted,
        text,
        stopped: stopped.map(|(kind, _)| kind.to_string()),
        refunds_paid: paid.clone(),
        note: None,
    }
}

/// For a run that made several different calls (a coordinator's subagents): calls and retries
/// counted apart, and what came back to the agent: every result, results and a report of what
/// failed, or results and failures that say nothing.
fn fan_out(events: &[Event]) -> Option<String> {
    let calls: Vec<(&str, Value)> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCall { id, tool, input, .. } => Some((id.as_str(), serde_json::json!([tool, input]))),
            _ => None,
        })
        .collect();
    let mut distinct: Vec<&Value> = calls.iter().map(|(_, c)| c).collect();
    distinct.sort_by_key(|v| v.to_string());
    distinct.dedup();
    if distinct.len() < 2 {
        return None;
    }
    let attempts = events.iter().filter(|e| matches!(e, Event::Attempt { .. })).count();
    let retries = attempts.saturating_sub(calls.len());
    let (mut worked, mut reported, mut bare) = (0, 0, 0);
    for (id, _) in &calls {
        let last_failed = events.iter().rev().find_map(|e| match e {
            Event::Attempt { tool_use_id, failed, .. } if tool_use_id == id => Some(*failed),
            _ => None,
        });
        let has_report = events.iter().any(|e| matches!(e, Event::Report { tool_use_id, .. } if tool_use_id == id));
        match (last_failed, has_report) {
            (Some(false), _) => worked += 1,
            (_, true) => reported += 1,
            _ => bare += 1,
        }
    }
    let plural = |n: usize, one: &str, many: &str| if n == 1 { format!("1 {one}") } else { format!("{n} {many}") };
    let head = format!("{}, {}", plural(calls.len(), "call", "calls"), plural(retries, "retry", "retries"));
    let back = match (reported, bare) {
        (0, 0) => "every result came back".to_string(),
        (r, 0) => format!(
            "{} and {} of what failed, in four parts",
            plural(worked, "result", "results"),
            plural(r, "report", "reports")
        ),
        (_, b) => format!(
            "{}; {} came back with nothing that says what happened or what to do",
            plural(worked, "result", "results"),
            plural(b, "failure", "failures")
        ),
    };
    Some(format!("{head}: {back}."))
}

/// The index of the first event where two runs differ; `None` when they never do.
pub fn split_point(a: &[Event], b: &[Event]) -> Option<usize> {
    let common = a.iter().zip(b).take_while(|(x, y)| x.signature() == y.signature()).count();
    (common < a.len().max(b.len())).then_some(common)
}
