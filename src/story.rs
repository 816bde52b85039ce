//! The story of a run, judged from its events: how each attempt went (its tone), and the
//! verdict under the replay. Judged by what happened (the world's truth about each failure,
//! the reads between attempts), never by which code ran.

use serde_json::Value;

use crate::events::{Event, Tone, Verdict};
use crate::world::{Effects, Place};

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
fn judge(events: &[Event], place: &dyn Place) -> Vec<(usize, Option<Retry>, bool)> {
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
        let sound = cause.as_ref().is_some_and(|c| place.retry_helps(c)) || read == Some(Some(false));
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
pub(crate) fn settle_tones(events: &mut [Event], place: &dyn Place) {
    for (i, retry, settled) in judge(events, place) {
        if let Event::Attempt { failed, cause, number, tone, .. } = &mut events[i] {
            let helps = cause.as_ref().is_some_and(|c| place.retry_helps(c));
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
pub(crate) fn verdict(events: &[Event], place: &dyn Place, effects: &Effects) -> Verdict {
    let attempts: Vec<&Event> = events.iter().filter(|e| matches!(e, Event::Attempt { .. })).collect();
    let tool_calls = attempts.len();
    let (mut wasted, mut useful, mut gambles) = (0, 0, 0);
    for (_, retry, _) in judge(events, place) {
        match retry {
            Some(Retry::Sound) => useful += 1,
            Some(Retry::Wasted) => wasted += 1,
            Some(Retry::Blind) => gambles += 1,
            None => {}
        }
    }
    let stopped = events.iter().rev().find_map(|e| match e {
        Event::NoRecording { .. } => Some(("no_recording", "no recorded reply for this request")),
        Event::ApiError { status, .. } => Some((
            "api_error",
            if *status == 400 { "the API refused the request (400)" } else { "the API refused the request" },
        )),
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
    for harm in &effects.harms {
        text.push(' ');
        text.push_str(harm);
    }
    Verdict {
        tool_calls,
        wasted_retries: wasted,
        text,
        stopped: stopped.map(|(kind, _)| kind.to_string()),
        effects: effects.detail.clone(),
        harmed: !effects.harms.is_empty(),
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
