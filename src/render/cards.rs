//! The cards of a replay: one short line per event, an optional body, wrapped to the width.
//! The same functions serve the printed replay and the player.

use std::fmt::Write as _;

use serde_json::Value;

use crate::recordings::Provenance;
use crate::render::styles::{Glyphs, Styles};
use crate::replay::{Event, Replay, Tone, Verdict};

const LABEL: usize = 14;

/// How to draw cards.
#[derive(Clone, Copy, Debug)]
pub struct Look {
    pub styles: Styles,
    pub glyphs: Glyphs,
    pub width: usize,
    /// Show the raw JSON under tool calls and attempts.
    pub expand: bool,
}

/// `label  text`, the text wrapped under itself. The label is indented by `indent`; the text
/// always starts at the same column, so nested cards line up with the rest.
fn card(out: &mut String, look: &Look, indent: usize, label: &str, label_style: owo_colors::Style, text: &str) {
    let pad = " ".repeat(indent);
    let label_width = LABEL.saturating_sub(indent).max(label.chars().count() + 1);
    let room = look.width.saturating_sub(indent + label_width).max(20);
    let body_indent = " ".repeat(indent + label_width);
    let mut first = true;
    for line in text.lines() {
        let pieces = textwrap::wrap(line, textwrap::Options::new(room).break_words(true));
        let pieces = if pieces.is_empty() { vec![std::borrow::Cow::Borrowed("")] } else { pieces };
        for piece in pieces {
            if first {
                let label = format!("{label:<label_width$}");
                let _ = writeln!(out, "{pad}{}{piece}", look.styles.paint(label_style, label));
                first = false;
            } else {
                let _ = writeln!(out, "{body_indent}{piece}");
            }
        }
    }
    if first {
        let _ = writeln!(out, "{pad}{}", look.styles.paint(label_style, label));
    }
}

/// Raw JSON under a card, indented, never wrapped mid-token.
fn raw(out: &mut String, look: &Look, indent: usize, label: &str, value: &Value) {
    let pretty = serde_json::to_string_pretty(value).unwrap_or_default();
    let pad = " ".repeat(LABEL + indent);
    let _ = writeln!(out, "{pad}{}", look.styles.paint(look.styles.dim, label));
    for line in pretty.lines() {
        let _ = writeln!(out, "{pad}  {}", look.styles.paint(look.styles.code, line));
    }
}

/// Who wrote the replies of a replay, in one line.
pub fn provenance_line(events: &[Event]) -> String {
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
        (true, true) => "Replies: authored for this lesson by its authors, not a live model run.".into(),
        (false, false) => format!("Replies: recorded live from {}.", live.join(", ")),
        (true, false) => {
            format!("Replies: some authored for this lesson, some recorded live from {}.", live.join(", "))
        }
    }
}

pub fn header(replay: &Replay, look: &Look) -> String {
    let s = &look.styles;
    let dot = look.glyphs.dot;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {dot} ticket {} {dot} code {} {dot} runtime {}",
        s.paint(s.strong, &replay.lesson),
        s.paint(s.strong, &replay.ticket),
        s.paint(s.strong, &replay.code),
        s.paint(s.strong, &replay.runtime)
    );
    let _ = writeln!(out, "{}", s.paint(s.dim, provenance_line(&replay.events)));
    out
}

fn tone_style(look: &Look, tone: Tone) -> owo_colors::Style {
    match tone {
        Tone::Worked => look.styles.good,
        Tone::Retried => look.styles.warn,
        Tone::Wasted => look.styles.bad,
        Tone::Reported => look.styles.strong,
    }
}

fn tone_words(tone: Tone, retried: bool) -> &'static str {
    match (tone, retried) {
        (Tone::Worked, _) => "worked",
        (Tone::Retried, _) => "failed, transient: retried",
        (Tone::Wasted, true) => "failed, retried: a retry cannot change this answer",
        (Tone::Wasted, false) => "failed again, the same way",
        (Tone::Reported, _) => "failed, reported and not retried",
    }
}

