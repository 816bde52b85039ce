//! The story of a run, judged from its events: how each try went (its tone), what the run did
//! (its counts), the verdict under the replay and the lesson's note on it. Judged by what
//! happened (the world's truth about each failure, the reads between tries), never by which code
//! ran, in either runtime.

use serde_json::{json, Value};

use crate::lesson::{Cond, Note, Runtime, HAS, NAMED};
use crate::replay::counts::Counts;
use crate::replay::events::{self, Event, Judgement, Tone, Verdict, VerdictTone};
use crate::replay::received::Received;
use crate::world::{Effects, Setting};

mod words;

use words::{head, told};

/// How a failed try is judged, once the run is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TryVerdict {
    /// Tried again, and the failure was one a retry can fix.
    Sound,
    /// Tried again after a read of the same object found nothing: known to be safe.
    Checked,
    /// Tried again although no retry could help: the same failure came back, or a read had
    /// shown the call went through.
    Wasted,
    /// Tried again with nothing to show it was safe.
    Blind,
    /// Tried again although no retry can fix it, and a later try of the same call went through
    /// after the same failure: the outcome changed only because the call was made again.
    Overturned,
    /// Not tried again: a read showed it had gone through.
    Settled,
    /// Not tried again, and it failed the same way as the try before it.
    Again,
    /// Not tried again: the failure went back as it was.
    Reported,
    /// Not tried again, and its result never reached the model: the API refused the request.
    Dropped,
}

/// One execution of a tool in the run: an attempt of a call the model made, or a try of a
/// read the harness ran.
#[derive(Clone, Debug)]
struct Try {
    /// The event's index.
    at: usize,
    /// The call it is a try of: the tool and its input.
    key: Value,
    /// The model's call this try answers, or for a harness read, the call it checks.
    id: String,
    failed: bool,
    cause: Option<String>,
    /// A read run to settle a failure: whose call it checks.
    read_of: Option<String>,
    found: Option<bool>,
    /// What the failure claimed about a retry.
    claimed: Option<bool>,
    /// The world could not tell whether the call went through (it named a read that would).
    uncertain: bool,
    /// The model read this try's failure as a bare line, or unflagged (`Received`).
    misread: bool,
}

impl Try {
    fn is_read(&self) -> bool {
        self.read_of.is_some()
    }
}

fn tries(events: &[Event]) -> Vec<Try> {
    let call_of = |id: &str| {
        events.iter().find_map(|e| match e {
            Event::ToolCall { id: i, tool, input, .. } if i == id => Some(json!([tool, input])),
            _ => None,
        })
    };
    events
        .iter()
        .enumerate()
        .filter_map(|(at, e)| match e {
            Event::Attempt { tool_use_id, failed, cause, read_of, found, retryable, .. } => {
                Some(Try {
                    at,
                    key: call_of(tool_use_id).unwrap_or(Value::Null),
                    id: tool_use_id.clone(),
                    failed: *failed,
                    cause: cause.clone(),
                    read_of: read_of.clone(),
                    found: *found,
                    claimed: *retryable,
                    uncertain: matches!(e, Event::Attempt { uncertain: true, .. }),
                    misread: matches!(e, Event::Attempt { received: Some(r), .. }
                    if r.read() && r.failure && (r.bare || !r.flagged)),
                })
            }
            Event::Verify { tool_use_id, tool, input, failed, found, cause, .. } => Some(Try {
                at,
                key: json!(["read", tool, input]),
                id: tool_use_id.clone(),
                failed: *failed,
                cause: cause.clone(),
                read_of: Some(tool_use_id.clone()),
                found: *found,
                claimed: None,
                uncertain: false,
                misread: false,
            }),
            _ => None,
        })
        .collect()
}

/// What the reads of a call found between two of its tries: `Some(found)` from the last read
/// that answered, `None` when no read answered (or none ran).
fn read_between(all: &[Try], of: &str, from: usize, to: usize) -> Option<bool> {
    all.iter()
        .filter(|t| t.at > from && t.at < to && t.read_of.as_deref() == Some(of))
        .filter_map(|t| t.found)
        .next_back()
}

/// Whether the run's next request after this event, the one that would carry its result, was
/// refused by the API: the first model turn, refusal or stop after it is the refusal.
fn refused_after(events: &[Event], at: usize) -> bool {
    let next = events[at + 1..].iter().find(|e| {
        matches!(
            e,
            Event::ToolCall { .. }
                | Event::Reply { .. }
                | Event::ApiError { .. }
                | Event::NoRecording { .. }
                | Event::CodeError { .. }
                | Event::HostError { wait_ms: None, .. }
                | Event::Capped { .. }
        )
    });
    matches!(next, Some(Event::ApiError { .. } | Event::HostError { .. }))
}

