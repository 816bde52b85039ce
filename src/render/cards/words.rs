//! What the cards say of each fact, in words: an attempt's headline from its judgement, what a
//! failure says of itself, a read's words, who wrote the replies. The page and the JSON say the
//! same words.

use crate::lesson::kinds::{ByKind, Unanswered};
use crate::replay::events::{Detail, Event, Told, Tone};
use crate::replay::recordings::Provenance;

/// Who wrote the replies of a replay, in one line.
pub(crate) fn provenance_line(events: &[Event]) -> String {
    let mut authored = false;
    let mut live: Vec<String> = Vec::new();
    for p in events.iter().filter_map(Event::provenance) {
        match p {
            Provenance::Authored { .. } => authored = true,
            Provenance::Live { model, date, .. } => {
                let tag = format!("{model} on {date}");
                if !live.contains(&tag) {
                    live.push(tag);
                }
            }
        }
    }
    match (authored, live.is_empty()) {
        (false, true) => "Replies: no model turn was replayed.".into(),
        (true, true) => {
            "Replies: authored for this lesson by its authors, not a live model run.".into()
        }
        (false, false) => format!("Replies: recorded live from {}.", live.join(", ")),
        (true, false) => {
            format!(
                "Replies: some authored for this lesson, some recorded live from {}.",
                live.join(", ")
            )
        }
    }
}

/// An attempt's headline. `claimed`: what the failure said about a retry, so that a blind
/// retry made on the failure's own word is not called one nothing asked for.
fn tone_words(tone: Tone, retried: bool, repeated: bool, claimed: Option<bool>) -> &'static str {
    match (tone, retried) {
        (Tone::Worked, _) => "worked",
        (Tone::Retried, _) => "failed: retried, and a retry could help",
        (Tone::Wasted, true) => {
            "failed, retried: the same failure came back, \
             and no retry can fix it"
        }
        // Not tried again by the harness, but the model made the same call again.
        (Tone::Wasted, false) if repeated => {
            "failed; the same call was made again, \
             and failed the same way"
        }
        (Tone::Wasted, false) => "failed again, the same way",
        (Tone::Reported, _) => "failed, reported and not retried",
        (Tone::Dropped, _) => "failed, no result sent: the API refused the next request",
        (Tone::Blind, true) if claimed == Some(true) => {
            "failed, retried on the error's word: nothing showed this failure was safe to repeat"
        }
        (Tone::Blind, true) => "failed, retried blindly: nothing said a retry was safe",
        // Not tried again by the harness, but the model made the same call again.
        (Tone::Blind, false) => {
            "failed; the same call was made again, \
             with nothing to show it was safe"
        }
        (Tone::Overturned, true) => {
            "failed, retried until a later try went through: \
             the answer changed only because it was asked again"
        }
        (Tone::Overturned, false) => {
            "failed; the same call was made again until a try went through: \
             the answer changed only because it was asked again"
        }
        (Tone::Settled, _) => "failed, uncertain: a read settled it",
        (Tone::Checked, _) => "failed, uncertain: a read found nothing, so it was tried again",
    }
}

/// An attempt's headline: what the model's own read of an earlier failure found (as the
/// harness's read says it), else how the attempt went; a try the attempt cap ended says so,
/// whatever came after it (the model calling again is a call of its own).
pub(crate) fn attempt_words(ev: &Told<'_>) -> std::borrow::Cow<'static, str> {
    let Event::Attempt { found, retryable, capped, .. } = ev.event else {
        return "".into();
    };
    let (tone, retried, repeated) = (ev.tone(), ev.retried(), ev.repeated());
    match (found, capped) {
        (Some(true), _) => "worked: it went through, nothing to repeat".into(),
        (Some(false), _) => "worked: it did not go through, safe to try again".into(),
        (None, Some(cap)) if !retried => {
            let words = tone_words(tone, false, repeated, *retryable);
            format!("{words}: the cap of {cap} attempts was reached").into()
        }
        (None, _) => tone_words(tone, retried, repeated, *retryable).into(),
    }
}

/// What an attempt's card says under its headline: the failure's words, else the result in
/// words, else the result itself.
pub(crate) fn attempt_said(event: &Event) -> String {
    let Event::Attempt { details, message, summary, output, .. } = event else {
        return String::new();
    };
    let result = || crate::replay::recordings::canonical(output);
    let said = failure_body(details, message.as_deref());
    said.unwrap_or_else(|| summary.clone().unwrap_or_else(result))
}

/// A failure's body: what it says of itself (from the lesson's keys), then its message.
pub(crate) fn failure_body(details: &[Detail], message: Option<&str>) -> Option<String> {
    let details: Vec<String> = details.iter().map(Detail::to_string).collect();
    match message {
        Some(m) if !details.is_empty() => Some(format!("{}: {m}", details.join(", "))),
        Some(m) => Some(m.to_string()),
        None if !details.is_empty() => Some(details.join(", ")),
        None => None,
    }
}

pub(crate) const BLOCK_LABEL: &str =
    "the tool_result block the model receives (the Messages API spells the flag is_error)";

/// What a failure says of itself, in a card's words: "category transient", "not retryable".
impl std::fmt::Display for Detail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Detail::Category(Some(c)) => write!(f, "category {c}"),
            Detail::Category(None) => f.write_str("no category"),
            Detail::Retryable(Some(true)) => f.write_str("retryable"),
            Detail::Retryable(Some(false)) => f.write_str("not retryable"),
            Detail::Retryable(None) => f.write_str("no retry flag"),
            Detail::Verify(Some(tool)) => write!(f, "verify {tool}"),
            Detail::Verify(None) => f.write_str("no verify"),
            Detail::Kind(kind) => f.write_str(kind),
        }
    }
}

