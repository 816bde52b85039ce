//! The events a tool call's runs become, each a fact pushed once: every attempt with what its
//! failure says of itself, every try of a harness read, every backoff, and the notes of the
//! message that answers a turn.

use serde_json::{json, Value};

use super::harness::{self, ToolRun};
use super::Conversation;
use crate::lesson::Runtime;
use crate::replay::events::{Detail, Event};

impl Conversation<'_, '_> {
    /// What a failure's card says of it: the fields the lesson's failures carry (or lack), or,
    /// where the runtime itself shapes failures, the kind of failure it was.
    fn details(&self, seen: &crate::world::Seen, attempt: &harness::Attempt) -> Vec<Detail> {
        let Some(shape) =
            self.lesson.failure.as_ref().filter(|_| self.lesson.hooks.build.is_some())
        else {
            let kind = attempt.result.get("kind").and_then(Value::as_str);
            return kind.map(|k| vec![Detail::Kind(k.to_string())]).unwrap_or_default();
        };
        let mut out = Vec::new();
        if shape.category.is_some() {
            out.push(Detail::Category(seen.category.clone()));
        }
        if shape.retryable.is_some() {
            out.push(Detail::Retryable(seen.retryable));
        }
        if shape.verify.is_some() {
            out.push(Detail::Verify(self.policy.named_read(&attempt.result).map(|(tool, _)| tool)));
        }
        out
    }

    /// Whether a failed result carries nothing a reader could act on: no category, no retry
    /// flag, no read to run, and not the tool's own message (a bare `Error` is a word, not news).
    fn says_nothing(&self, seen: &crate::world::Seen, attempt: &harness::Attempt) -> bool {
        let told = match (&seen.message, &attempt.cause) {
            (Some(message), Some(cause)) => message.contains(cause.message.trim()),
            (Some(message), None) => !message.trim().is_empty(),
            (None, _) => false,
        };
        seen.category.is_none()
            && seen.retryable.is_none()
            && !told
            && self.policy.named_read(&attempt.result).is_none()
    }

    /// The failed call this call checks, when it is the read the world named for it: the
    /// latest such call, and what the read found when it answered.
    fn read_of(
        &self,
        tool: &str,
        input: &Value,
        attempt: &harness::Attempt,
    ) -> (Option<String>, Option<bool>) {
        let named = json!({"tool": tool, "input": input});
        let of = self
            .named_reads
            .iter()
            .rev()
            .find(|(_, read)| *read == named)
            .map(|(id, _)| id.clone());
        let found =
            of.as_ref().filter(|_| !attempt.failed).map(|_| self.world.found(&attempt.result));
        (of, found)
    }

    pub(super) fn push_attempts(
        &mut self,
        tool_use_id: &str,
        run: &ToolRun,
        prior: u32,
        wire: Option<Value>,
        tool: &str,
    ) {
        let setting = self.lesson.setting();
        for (i, attempt) in run.attempts.iter().enumerate() {
            // The last try failed with every attempt the harness allows used: the cap ended it.
            let capped = (attempt.failed
                && i + 1 == run.attempts.len()
                && run.limit > 1
                && attempt.number == run.limit)
                .then_some(run.limit);
            let seen =
                if attempt.failed { self.policy.seen(&attempt.result) } else { Default::default() };
            let message = seen.message.clone().or_else(|| {
                attempt.result.get("message").and_then(Value::as_str).map(String::from)
            });
            let details = if attempt.failed { self.details(&seen, attempt) } else { Vec::new() };
            let bare = attempt.failed && self.says_nothing(&seen, attempt);
            // Only the model's own calls can be its reads; the harness's are Verify events.
            let (read_of, found) = match self.runtime {
                Runtime::Sdk => self.read_of(tool, &run.input, attempt),
                Runtime::Harness => (None, None),
            };
            if let Some(verify) = attempt.cause.as_ref().and_then(|c| c.verify.clone()) {
                self.named_reads.push((tool_use_id.to_string(), verify));
            }
            self.turn.push(Event::Attempt {
                tool_use_id: tool_use_id.to_string(),
                number: prior + attempt.number,
                output: attempt.result.clone(),
                failed: attempt.failed,
                category: seen.category,
                retryable: seen.retryable,
                message,
                details,
                cause: attempt.cause.as_ref().map(|c| c.category.clone()),
                summary: (!attempt.failed).then(|| setting.summary(&attempt.result)).flatten(),
                said: attempt.said.clone(),
                retried: attempt.wait.is_some(),
                wire: wire.clone(),
                printed: attempt.output.clone(),
                answer: attempt.retry.clone(),
                bare,
                read_of,
                found,
                block: None,
                uncertain: attempt.cause.as_ref().is_some_and(|c| c.verify.is_some()),
                leaked: false,
                capped,
                received: None,
            });
            if let Some(read) = &attempt.read {
                self.push_read(tool_use_id, read);
            }
            if let Some(wait) = attempt.wait {
                self.turn.push(Event::Wait { ms: wait.as_millis() as u64 });
            }
        }
    }

    /// Every try of a read the harness ran, each its own event.
    fn push_read(&mut self, tool_use_id: &str, read: &ToolRun) {
        let tries = read.attempts.len();
        for (i, attempt) in read.attempts.iter().enumerate() {
            // A try that answered without finding anything found nothing, as the harness reads it.
            let found = (!attempt.failed).then(|| self.world.found(&attempt.result));
            let seen = self.policy.seen(&attempt.result);
            let details = if attempt.failed { self.details(&seen, attempt) } else { Vec::new() };
            self.turn.push(Event::Verify {
                tool_use_id: tool_use_id.to_string(),
                tool: read.tool.clone(),
                input: read.input.clone(),
                number: attempt.number,
                failed: attempt.failed,
                retried: i + 1 < tries,
                found,
                message: seen.message,
                details,
                cause: attempt.cause.as_ref().map(|c| c.category.clone()),
                output: attempt.result.clone(),
                wire: None,
            });
        }
    }
}

/// In the SDK runtime a retry is the model calling the same tool with the same input again:
/// how many attempts of such calls came before the call just made (its `ToolCall` is the last
/// of `events`, and does not count).
pub(super) fn earlier_attempts<'e>(
    events: impl Iterator<Item = &'e Event>,
    tool: &str,
    input: &Value,
) -> u32 {
    let mut earlier = 0;
    let mut same_call = false;
    for event in events {
        match event {
            Event::ToolCall { tool: t, input: x, .. } => same_call = t == tool && x == input,
            Event::Attempt { .. } if same_call => earlier += 1,
            _ => {}
        }
    }
    earlier
}

/// A card for each text block of the messages that answer a turn: everything the model reads
/// is on a card, the results under their attempts and the rest here.
pub(super) fn notes(messages: &[Value]) -> Vec<Event> {
    let mut out = Vec::new();
    for blocks in messages.iter().filter_map(|m| m.get("content").and_then(Value::as_array)) {
        for (i, block) in blocks.iter().enumerate() {
            if block.get("type").and_then(Value::as_str) != Some("text") {
                continue;
            }
            let text = block.get("text").and_then(Value::as_str).unwrap_or_default().to_string();
            let after_results = !blocks[i..]
                .iter()
                .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"));
            out.push(Event::Note { text, after_results });
        }
    }
    out
}