/// Each failed try with its judgement.
fn judge(all: &[Try], setting: &dyn Setting, events: &[Event]) -> Vec<(usize, TryVerdict)> {
    let mut out = Vec::new();
    for (n, t) in all.iter().enumerate() {
        if !t.failed {
            continue;
        }
        let next = all[n + 1..].iter().find(|u| u.key == t.key);
        let previous = all[..n].iter().rev().find(|u| u.key == t.key);
        let helps = t.cause.as_ref().is_some_and(|c| setting.retry_helps(c));
        let found = if t.is_read() {
            None
        } else {
            read_between(all, &t.id, t.at, next.map_or(usize::MAX, |u| u.at))
        };
        let judged = match next {
            Some(_) if found == Some(false) => TryVerdict::Checked,
            Some(_) if found == Some(true) => TryVerdict::Wasted,
            Some(_) if helps => TryVerdict::Sound,
            Some(_) if !t.uncertain && overturned(all, n) => TryVerdict::Overturned,
            Some(u) if u.failed && u.cause == t.cause => TryVerdict::Wasted,
            Some(_) => TryVerdict::Blind,
            None if found == Some(true) => TryVerdict::Settled,
            None if !helps && previous.is_some_and(|p| p.failed && p.cause == t.cause) => {
                TryVerdict::Again
            }
            None if refused_after(events, t.at) => TryVerdict::Dropped,
            None => TryVerdict::Reported,
        };
        out.push((t.at, judged));
    }
    out
}

/// Whether the failed try `n` was followed by tries of the same call that failed the same way
/// until one went through: the answer changed only because the call was made again.
fn overturned(all: &[Try], n: usize) -> bool {
    let t = &all[n];
    for u in all[n + 1..].iter().filter(|u| u.key == t.key) {
        if !u.failed {
            return true;
        }
        if u.cause != t.cause {
            return false;
        }
    }
    false
}

/// The story's judgement of every attempt, once the run is over: whether it was retried, and
/// how that went, is known only then. Kept beside the events, which stay as they happened.
pub(crate) fn judgement(events: &[Event], setting: &dyn Setting, runtime: Runtime) -> Judgement {
    let all = tries(events);
    let judged = judge(&all, setting, events);
    let model_retried = match runtime {
        Runtime::Sdk => model_retries(events),
        Runtime::Harness => Vec::new(),
    };
    let out = events
        .iter()
        .enumerate()
        .map(|(at, event)| {
            let Event::Attempt { failed, retried, .. } = event else {
                return None;
            };
            let retried = *retried || model_retried.contains(&at);
            let judged = judged.iter().find(|(i, _)| *i == at).map(|(_, j)| *j);
            use TryVerdict::{Blind, Checked, Overturned, Sound, Wasted};
            let again = [Sound, Checked, Wasted, Blind, Overturned];
            let repeated = judged.is_some_and(|j| again.contains(&j));
            let tone = match judged {
                _ if !failed => Tone::Worked,
                // Reported to the model (the cap ended it, or the code said no): the model calling
                // the tool again is a call of its own, not a retry of this try.
                Some(TryVerdict::Sound) if !retried => Tone::Reported,
                Some(TryVerdict::Sound) => Tone::Retried,
                Some(TryVerdict::Overturned) => Tone::Overturned,
                Some(TryVerdict::Checked) => Tone::Checked,
                Some(TryVerdict::Wasted | TryVerdict::Again) => Tone::Wasted,
                Some(TryVerdict::Blind) => Tone::Blind,
                Some(TryVerdict::Settled) => Tone::Settled,
                Some(TryVerdict::Reported) | None => Tone::Reported,
                Some(TryVerdict::Dropped) => Tone::Dropped,
            };
            Some(events::Judged { tone, retried, repeated })
        })
        .collect();
    Judgement(out)
}

/// In the SDK runtime a retry is the model calling the same tool with the same input again: the
/// attempts so retried, each the last attempt of a same call before the call that repeats it.
fn model_retries(events: &[Event]) -> Vec<usize> {
    let mut out = Vec::new();
    for (at, event) in events.iter().enumerate() {
        let Event::ToolCall { tool, input, .. } = event else {
            continue;
        };
        let mut same_call = false;
        let mut last_attempt = None;
        for (i, earlier) in events[..at].iter().enumerate() {
            match earlier {
                Event::ToolCall { tool: t, input: x, .. } => same_call = t == tool && x == input,
                Event::Attempt { .. } if same_call => last_attempt = Some(i),
                _ => {}
            }
        }
        out.extend(last_attempt);
    }
    out
}

