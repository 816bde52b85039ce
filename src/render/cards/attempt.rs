//! The cards of a tool's executions: an attempt (its headline coloured by the story's
//! judgement, what the failure says, what the code printed) and a try of a harness read, with
//! what `--expand` shows behind each.

use serde_json::Value;

use super::words::{
    attempt_said, attempt_words, failure_body, verify_label, verify_words, BLOCK_LABEL,
};
use super::{card, note, raw, shortened, Look};
use crate::render::styled::Line;
use crate::render::styles::Role;
use crate::replay::events::{Event, Told, Tone};

fn tone_role(tone: Tone) -> Role {
    match tone {
        Tone::Worked => Role::Good,
        Tone::Retried | Tone::Checked => Role::Warn,
        Tone::Wasted | Tone::Dropped => Role::Bad,
        Tone::Reported | Tone::Settled => Role::Strong,
        Tone::Blind | Tone::Overturned => Role::Bad,
    }
}

/// An attempt's card: its headline, what the failure says, what the code printed, and with
/// `--expand` the tool's own result and the `tool_result` block it became.
pub(super) fn attempt(out: &mut Vec<Line>, look: &Look, ev: &Told<'_>) {
    let Event::Attempt { number, failed, said, printed, .. } = ev.event else {
        return;
    };
    let mark = if *failed { look.glyphs.fail } else { look.glyphs.pass };
    let words = attempt_words(ev);
    let headline = format!("{mark} {words}");
    card(out, look, 2, &format!("Attempt {number}"), tone_role(ev.tone()), &headline);
    card(out, look, 0, "", Role::Dim, &attempt_said(ev.event));
    // The world's own lines, as it wrote them.
    for line in said {
        card(out, look, 0, "", Role::Emphasis, line);
    }
    if !printed.trim().is_empty() {
        card(out, look, 0, "", Role::Dim, &format!("printed: {}", shortened(printed, look)));
    }
    if look.expand {
        expanded(out, look, ev);
    }
}

const NO_RETRY: &str = "no retry followed";
const READ_INSTEAD: &str = "the model is given the read's answer for this call instead (below)";
const TRIED_AGAIN: &str = "never sent to the model: the harness tried again";
const READ_AGAIN: &str = "never sent to the model: the harness read again";

/// What `--expand` shows under an attempt or a read (and a page behind its expander): each
/// JSON value with its label, or a note.
pub(crate) enum Behind<'e> {
    Json(String, &'e Value),
    Note(String),
}

/// An attempt's or a read's raw side, in order: what the tool returned, and what of it reached
/// the model.
pub(crate) fn behind<'e>(ev: &Told<'e>) -> Vec<Behind<'e>> {
    let mut parts = Vec::new();
    let (tone, retried) = (ev.tone(), ev.retried());
    match ev.event {
        Event::Attempt { output, wire, block, capped, .. } => {
            parts.push(Behind::Json("the tool returned".into(), output));
            if let Some(cap) = capped.filter(|_| !retried) {
                let why = format!("the cap of {cap} attempts ended the call here: {NO_RETRY}");
                parts.push(Behind::Note(why));
            }
            match wire {
                Some(wire) if wire.get("type").and_then(Value::as_str) == Some("tool_result") => {
                    parts.push(Behind::Json(BLOCK_LABEL.into(), wire));
                }
                Some(wire) => {
                    let mcp = "MCP CallToolResult (the Python SDK spells isError as is_error)";
                    parts.push(Behind::Json(mcp.into(), wire));
                    if let Some(block) = block {
                        parts.push(Behind::Json(
                            "the tool_result block it became for the model".into(),
                            block,
                        ));
                    }
                }
                // The harness's own tries: only the last reaches the model.
                None if tone == Tone::Settled => parts.push(Behind::Note(READ_INSTEAD.into())),
                None if retried => parts.push(Behind::Note(TRIED_AGAIN.into())),
                None => {}
            }
        }
        Event::Verify { tool, input, output, wire, retried, .. } => {
            parts.push(Behind::Json(format!("{tool} input"), input));
            parts.push(Behind::Json("the read returned".into(), output));
            match wire {
                Some(wire) => parts.push(Behind::Json(BLOCK_LABEL.into(), wire)),
                None if *retried => parts.push(Behind::Note(READ_AGAIN.into())),
                None => {}
            }
        }
        _ => {}
    }
    parts
}

fn expanded(out: &mut Vec<Line>, look: &Look, ev: &Told<'_>) {
    for part in behind(ev) {
        match part {
            Behind::Json(label, value) => raw(out, look, &label, value),
            Behind::Note(text) => note(out, look, &text),
        }
    }
}

/// One try of a harness read: what it found, or how it failed, and with `--expand` its input,
/// its result and the block the model receives when the read settled the call.
pub(super) fn verify(out: &mut Vec<Line>, look: &Look, ev: &Told<'_>) {
    let Event::Verify { tool, number, failed, retried, found, message, details, .. } = ev.event
    else {
        return;
    };
    let headline = verify_words(*found, *retried);
    let style = match (found, retried) {
        (Some(true), _) => Role::Good,
        (Some(false), _) | (None, true) => Role::Warn,
        (None, false) => Role::Bad,
    };
    let (label, reads) = verify_label(tool, *number);
    let mark = if *failed { look.glyphs.fail } else { look.glyphs.pass };
    card(out, look, 2, &label, style, &format!("{mark} {reads}: {headline}"));
    if let Some(body) = failure_body(details, message.as_deref()) {
        card(out, look, 0, "", Role::Dim, &body);
    }
    if look.expand {
        expanded(out, look, ev);
    }
}
