//! The card of a replay's dead end, where no recording answers the request: why it stops, what
//! the model would now receive, where the request differs from the closest recorded one, and how
//! to get a reply.

use serde_json::Value;

use super::changes::word_changes;
use super::words::unanswered;
use super::{card, raw, Look, LABEL};
use crate::render::styled::Line;
use crate::render::styles::{Glyphs, Role};
use crate::replay::events::Event;

/// Most screen lines a compact card gives what the model would be sent, and each changed line
/// of the diff.
const SENT_LINES: usize = 2;
const DIFF_LINE_ROWS: usize = 2;
/// Most changed lines of the diff a compact card shows.
const DIFF_LINES: usize = 2;

/// The card of a `NoRecording` event: the dead end, and under it the kinds of the words the
/// replies depend on (above "To go on", which stays the card's last line).
pub(super) fn dead_end(out: &mut Vec<Line>, look: &Look, ev: &Event) {
    let Event::NoRecording { sent, closest, diff, explanation, next, words } = ev else {
        return;
    };
    let mut own = Vec::new();
    no_recording(&mut own, look, sent, closest.as_deref(), diff, explanation, next);
    if !words.is_empty() {
        let mut tail = Vec::new();
        to_go_on(&mut tail, look, next);
        own.truncate(own.len() - tail.len());
        for w in words {
            card(&mut own, look, 0, "Kind", Role::Label, &unanswered(w, look.expand));
        }
        own.extend(tail);
    }
    out.extend(own);
}

/// The dead end of a replay, compact: why it stops, what the model would now receive, where the
/// request differs from the closest recorded one (its changed lines, wrapped to the width) and
/// how to get a reply. `--expand` shows the whole request and the whole diff.
fn no_recording(
    out: &mut Vec<Line>,
    look: &Look,
    sent: &Value,
    closest: Option<&str>,
    diff: &str,
    explanation: &str,
    next: &str,
) {
    let more = if look.glyphs.dot == Glyphs::ASCII.dot { "..." } else { "…" };
    let room = look.width.saturating_sub(LABEL).max(20);
    card(out, look, 0, "No recording", Role::Bad, explanation);
    if look.expand {
        raw(out, look, "the model would now receive:", sent);
    } else {
        let summary = format!("the model would now receive: {}", sent_in_words(sent));
        card(out, look, 0, "", Role::Dim, &rows(&summary, room, SENT_LINES, more).join("\n"));
    }
    if let Some(place) = closest {
        card(out, look, 0, "Closest", Role::Label, &format!("{place} (-)"));
    }
    let lines: Vec<String> = crate::text::inert::text(diff).lines().map(String::from).collect();
    let shown = if look.expand {
        lines.iter().flat_map(|l| diff_rows(l, room)).collect()
    } else {
        changed_lines(&lines, room, more)
    };
    for line in shown {
        let style = if line.starts_with('+') && !line.starts_with("+++") {
            Role::Good
        } else if line.starts_with('-') && !line.starts_with("---") {
            Role::Bad
        } else {
            Role::Dim
        };
        out.push(Line::plain(" ".repeat(LABEL)).with(style, line));
    }
    let changes = word_changes(diff);
    if !changes.is_empty() {
        let text = if look.expand {
            changes.join("\n")
        } else {
            rows(&changes[0], room, 1, more).join("")
        };
        card(out, look, 0, "In short", Role::Label, &text);
        if !look.expand && changes.len() > 1 {
            card(
                out,
                look,
                0,
                "",
                Role::Dim,
                &format!("{} changes; --expand shows them all", changes.len()),
            );
        }
    }
    to_go_on(out, look, next);
}

/// The card's last line: how to get a reply.
fn to_go_on(out: &mut Vec<Line>, look: &Look, next: &str) {
    card(out, look, 0, "To go on", Role::Label, next);
}

