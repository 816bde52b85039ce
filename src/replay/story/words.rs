//! The verdict's words: its opening (how often the tool was tried, and the reads) and what it
//! tells of the run after it, each said from the run's own counts and judgements.

use super::*;

/// The verdict's opening: how often the tool was tried (or the calls and retries, for several
/// calls), and how often a read ran.
pub(super) fn head(events: &[Event], all: &[Try], counts: &Counts) -> String {
    let calls = calls(all);
    let called = events.iter().any(|e| matches!(e, Event::ToolCall { .. }));
    let mut head = match (keys(&calls).len(), calls.len()) {
        (0, _) if called => "The tool was called, but no attempt finished".to_string(),
        (0, _) => "The tool never ran".to_string(),
        (1, n) => format!("Tried {}", times(n)),
        // Counted as the cards number them: a call is a card of its own (the model asking
        // again for the same thing too), a retry an attempt after the first of one call.
        (_, _) => {
            let mut ids: Vec<&str> = calls.iter().map(|t| t.id.as_str()).collect();
            ids.dedup();
            let call_retries = events
                .iter()
                .filter(
                    |e| matches!(e, Event::Attempt { number, read_of: None, .. } if *number > 1),
                )
                .count();
            format!(
                "{}, {}",
                plural(ids.len(), "call", "calls"),
                plural(call_retries, "retry", "retries")
            )
        }
    };
    let (read_retries, read_tries) = read_tries(all);
    if counts.reads > 0 {
        head.push_str(&format!(" and read {}", times(counts.reads)));
        if read_retries > 0 {
            head.push_str(&format!(", in {} tries", read_tries));
        }
    }
    head
}

/// The rest of the verdict of a run that was not stopped: the one thing most worth saying
/// about how its failures were handled.
pub(super) fn told(
    events: &[Event],
    all: &[Try],
    judged: &[(usize, TryVerdict)],
    counts: &Counts,
    head: String,
) -> String {
    let calls = calls(all);
    let called = events.iter().any(|e| matches!(e, Event::ToolCall { .. }));
    let last_worked = calls.last().is_some_and(|t| !t.failed);
    let blind_claimed = judged.iter().any(|(at, j)| {
        *j == TryVerdict::Blind && all.iter().any(|t| t.at == *at && t.claimed == Some(true))
    });
    if counts.overturned_retries > 0 {
        format!("{head}: a failure no retry can fix was tried again until a try went through.")
    } else if counts.wasted_retries > 0 {
        format!(
            "{head}. {} could not have helped.",
            plural(counts.wasted_retries, "retry", "retries")
        )
    } else if counts.blind_retries > 0 && blind_claimed {
        format!("{head}: the error said a retry could help, but nothing showed this failure was safe to repeat.")
    } else if counts.blind_retries > 0 && last_worked {
        format!("{head}: the retry went through, but nothing said it was safe to repeat.")
    } else if counts.blind_retries > 0 {
        format!("{head}: a retry was made although nothing said it was safe to repeat.")
    } else if count(judged, TryVerdict::Checked) > 0 {
        format!("{head}: the read found nothing, so the retry was known to be safe.")
    } else if count(judged, TryVerdict::Settled) > 0 {
        format!("{head}: the read showed it had gone through, so nothing was repeated.")
    } else if keys(&calls).len() > 1 {
        format!("{head}: {}.", came_back(events, all))
    } else if count(judged, TryVerdict::Sound) > 0 && last_worked {
        format!("{head}: the retry got it through.")
    } else if counts.model_read_bare > 0 {
        let bare = "a line that says the same of any failure";
        format!("{head}, but the model read nothing of what happened: {bare}.")
    } else if counts.unflagged_failures > 0 {
        format!("{head}: the failure reached the model unflagged, as if the call had worked.")
    } else if calls.is_empty() && !called {
        format!("{head}; the agent answered directly.")
    } else {
        format!("{head}, then explained the result.")
    }
}

/// For a run that made several different calls (a coordinator's subagents): what came back to
/// the agent: every result, results and a report of what failed, results and failures that
/// say what happened, or failures that say nothing at all.
fn came_back(events: &[Event], all: &[Try]) -> String {
    let ids: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCall { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .filter(|id| all.iter().any(|t| t.id == *id && !t.is_read()))
        .collect();
    let (mut worked, mut reported, mut told, mut bare, mut unflagged) = (0, 0, 0, 0, 0);
    for id in ids {
        // TryVerdict by what the model read of the call's last result, where it read one.
        let last = events.iter().rev().find_map(|e| match e {
            Event::Attempt { tool_use_id, failed, bare, received, .. } if tool_use_id == id => {
                let read = received.as_ref().filter(|r| r.read());
                // A failure sent as a success is still one: the model read it unflagged.
                let failed = *failed || read.is_some_and(|r| r.failure);
                let unflagged = read.is_some_and(|r| r.failure && !r.flagged);
                Some((failed, read.map_or(*bare, |r| r.bare), unflagged))
            }
            _ => None,
        });
        let has_report = events
            .iter()
            .any(|e| matches!(e, Event::Report { tool_use_id, .. } if tool_use_id == id));
        match (last, has_report) {
            (Some((false, _, _)), _) => worked += 1,
            (_, true) => reported += 1,
            (Some((true, true, _)), _) | (None, _) => bare += 1,
            (Some((true, false, true)), _) => unflagged += 1,
            (Some((true, false, false)), _) => told += 1,
        }
    }
    let results = plural(worked, "result", "results");
    match (reported, told, bare, unflagged) {
        (0, 0, 0, 0) => "every result came back".to_string(),
        (r, 0, 0, 0) => {
            let reports = plural(r, "report", "reports");
            format!("{results} and {reports} of what failed, in four parts")
        }
        (_, t, 0, 0) => {
            format!(
                "{results}; {} came back saying what happened",
                plural(t, "failure", "failures")
            )
        }
        (_, _, 0, u) => {
            let failures = plural(u, "failure", "failures");
            let read_as = if u == 1 { "a result" } else { "results" };
            format!("{results}; {failures} came back unflagged, read as {read_as}")
        }
        (_, _, b, _) => format!(
            "{results}; {} came back with nothing that says what happened or what to do",
            plural(b, "failure", "failures")
        ),
    }
}