/// One event as a card.
pub fn event(ev: &Event, look: &Look) -> String {
    let s = &look.styles;
    let mut out = String::new();
    match ev {
        Event::Customer { text } => card(&mut out, look, 0, "Customer", s.label, text),
        Event::ToolCall { tool, input, words, preface, provenance, .. } => {
            if let Some(text) = preface {
                card(&mut out, look, 0, "Agent says", s.label, &format!("{text}  [{}]", provenance.tag()));
            }
            card(&mut out, look, 0, "Agent calls", s.label, &format!("{words}  [{}]", provenance.tag()));
            if look.expand {
                raw(&mut out, look, 0, &format!("{tool} input"), input);
            }
        }
        Event::Attempt {
            number, output, failed, category, retryable, message, retried, tone, wire, printed, ..
        } => {
            let mark = if *failed { look.glyphs.fail } else { look.glyphs.pass };
            let headline = format!("{mark} {}", tone_words(*tone, *retried));
            card(&mut out, look, 2, &format!("Attempt {number}"), tone_style(look, *tone), &headline);
            let mut details = Vec::new();
            if *failed {
                details.push(match category {
                    Some(c) => format!("category {c}"),
                    None => "no category".into(),
                });
                details.push(match retryable {
                    Some(true) => "retryable".into(),
                    Some(false) => "not retryable".into(),
                    None => "no retry flag".into(),
                });
            }
            let body = match message {
                Some(m) if !details.is_empty() => format!("{}: {m}", details.join(", ")),
                Some(m) => m.clone(),
                None if !details.is_empty() => details.join(", "),
                None => summary(output),
            };
            card(&mut out, look, 0, "", s.dim, &body);
            if !printed.trim().is_empty() {
                card(&mut out, look, 0, "", s.dim, &format!("printed: {}", printed.trim_end()));
            }
            if look.expand {
                raw(&mut out, look, 0, "output", output);
                if let Some(wire) = wire {
                    raw(&mut out, look, 0, "MCP CallToolResult (the Python SDK spells isError as is_error)", wire);
                }
            }
        }
        Event::Report { report, .. } => {
            let parts: Vec<String> = ["failed", "tried", "partial", "next"]
                .iter()
                .filter_map(|k| report.get(*k).and_then(Value::as_str).map(|v| format!("{k}: {v}")))
                .collect();
            card(&mut out, look, 2, "Report", s.warn, &parts.join("\n"));
        }
        Event::Wait { ms } => {
            card(&mut out, look, 2, "wait", s.dim, &format!("{ms} ms backoff before the next attempt"))
        }
        Event::Reply { text, provenance } => {
            card(&mut out, look, 0, "Agent replies", s.label, &format!("{text}\n[{}]", provenance.tag()));
        }
        Event::NoRecording { sent, closest, diff, explanation } => {
            card(&mut out, look, 0, "No recording", s.bad, explanation);
            raw(&mut out, look, 0, "the model would have been sent:", sent);
            if let Some(place) = closest {
                let _ = writeln!(
                    out,
                    "{}{}",
                    " ".repeat(LABEL),
                    s.paint(s.dim, format!("closest recorded request: {place}"))
                );
            }
            for line in diff.lines() {
                let style = if line.starts_with('+') && !line.starts_with("+++") {
                    s.good
                } else if line.starts_with('-') && !line.starts_with("---") {
                    s.bad
                } else {
                    s.dim
                };
                let _ = writeln!(out, "{}{}", " ".repeat(LABEL), s.paint(style, line));
            }
        }
        Event::CodeError { message, call, printed } => {
            card(&mut out, look, 0, "Code error", s.bad, message);
            if let Some(call) = call {
                card(&mut out, look, 0, "", s.dim, &format!("in {call}"));
            }
            if !printed.trim().is_empty() {
                card(&mut out, look, 0, "", s.dim, &format!("printed: {}", printed.trim_end()));
            }
        }
    }
    out
}

/// A successful result without a message, in words where its shape is known.
fn summary(output: &Value) -> String {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("?").to_string();
    if let Some(order) = output.get("order") {
        return format!("order {}: {}, {}", text(order, "order_id"), text(order, "item"), text(order, "status"));
    }
    if let Some(Value::Array(orders)) = output.get("orders") {
        let ids: Vec<String> = orders.iter().map(|o| text(o, "order_id")).collect();
        return match ids.len() {
            0 => "no orders".into(),
            n => format!("{n} orders: {}", ids.join(", ")),
        };
    }
    crate::recordings::canonical(output)
}

pub fn verdict(v: &Verdict, look: &Look) -> String {
    let style = if v.wasted_retries > 0 { look.styles.bad } else { look.styles.good };
    let mut out = String::new();
    card(&mut out, look, 0, "Verdict", style, &v.text);
    out
}

/// A whole replay, as printed without pacing.
pub fn replay(replay: &Replay, look: &Look) -> String {
    let mut out = header(replay, look);
    out.push('\n');
    for ev in &replay.events {
        out.push_str(&event(ev, look));
    }
    out.push_str(&verdict(&replay.verdict, look));
    out
}

/// The marker drawn where two runs split.
pub fn split_marker(look: &Look, split: Option<usize>) -> String {
    let text = match split {
        Some(_) => " the runs split here ",
        None => " the runs never split ",
    };
    let side = look.width.saturating_sub(text.len()) / 2;
    let rule = "─".repeat(side.min(30));
    format!("{}\n", look.styles.paint(look.styles.warn, format!("{rule}{text}{rule}")))
}

/// Two runs of one ticket: what they share once, the marker, then each run's own part.
pub fn compare(a: &Replay, b: &Replay, split: Option<usize>, look: &Look) -> String {
    let s = &look.styles;
    let dot = look.glyphs.dot;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {dot} ticket {} {dot} {} against {} {dot} runtime {}",
        s.paint(s.strong, &a.lesson),
        s.paint(s.strong, &a.ticket),
        s.paint(s.strong, &a.code),
        s.paint(s.strong, &b.code),
        s.paint(s.strong, &a.runtime)
    );
    let mut all = a.events.clone();
    all.extend(b.events.iter().cloned());
    let _ = writeln!(out, "{}", s.paint(s.dim, provenance_line(&all)));
    out.push('\n');
    let common = split.unwrap_or(a.events.len());
    for ev in &a.events[..common.min(a.events.len())] {
        out.push_str(&event(ev, look));
    }
    out.push_str(&split_marker(look, split));
    for run in [a, b] {
        let _ = writeln!(out, "{}", s.paint(s.strong, format!("── {} ──", run.code)));
        for ev in &run.events[common.min(run.events.len())..] {
            out.push_str(&event(ev, look));
        }
        out.push_str(&verdict(&run.verdict, look));
        out.push('\n');
    }
    out
}