/// `1 retry`, `2 retries`: a count with its noun (`render::count` for a plural in `s`).
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// "once", "twice", "3 times".
fn times(n: usize) -> String {
    match n {
        1 => "once".into(),
        2 => "twice".into(),
        n => format!("{n} times"),
    }
}

/// An API error after which the host sent the same request again.
fn sent_again(event: &Event) -> bool {
    matches!(event, Event::HostError { wait_ms: Some(_), .. })
}

/// An API error the client itself sent again after (its `max_retries`).
fn by_client(event: &Event) -> bool {
    matches!(event, Event::HostError { waited_by: Some(by), .. } if by == "client")
}

const HOST_STOPPED: &str = "the API answered with an error, and the host stopped";

/// How the run ended, and why it stopped early when it did.
fn ending(events: &[Event]) -> (&'static str, Option<&'static str>) {
    // What the host told the person comes after what ended the run.
    match events.iter().rev().find(|e| !matches!(e, Event::Told { .. })) {
        Some(Event::Capped { .. }) => ("cap", Some("a cap of the host's ended the run")),
        Some(Event::HostError { status: Some(400), .. }) => {
            ("api_error", Some("the API refused the request (400), and the host stopped"))
        }
        Some(Event::HostError { .. }) => ("api_error", Some(HOST_STOPPED)),
        Some(Event::Reply { .. }) => ("reply", None),
        Some(Event::NoRecording { .. }) => {
            ("no_recording", Some("no recorded reply for this request"))
        }
        Some(Event::ApiError { status: 400, .. }) => {
            ("api_error", Some("the API refused the request (400)"))
        }
        Some(Event::ApiError { .. }) => ("api_error", Some("the API refused the request")),
        Some(Event::CodeError { .. }) => ("code_error", Some("the code under replay failed")),
        Some(Event::RpcEnded { .. }) => ("rpc_ended", Some("the MCP host ended the run")),
        _ => ("none", None),
    }
}

/// Count what the run did, and say it in a line that agrees with itself.
pub(crate) fn verdict(events: &[Event], setting: &dyn Setting, effects: &Effects) -> Verdict {
    let all = tries(events);
    let judged = judge(&all, setting, events);
    let (ends, stopped) = ending(events);
    let counts = counts(events, &all, &judged, ends, effects);
    let head = head(events, &all, &counts);
    let mut text = match stopped {
        // A cap is the host's own stop, not the replay's.
        Some(why) if ends == "cap" => format!("{head}, then {why}."),
        Some(why) => format!("{head}, then the replay stopped: {why}."),
        None => told(events, &all, &judged, &counts, head),
    };
    for harm in &effects.harms {
        text.push(' ');
        text.push_str(harm);
    }
    // Harm is what the run did: the world's own count of it, what the model read (a leak; a
    // line that says nothing, or a failure unflagged, as its last word on a call), retries
    // of failures no retry can fix, and a request the API refused, which ends the run with no
    // reply; never which code ran or what a note says.
    let repeated_in_vain = counts.wasted_retries + counts.overturned_retries;
    // A misread is harm where it was the model's last word on a call: nothing it read later
    // put it right.
    let calls = calls(&all);
    let last_of = |key: &Value| calls.iter().rev().find(|t| t.key == *key);
    let misread = keys(&calls).iter().any(|key| last_of(key).is_some_and(|t| t.misread));
    // The person got no answer: the API refused the request, or an MCP host ended the run on
    // the server's error and showed them that.
    let refused = ends == "api_error" || ends == "rpc_ended";
    let world = !effects.harms.is_empty();
    let harmed = world || counts.leaks > 0 || misread || repeated_in_vain > 0 || refused;
    let tone = match ends {
        "code_error" | "api_error" => VerdictTone::Bad,
        // Harm is red however the run ended: a run the host stopped may have done harm first.
        _ if harmed => VerdictTone::Bad,
        _ if stopped.is_some() => VerdictTone::Warn,
        _ => VerdictTone::Good,
    };
    Verdict {
        tool_calls: events.iter().filter(|e| matches!(e, Event::Attempt { .. })).count(),
        wasted_retries: counts.wasted_retries,
        text,
        stopped: stopped.map(|_| ends.to_string()),
        effects: effects.detail.clone(),
        harmed,
        harms: effects.harms.clone(),
        tone,
        note: None,
        counts,
    }
}

/// What the model read of each failure whose result reached it.
fn read(events: &[Event]) -> impl Iterator<Item = &Received> {
    events.iter().filter_map(|e| match e {
        Event::Attempt { received: Some(r), .. } if r.read() && r.failure => Some(&**r),
        _ => None,
    })
}

