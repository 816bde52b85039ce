//! What the message that answers a turn sent for each call: the `tool_result` block the model
//! receives, shown under the try it came from, and whether it gave away a failure's internal
//! text. Worked out before the turn's events are pushed, so no event is edited afterwards.

use std::collections::BTreeMap;

use serde_json::Value;

use super::answer::Answered;
use super::harness::Policy;

use crate::lesson::expect::{Property, Wording};
use crate::lesson::Runtime;
use crate::replay::events::Event;
use crate::replay::received::{block_text, received, Reading, Received};
use crate::world::Setting;

/// The message that answers a turn, as it was sent, and what the record of it needs.
pub(super) struct SentReply<'a> {
    pub(super) messages: &'a [Value],
    /// What the answer hook printed.
    pub(super) printed: &'a str,
    pub(super) runtime: Runtime,
    pub(super) setting: &'a dyn Setting,
    pub(super) wording: &'a [Wording],
    pub(super) properties: &'a BTreeMap<String, Property>,
    /// How the lesson reads a failure's keys: a result shaped as a failure is one, flag or not.
    pub(super) policy: Policy<'a>,
    /// The protocol error the request carrying these messages gets, when it breaks a rule.
    pub(super) refused: Option<&'a str>,
}

/// The turn's events, completed with what the answering message sent: the block under each
/// call's last attempt (or the read that settled it), a leak marked on the attempt it came from,
/// and what the answer hook printed on the turn's last attempt.
pub(super) fn complete(
    mut turn: Vec<Event>,
    results: &[Answered],
    sent: &SentReply<'_>,
) -> Vec<Event> {
    let SentReply { messages, printed, runtime, setting, .. } = *sent;
    if !printed.is_empty() {
        let last = turn.iter_mut().rev().find_map(|e| match e {
            Event::Attempt { printed, .. } => Some(printed),
            _ => None,
        });
        if let Some(last) = last {
            last.push_str(printed);
        }
    }
    let blocks: Vec<&Value> = messages
        .iter()
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flatten()
        .collect();
    for answered in results {
        let block = blocks
            .iter()
            .find(|b| b.get("tool_use_id").and_then(Value::as_str) == Some(answered.id.as_str()))
            .map(|b| (*b).clone());
        if leaked(answered, block.as_ref(), setting) {
            let last = turn.iter_mut().rev().find_map(|e| match e {
                Event::Attempt { tool_use_id, leaked, .. } if *tool_use_id == answered.id => {
                    Some(leaked)
                }
                _ => None,
            });
            if let Some(slot) = last {
                *slot = true;
            }
        }
        let settled = answered.run.settled.is_some();
        let last = turn.iter_mut().rev().find_map(|e| match e {
            Event::Verify { tool_use_id, wire, .. } if settled && *tool_use_id == answered.id => {
                Some(wire)
            }
            Event::Attempt { tool_use_id, wire, block, .. } if *tool_use_id == answered.id => {
                Some(if runtime == Runtime::Sdk { block } else { wire })
            }
            _ => None,
        });
        let record = reading(answered, block.as_ref(), sent);
        if let Some(slot) = last {
            *slot = block;
        }
        // The last attempt of the call is what went back; the harness's earlier tries of it
        // never reached the model.
        let mut tries = turn.iter_mut().rev().filter_map(|e| match e {
            Event::Attempt { tool_use_id: id, received: r, .. } if *id == answered.id => Some(r),
            _ => None,
        });
        if let Some(last) = tries.next() {
            *last = Some(Box::new(record));
        }
        for earlier in tries {
            *earlier = Some(Box::new(Received::nothing()));
        }
    }
    turn
}

/// What the model received for a call: its block, read against the failure it answers.
fn reading(answered: &Answered, block: Option<&Value>, sent: &SentReply<'_>) -> Received {
    // The world's failure, unless a read settled it, and whether the code's result was one.
    let last = answered.run.attempts.last().filter(|_| answered.run.settled.is_none());
    let failure = last.and_then(|a| a.cause.as_ref());
    let failed = last.is_some_and(|a| a.failed);
    // A result that says of itself what failure it is (a category, a retry flag) is one even
    // without the flag; a valid answer the code made of it (an empty list) is not.
    let shaped = last.is_some_and(|a| {
        let seen = sent.policy.seen(&a.result);
        seen.category.is_some() || seen.retryable.is_some()
    });
    let mut asked = Vec::new();
    strings(&answered.run.input, &mut asked);
    let (refused, wording, properties) = (sent.refused, sent.wording, sent.properties);
    let call = (answered.run.tool.as_str(), &answered.run.input);
    let asked = &asked;
    let reading =
        Reading { block, refused, failure, failed, shaped, asked, wording, properties, call };
    received(&reading, sent.setting)
}

/// Whether the block sent for a call passed on the world's internal text of its failure as it was.
fn leaked(answered: &Answered, block: Option<&Value>, setting: &dyn Setting) -> bool {
    let cause = answered.run.attempts.last().and_then(|a| a.cause.as_ref());
    let internal = cause.filter(|c| setting.internal(&c.category));
    let mut asked = Vec::new();
    strings(&answered.run.input, &mut asked);
    internal.is_some_and(|c| block.is_some_and(|b| gives_away(&block_text(b), &c.message, &asked)))
}

/// Every string in a call's input: the model's own words, which its failure's text may repeat.
fn strings<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// Whether text sent to the model gives away a failure's internal text: all of it, a piece of it
/// word for word (as a check's `quotes` counts one: the traceback's first line; what the call
/// `asked`, the model's own words, cut out), or one of its telling words (a host, a path, a
/// credential: eight characters or more with a `.`, `-` or `/` inside), so a sentence that keeps
/// only the host name still counts.
fn gives_away(text: &str, internal: &str, asked: &[&str]) -> bool {
    let internal = internal.trim();
    let quoted = crate::lesson::expect::quoted_piece(text, internal, asked);
    if text.contains(internal) || quoted.is_some() {
        return true;
    }
    internal
        .split(|c: char| c.is_whitespace() || "\"'(),=@:".contains(c))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.chars().count() >= 8 && w.contains(['.', '-', '/']))
        .any(|w| text.contains(w))
}

#[cfg(test)]
mod tests {
    use super::gives_away;

    const CRASH: &str = "Traceback (most recent call last):\n  File \"/srv/app/db.py\", line 9\n\
        ValidationError(namespace='payment') code=E-VAL";

    #[test]
    fn a_quoted_piece_gives_away_the_crash_and_the_models_own_words_do_not() {
        assert!(gives_away("It failed (Traceback (most recent call last)).", CRASH, &[]));
        assert!(gives_away("See /srv/app/db.py.", CRASH, &[]));
        let own = "namespace='payment' matches nothing; try again.";
        assert!(gives_away(own, CRASH, &[]));
        assert!(!gives_away(own, CRASH, &["payment"]));
        assert!(!gives_away("The lookup failed on our side; the call was fine.", CRASH, &[]));
    }
}