/// What the model would be sent, in a line: each block's kind and its text.
fn sent_in_words(sent: &Value) -> String {
    let blocks = match sent {
        Value::Array(blocks) => blocks.clone(),
        Value::String(text) => return text.clone(),
        other => vec![other.clone()],
    };
    let parts: Vec<String> = blocks
        .iter()
        .map(|b| {
            let kind = b.get("type").and_then(Value::as_str).unwrap_or("block");
            let text = match b.get("content").or_else(|| b.get("text")) {
                Some(Value::String(t)) => t.clone(),
                Some(Value::Array(items)) => items
                    .iter()
                    .filter_map(|i| i.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join(" "),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            let flag =
                if b.get("is_error") == Some(&Value::Bool(true)) { ", is_error" } else { "" };
            format!("{kind}{flag}: {text}")
        })
        .collect();
    parts.join("; ")
}

/// Text wrapped to `room`, at most `most` rows, the last cut with `more` when there is more.
fn rows(text: &str, room: usize, most: usize, more: &str) -> Vec<String> {
    // Fill each row: these rows are cut, so balanced rows would hide more of the text.
    let options = textwrap::Options::new(room)
        .break_words(true)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .wrap_algorithm(textwrap::WrapAlgorithm::FirstFit)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    let mut pieces: Vec<String> =
        textwrap::wrap(text, options).into_iter().map(|c| c.into_owned()).collect();
    if pieces.len() > most {
        pieces.truncate(most.max(1));
        if let Some(last) = pieces.last_mut() {
            let keep = room.saturating_sub(more.chars().count());
            *last = format!("{}{more}", last.chars().take(keep).collect::<String>().trim_end());
        }
    }
    pieces
}

/// A diff line wrapped to `room` (at spaces where it has them, anywhere in a long JSON token),
/// the rows after the first indented under its text.
fn diff_rows(line: &str, room: usize) -> Vec<String> {
    let indent = match line.char_indices().nth(1) {
        Some((_, ' ')) if line.starts_with(['-', '+', ' ']) => "  ",
        _ => "",
    };
    let options = textwrap::Options::new(room.max(10))
        .break_words(true)
        .wrap_algorithm(textwrap::WrapAlgorithm::FirstFit)
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
        .subsequent_indent(indent);
    let rows: Vec<String> =
        textwrap::wrap(line, options).into_iter().map(|c| c.into_owned()).collect();
    if rows.is_empty() {
        vec![line.to_string()]
    } else {
        rows
    }
}

/// The diff's changed lines, each starting a little before where it first differs from its
/// pair and cut to a few rows, and a count of the ones left out.
fn changed_lines(lines: &[String], room: usize, more: &str) -> Vec<String> {
    let changed: Vec<&String> = lines
        .iter()
        .filter(|l| {
            (l.starts_with('-') && !l.starts_with("---"))
                || (l.starts_with('+') && !l.starts_with("+++"))
        })
        .collect();
    let removed: Vec<&String> = changed.iter().copied().filter(|l| l.starts_with('-')).collect();
    let added: Vec<&String> = changed.iter().copied().filter(|l| l.starts_with('+')).collect();
    let mut out = Vec::new();
    for line in changed.iter().take(DIFF_LINES) {
        let body: Vec<char> = line[1..].chars().collect();
        // Where this line parts from its pair: the first removed line against the first added.
        let pair = if line.starts_with('-') { added.first() } else { removed.first() };
        let from = match pair {
            Some(other) => {
                let other: Vec<char> = other[1..].chars().collect();
                body.iter().zip(&other).take_while(|(a, b)| a == b).count()
            }
            None => body.iter().take_while(|c| c.is_whitespace()).count(),
        };
        // Start a little before the change, at a word or a field if one is near.
        let indent = body.iter().take_while(|c| c.is_whitespace()).count();
        let near = from.saturating_sub(8);
        let start = (near.saturating_sub(32)..near)
            .rev()
            .find(|&i| matches!(body.get(i), Some(' ' | ',')))
            .map_or(near, |i| i + 1)
            .max(indent);
        let mut text: String = body[start..].iter().collect();
        if start > indent {
            text = format!("{more}{text}");
        }
        let sign = &line[..1];
        for (i, row) in rows(&text, room.saturating_sub(2).max(10), DIFF_LINE_ROWS, more)
            .into_iter()
            .enumerate()
        {
            out.push(format!("{} {row}", if i == 0 { sign } else { " " }));
        }
    }
    if changed.len() > DIFF_LINES {
        out.push(format!(
            "  {} more changed lines: --expand shows the whole diff",
            changed.len() - DIFF_LINES
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{changed_lines, diff_rows};

    #[test]
    fn a_changed_line_starts_near_where_it_differs_and_is_cut_to_two_rows() {
        let old = format!("-{}\"message\":\"Too old.\"{}", " ".repeat(10), "x".repeat(300));
        let new = format!("+{}\"message\":\"Far too old.\"{}", " ".repeat(10), "x".repeat(300));
        let rows = changed_lines(&[old, new], 40, "…");
        assert_eq!(rows.len(), 4, "{rows:?}");
        assert!(rows.iter().all(|r| r.chars().count() <= 40), "{rows:?}");
        assert!(rows[0].starts_with("- \"message\":\"Too"), "{rows:?}");
        assert!(rows[2].starts_with("+ \"message\":\"Far too"), "{rows:?}");
        assert!(rows[1].ends_with('…') && rows[3].ends_with('…'), "{rows:?}");
    }

    #[test]
    fn more_changed_lines_than_a_card_shows_are_counted() {
        let lines: Vec<String> = ["-a", "-b", "+c", "+d"].iter().map(|l| l.to_string()).collect();
        let rows = changed_lines(&lines, 60, "...");
        assert_eq!(rows.last().unwrap(), "  2 more changed lines: --expand shows the whole diff");
    }

    #[test]
    fn a_long_diff_line_wraps_under_its_text() {
        let rows = diff_rows(&format!("+ {}", "y".repeat(50)), 20);
        assert!(rows.len() > 2, "{rows:?}");
        assert!(rows.iter().all(|r| r.chars().count() <= 20), "{rows:?}");
        assert!(rows[1].starts_with("  y"), "{rows:?}");
    }
}