/// `named_<fact>`: how many failures the model read named each of their facts; `has_<id>`:
/// how many had each of the lesson's properties.
fn named(events: &[Event]) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    for r in read(events) {
        for fact in &r.unnamed {
            out.entry(format!("{NAMED}{fact}")).or_insert(Value::from(0));
        }
        for n in &r.names {
            let slot = out.entry(format!("{NAMED}{}", n.fact)).or_insert(Value::from(0));
            *slot = Value::from(slot.as_u64().unwrap_or(0) + 1);
        }
        for lacked in &r.lacks {
            out.entry(format!("{HAS}{}", lacked.property)).or_insert(Value::from(0));
        }
        for had in &r.has {
            let slot = out.entry(format!("{HAS}{}", had.property)).or_insert(Value::from(0));
            *slot = Value::from(slot.as_u64().unwrap_or(0) + 1);
        }
    }
    out
}

/// Whether the `n`th try followed a failed try of the same call.
fn retry_of(all: &[Try], n: usize) -> bool {
    all[..n].iter().rev().find(|u| u.key == all[n].key).is_some_and(|u| u.failed)
}

/// The tries of the calls the model made, reads aside.
fn calls(all: &[Try]) -> Vec<&Try> {
    all.iter().filter(|t| !t.is_read()).collect()
}

/// The different calls made (a tool and its input), in the order first made.
fn keys<'t>(calls: &[&'t Try]) -> Vec<&'t Value> {
    let mut keys: Vec<&Value> = Vec::new();
    for t in calls {
        if !keys.contains(&&t.key) {
            keys.push(&t.key);
        }
    }
    keys
}

/// Tries of reads that followed a failed try of the same read, and all tries of reads.
fn read_tries(all: &[Try]) -> (usize, usize) {
    let retried = (0..all.len()).filter(|&n| all[n].is_read() && retry_of(all, n)).count();
    (retried, all.iter().filter(|t| t.is_read()).count())
}

fn count(judged: &[(usize, TryVerdict)], j: TryVerdict) -> usize {
    judged.iter().filter(|(_, x)| *x == j).count()
}

/// What the run did, counted.
fn counts(
    events: &[Event],
    all: &[Try],
    judged: &[(usize, TryVerdict)],
    ends: &str,
    effects: &Effects,
) -> Counts {
    let calls = calls(all);
    let keys = keys(&calls);
    let (read_retries, read_tries) = read_tries(all);
    let settled: Vec<usize> =
        judged.iter().filter(|(_, j)| *j == TryVerdict::Settled).map(|(at, _)| *at).collect();
    Counts {
        attempts: calls.len(),
        reads: read_tries - read_retries,
        retries: (0..all.len()).filter(|&n| retry_of(all, n)).count(),
        wasted_retries: count(judged, TryVerdict::Wasted),
        blind_retries: count(judged, TryVerdict::Blind),
        overturned_retries: count(judged, TryVerdict::Overturned),
        bare_failures: events
            .iter()
            .filter(|e| matches!(e, Event::Attempt { bare: true, .. }))
            .count(),
        reports: events.iter().filter(|e| matches!(e, Event::Report { .. })).count(),
        leaks: events.iter().filter(|e| matches!(e, Event::Attempt { leaked: true, .. })).count(),
        model_read_bare: read(events).filter(|r| r.bare).count(),
        unflagged_failures: read(events).filter(|r| !r.flagged).count(),
        named: named(events),
        mcp: crate::replay::exchange::Exchanged::of(events),
        // A call whose last try failed, unless a read showed it had gone through.
        failed: keys.iter().any(|key| {
            calls
                .iter()
                .rev()
                .find(|t| t.key == **key)
                .is_some_and(|t| t.failed && !settled.contains(&t.at))
        }),
        ends: ends.to_string(),
        api_errors: events.iter().filter(|e| matches!(e, Event::HostError { .. })).count(),
        api_retries: events.iter().filter(|e| sent_again(e)).count(),
        client_retries: events.iter().filter(|e| sent_again(e) && by_client(e)).count(),
        // The runtime knows these; a run that never started took no turn and no time.
        turns: 0,
        elapsed_ms: 0,
        world: effects.counts.clone(),
    }
}

/// The first of a ticket's notes whose conditions all hold of what the run did.
pub(crate) fn note<'n>(notes: &'n [Note], counts: &Counts) -> Option<&'n str> {
    let facts = counts.value();
    notes.iter().find(|n| holds(&n.when, &facts)).map(|n| n.says.trim())
}

/// Whether every condition holds of the facts (a run's counts).
pub(crate) fn holds(when: &std::collections::BTreeMap<String, Cond>, facts: &Value) -> bool {
    when.iter().all(|(key, cond)| cond.holds(facts.get(key)))
}

#[cfg(test)]
mod tests;