/// Under an API error: what the refusal means for the run.
pub(crate) const API_REFUSES: &str =
    "The Messages API refuses this request, so the model never sees it and the run ends here.";

/// A turn replayed through a kind, in words: what it was recorded for.
pub(crate) fn by_kind_words(swap: &ByKind) -> String {
    format!("recorded for a different {}, of the same kind: {}", swap.words, swap.says)
}

/// A note's card text: the words, and where in the message they were put.
pub(crate) fn note_words(text: &str, after_results: bool) -> String {
    let place = if after_results { "after the tool results" } else { "before a tool result" };
    format!("{text}\n[a text block in the same message, {place}]")
}

/// What the `no_recording` card says of words the replies depend on by kind: the kind they are
/// of and the kinds recorded (in words too with `--expand`).
pub(crate) fn unanswered(w: &Unanswered, expand: bool) -> String {
    let named =
        |id: &str, says: &str| if expand { format!("{id} ({says})") } else { id.to_string() };
    let recorded: Vec<String> = w.recorded.iter().map(|k| named(&k.kind, &k.says)).collect();
    let recorded = if recorded.is_empty() { "none".to_string() } else { recorded.join("; ") };
    let has_reply = |id: &str| w.recorded.iter().any(|k| k.kind == id);
    let words = &w.words;
    match (&w.kind, &w.says) {
        (Some(kind), Some(says)) if has_reply(kind) => format!(
            "your {words} is of the kind {}, which has a reply: something else in the request differs. Kinds recorded: {recorded}.",
            named(kind, says)
        ),
        (Some(kind), Some(says)) => {
            format!("your {words} is of the kind {}, with no reply. Kinds recorded: {recorded}.", named(kind, says))
        }
        _ => format!("your {words} is of none of the lesson's kinds. Kinds recorded: {recorded}."),
    }
}

/// A read's label and what it does: `Verify` and "reads lookup_orders first", then `Verify 2`.
pub(crate) fn verify_label(tool: &str, number: u32) -> (String, String) {
    match number {
        1 => ("Verify".to_string(), format!("reads {tool} first")),
        n => (format!("Verify {n}"), format!("reads {tool} again")),
    }
}

/// What one try of a harness read found, in words.
pub(crate) fn verify_words(found: Option<bool>, retried: bool) -> &'static str {
    match (found, retried) {
        (Some(true), _) => "it went through: nothing to repeat",
        (Some(false), _) => "it did not go through: safe to try again",
        (None, true) => "the read failed: a read changes nothing, so it runs again",
        (None, false) => "the read failed: still unknown",
    }
}

/// An API error the host met, in words: its line, and what the host did about it.
pub(crate) fn host_error_words(
    status: Option<u16>,
    error_type: &str,
    message: &str,
    retry_after_ms: Option<u64>,
    wait_ms: Option<u64>,
    by_client: bool,
) -> (String, String) {
    let mut line = match status {
        Some(status) => format!("{status} {error_type}: {message}"),
        None => format!("timeout: {message}"),
    };
    if let Some(ms) = retry_after_ms {
        line.push_str(&format!(" (retry-after {})", clock(ms)));
    }
    let then = match wait_ms {
        Some(ms) if by_client => format!(
            "The client waits {} and sends the same request again by itself (its max_retries).",
            clock(ms)
        ),
        Some(ms) => format!("The host waits {} and sends the same request again.", clock(ms)),
        None => "The host sends it no more: the run ends here.".to_string(),
    };
    (line, format!("The host's to handle in code; the model never sees it. {then}"))
}

/// An API error's label: `API error`, then `API error 2` for the request sent again.
pub(crate) fn host_label(number: u32) -> String {
    if number > 1 {
        format!("API error {number}")
    } else {
        "API error".to_string()
    }
}

/// A cap that ended the run, in words.
pub(crate) fn capped_words(by: &str, turns: usize, elapsed_ms: u64, limit: Option<u64>) -> String {
    let turns = crate::render::count(turns, "model turn");
    let spent = clock(elapsed_ms);
    match (by, limit) {
        ("max_turns", Some(limit)) => format!(
            "the host stopped the run after {turns}, its cap of {limit} \
({spent} on the replay's clock)"
        ),
        ("time_budget", Some(limit)) => format!(
            "the host stopped the run at {spent} on the replay's clock, \
its budget of {}, after {turns}",
            clock(limit)
        ),
        _ => format!("the code stopped the run after {turns} ({spent} on the replay's clock)"),
    }
}

/// Under a cap's card, and under what the host told the person.
pub(crate) const CAP_ENDS: &str = "The model never gave a final answer: the run ends here.";
pub(crate) const TOLD_WHO: &str = "[to the person, from the host's code; the model never sees it]";

/// Under a reply the model did not finish: why it stopped.
pub(crate) fn stop_words(stop_reason: &str) -> String {
    match stop_reason {
        "max_tokens" => "[cut off: the reply reached max_tokens]".to_string(),
        "refusal" => "[the model refused: stop_reason refusal]".to_string(),
        other => format!("[stop_reason {other}]"),
    }
}

/// "2 s", "0.5 s", "1 min 30 s": a time on the replay's clock.
pub(crate) fn clock(ms: u64) -> String {
    let seconds = ms as f64 / 1000.0;
    if seconds >= 60.0 {
        let minutes = (seconds / 60.0).floor();
        return format!("{minutes} min {} s", (seconds - minutes * 60.0).round());
    }
    format!("{seconds} s")
}
