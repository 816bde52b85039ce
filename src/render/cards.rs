//! The cards of a replay: one short line per event, an optional body, wrapped to the width.
//! The same functions serve the printed replay and the player.

use std::fmt::Write as _;

use serde_json::Value;

use crate::events::{Detail, Event, Replay, Told, Tone, Verdict};
use crate::kinds::{ByKind, Unanswered};
use crate::recordings::Provenance;
use crate::render::styles::{Glyphs, Styles};

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
/// always starts at the same column, so nested cards line up with the rest. The text can be the
/// learner's (what their code printed, raised or put in a message), so its control characters
/// are shown escaped, never sent to the terminal.
fn card(out: &mut String, look: &Look, indent: usize, label: &str, label_style: owo_colors::Style, text: &str) {
    let text = crate::inert::text(text);
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
fn raw(out: &mut String, look: &Look, label: &str, value: &Value) {
    let pretty = crate::inert::json(serde_json::to_string_pretty(value).unwrap_or_default());
    let pad = " ".repeat(LABEL);
    note(out, look, label);
    // Long lines (a tool message inside a JSON string) wrap at word boundaries, under themselves.
    let room = look.width.saturating_sub(pad.len() + 2).max(20);
    for line in pretty.lines() {
        let depth = line.len() - line.trim_start().len();
        let under = " ".repeat(depth + 2);
        let options = textwrap::Options::new(room)
            .break_words(true)
            .word_splitter(textwrap::WordSplitter::NoHyphenation)
            .subsequent_indent(&under);
        for piece in textwrap::wrap(line, options) {
            let _ = writeln!(out, "{pad}  {}", look.styles.paint(look.styles.code, piece));
        }
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
    let parts = [
        (String::new(), replay.lesson.as_str()),
        ("ticket ".to_string(), replay.ticket.as_str()),
        ("code ".to_string(), replay.code.as_str()),
        ("runtime ".to_string(), replay.runtime.as_str()),
    ];
    let mut out = String::new();
    let mut used = 0;
    for (i, (label, value)) in parts.iter().enumerate() {
        let plain = label.chars().count() + value.chars().count();
        let sep = format!(" {} ", look.glyphs.dot);
        // A long part (a code path) starts a line of its own rather than running off the edge.
        if i > 0 && used + sep.chars().count() + plain > look.width {
            out.push('\n');
            used = 0;
        } else if i > 0 {
            out.push_str(&sep);
            used += sep.chars().count();
        }
        out.push_str(label);
        out.push_str(&s.paint(s.strong, value));
        used += plain;
    }
    out.push('\n');
    for line in textwrap::wrap(&provenance_line(&replay.events), look.width.max(20)) {
        let _ = writeln!(out, "{}", s.paint(s.dim, line));
    }
    out
}

fn tone_style(look: &Look, tone: Tone) -> owo_colors::Style {
    match tone {
        Tone::Worked => look.styles.good,
        Tone::Retried | Tone::Checked => look.styles.warn,
        Tone::Wasted | Tone::Dropped => look.styles.bad,
        Tone::Reported | Tone::Settled => look.styles.strong,
        Tone::Blind => look.styles.bad,
    }
}

/// An attempt's headline. `claimed`: what the failure said about a retry, so that a blind
/// retry made on the failure's own word is not called one nothing asked for.
fn tone_words(tone: Tone, retried: bool, claimed: Option<bool>) -> &'static str {
    match (tone, retried) {
        (Tone::Worked, _) => "worked",
        (Tone::Retried, _) => "failed: retried, and a retry could help",
        (Tone::Wasted, true) => "failed, retried: a retry cannot change this answer",
        (Tone::Wasted, false) => "failed again, the same way",
        (Tone::Reported, _) => "failed, reported and not retried",
        (Tone::Dropped, _) => "failed, no result sent: the API refused the next request",
        (Tone::Blind, _) if claimed == Some(true) => {
            "failed, retried on the error's word: nothing showed this failure was safe to repeat"
        }
        (Tone::Blind, _) => "failed, retried blindly: nothing said a retry was safe",
        (Tone::Settled, _) => "failed, uncertain: a read settled it",
        (Tone::Checked, _) => "failed, uncertain: a read found nothing, so it was tried again",
    }
}

/// An attempt's headline: what the model's own read of an earlier failure found (as the
/// harness's read says it), else how the attempt went.
/// The model's own read of an earlier failure says what it found, as the harness's does; a try
/// the attempt cap ended says the cap is why.
pub(crate) fn attempt_words(
    found: Option<bool>,
    tone: Tone,
    retried: bool,
    claimed: Option<bool>,
    capped: Option<u32>,
) -> std::borrow::Cow<'static, str> {
    match (found, capped) {
        (Some(true), _) => "worked: it went through, nothing to repeat".into(),
        (Some(false), _) => "worked: it did not go through, safe to try again".into(),
        (None, Some(cap)) if tone == Tone::Reported => {
            format!("failed, reported and not retried: the cap of {cap} attempts was reached").into()
        }
        (None, _) => tone_words(tone, retried, claimed).into(),
    }
}

/// What an attempt's card says under its headline: the failure's words, else the result in
/// words, else the result itself.
pub(crate) fn attempt_said(details: &[Detail], message: Option<&str>, summary: Option<&str>, output: &Value) -> String {
    failure_body(details, message)
        .unwrap_or_else(|| summary.map_or_else(|| crate::recordings::canonical(output), str::to_string))
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

/// One event as a card.
pub fn event(ev: &Told<'_>, look: &Look) -> String {
    let s = &look.styles;
    let mut out = String::new();
    match ev.event {
        Event::Customer { text } => card(&mut out, look, 0, "Customer", s.label, text),
        Event::ToolCall { tool, input, words, preface, provenance, by_kind, .. } => {
            if let Some(text) = preface {
                // The call below is the same model turn and carries its provenance.
                card(&mut out, look, 0, "Agent says", s.label, text);
            }
            card(&mut out, look, 0, "Agent calls", s.label, &format!("{words}  [{}]", provenance.tag()));
            kind_cards(&mut out, look, by_kind);
            if look.expand {
                raw(&mut out, look, &format!("{tool} input"), input);
            }
        }
        Event::Attempt { .. } => attempt(&mut out, look, ev),
        Event::Verify { .. } => verify(&mut out, look, ev),
        Event::Report { report, .. } => {
            // The report's parts, in the order the world wrote them.
            let parts: Vec<String> = report
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| v.as_str().map(|v| format!("{k}: {v}")))
                .collect();
            card(&mut out, look, 2, "Report", s.warn, &parts.join("\n"));
        }
        Event::Note { text, after_results } => {
            card(&mut out, look, 0, "Note", s.label, &note_words(text, *after_results))
        }
        Event::Wait { ms } => {
            card(&mut out, look, 2, "wait", s.dim, &format!("{ms} ms backoff before the next attempt"))
        }
        Event::Reply { text, provenance, by_kind } => {
            card(&mut out, look, 0, "Agent replies", s.label, &format!("{text}\n[{}]", provenance.tag()));
            kind_cards(&mut out, look, by_kind);
        }
        Event::NoRecording { sent, closest, diff, explanation, next, words } => {
            no_recording(&mut out, look, sent, closest.as_deref(), diff, explanation, next);
            if !words.is_empty() {
                // Above "To go on", which stays the card's last line.
                let last = out.rfind("To go on").unwrap_or(out.len());
                let tail = out.split_off(last);
                for w in words {
                    card(&mut out, look, 0, "Kind", s.label, &unanswered(w, look.expand));
                }
                out.push_str(&tail);
            }
        }
        Event::ApiError { status, error_type, message } => {
            card(&mut out, look, 0, "API error", s.bad, &format!("{status} {error_type}: {message}"));
            card(&mut out, look, 0, "", s.dim, API_REFUSES);
        }
        Event::CodeError { message, call, printed } => {
            card(&mut out, look, 0, "Code error", s.bad, message);
            if let Some(call) = call {
                card(&mut out, look, 0, "", s.dim, &format!("in {call}"));
            }
            if !printed.trim().is_empty() {
                card(&mut out, look, 0, "", s.dim, &format!("printed: {}", shortened(printed, look)));
            }
        }
    }
    out
}

/// The label of a turn replayed through a kind: the reply was recorded for other words of the
/// same kind as the ones this run sent. `--expand` shows both.
fn kind_cards(out: &mut String, look: &Look, by_kind: &[ByKind]) {
    for swap in by_kind {
        let mut text = by_kind_words(swap);
        if look.expand {
            text.push_str(&format!("\nthis run sent: {}\nrecorded for:  {}", swap.sent, swap.recorded));
        }
        card(out, look, 0, "By kind", look.styles.warn, &text);
    }
}

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
    let named = |id: &str, says: &str| if expand { format!("{id} ({says})") } else { id.to_string() };
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

/// A dim line under a card's raw JSON (and its label above it).
fn note(out: &mut String, look: &Look, text: &str) {
    let pad = " ".repeat(LABEL);
    let room = look.width.saturating_sub(LABEL).max(20);
    for piece in textwrap::wrap(text, room) {
        let _ = writeln!(out, "{pad}{}", look.styles.paint(look.styles.dim, piece));
    }
}

/// Most screen lines a compact card gives what the model would be sent, and each changed line
/// of the diff.
const SENT_LINES: usize = 2;
const DIFF_LINE_ROWS: usize = 2;
/// Most changed lines of the diff a compact card shows.
const DIFF_LINES: usize = 2;

/// The dead end of a replay, compact: why it stops, what the model would now receive, where the
/// request differs from the closest recorded one (its changed lines, wrapped to the width) and
/// how to get a reply. `--expand` shows the whole request and the whole diff.
fn no_recording(
    out: &mut String,
    look: &Look,
    sent: &Value,
    closest: Option<&str>,
    diff: &str,
    explanation: &str,
    next: &str,
) {
    let s = &look.styles;
    let more = if look.glyphs.dot == Glyphs::ASCII.dot { "..." } else { "…" };
    let room = look.width.saturating_sub(LABEL).max(20);
    card(out, look, 0, "No recording", s.bad, explanation);
    if look.expand {
        raw(out, look, "the model would now receive:", sent);
    } else {
        let summary = format!("the model would now receive: {}", sent_in_words(sent));
        card(out, look, 0, "", s.dim, &rows(&summary, room, SENT_LINES, more).join("\n"));
    }
    if let Some(place) = closest {
        card(out, look, 0, "Closest", s.label, &format!("{place} (-)"));
    }
    let lines: Vec<String> = crate::inert::text(diff).lines().map(String::from).collect();
    let shown = if look.expand {
        lines.iter().flat_map(|l| diff_rows(l, room)).collect()
    } else {
        changed_lines(&lines, room, more)
    };
    for line in shown {
        let style = if line.starts_with('+') && !line.starts_with("+++") {
            s.good
        } else if line.starts_with('-') && !line.starts_with("---") {
            s.bad
        } else {
            s.dim
        };
        let _ = writeln!(out, "{}{}", " ".repeat(LABEL), s.paint(style, line));
    }
    let changes = word_changes(diff);
    if !changes.is_empty() {
        let text = if look.expand { changes.join("\n") } else { rows(&changes[0], room, 1, more).join("") };
        card(out, look, 0, "In short", s.label, &text);
        if !look.expand && changes.len() > 1 {
            card(out, look, 0, "", s.dim, &format!("{} changes; --expand shows them all", changes.len()));
        }
    }
    card(out, look, 0, "To go on", s.label, next);
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
                Some(Value::Array(items)) => {
                    items.iter().filter_map(|i| i.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join(" ")
                }
                Some(other) => other.to_string(),
                None => String::new(),
            };
            let flag = if b.get("is_error") == Some(&Value::Bool(true)) { ", is_error" } else { "" };
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
    let mut pieces: Vec<String> = textwrap::wrap(text, options).into_iter().map(|c| c.into_owned()).collect();
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
    let rows: Vec<String> = textwrap::wrap(line, options).into_iter().map(|c| c.into_owned()).collect();
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
        .filter(|l| (l.starts_with('-') && !l.starts_with("---")) || (l.starts_with('+') && !l.starts_with("+++")))
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
        for (i, row) in rows(&text, room.saturating_sub(2).max(10), DIFF_LINE_ROWS, more).into_iter().enumerate() {
            out.push(format!("{} {row}", if i == 0 { sign } else { " " }));
        }
    }
    if changed.len() > DIFF_LINES {
        out.push(format!("  {} more changed lines: --expand shows the whole diff", changed.len() - DIFF_LINES));
    }
    out
}

/// An attempt's card: its headline, what the failure says, what the code printed, and with
/// `--expand` the tool's own result and the `tool_result` block it became.
fn attempt(out: &mut String, look: &Look, ev: &Told<'_>) {
    let s = &look.styles;
    let Event::Attempt {
        number,
        output,
        failed,
        details,
        message,
        summary,
        said,
        printed,
        retryable,
        found,
        capped,
        ..
    } = ev.event
    else {
        return;
    };
    let mark = if *failed { look.glyphs.fail } else { look.glyphs.pass };
    let words = attempt_words(*found, ev.tone(), ev.retried(), *retryable, *capped);
    let headline = format!("{mark} {words}");
    card(out, look, 2, &format!("Attempt {number}"), tone_style(look, ev.tone()), &headline);
    card(out, look, 0, "", s.dim, &attempt_said(details, message.as_deref(), summary.as_deref(), output));
    // The world's own lines, as it wrote them.
    for line in said {
        card(out, look, 0, "", s.emphasis, line);
    }
    if !printed.trim().is_empty() {
        card(out, look, 0, "", s.dim, &format!("printed: {}", shortened(printed, look)));
    }
    if look.expand {
        expanded(out, look, ev);
    }
}

/// What `--expand` shows under an attempt or a read (and a page behind its expander): each
/// JSON value with its label, or a note.
pub(crate) enum Behind<'e> {
    Json(String, &'e Value),
    Note(&'static str),
}

/// An attempt's or a read's raw side, in order: what the tool returned, and what of it reached
/// the model.
pub(crate) fn behind<'e>(ev: &Told<'e>) -> Vec<Behind<'e>> {
    let mut parts = Vec::new();
    let (tone, retried) = (ev.tone(), ev.retried());
    match ev.event {
        Event::Attempt { output, wire, block, .. } => {
            parts.push(Behind::Json("the tool returned".into(), output));
            match wire {
                Some(wire) if wire.get("type").and_then(Value::as_str) == Some("tool_result") => {
                    parts.push(Behind::Json(BLOCK_LABEL.into(), wire));
                }
                Some(wire) => {
                    let mcp = "MCP CallToolResult (the Python SDK spells isError as is_error)";
                    parts.push(Behind::Json(mcp.into(), wire));
                    if let Some(block) = block {
                        parts.push(Behind::Json("the tool_result block it became for the model".into(), block));
                    }
                }
                // The harness's own tries: only the last reaches the model.
                None if tone == Tone::Settled => {
                    parts.push(Behind::Note("the model is given the read's answer for this call instead (below)"))
                }
                None if retried => parts.push(Behind::Note("never sent to the model: the harness tried again")),
                None => {}
            }
        }
        Event::Verify { tool, input, output, wire, retried, .. } => {
            parts.push(Behind::Json(format!("{tool} input"), input));
            parts.push(Behind::Json("the read returned".into(), output));
            match wire {
                Some(wire) => parts.push(Behind::Json(BLOCK_LABEL.into(), wire)),
                None if *retried => parts.push(Behind::Note("never sent to the model: the harness read again")),
                None => {}
            }
        }
        _ => {}
    }
    parts
}

fn expanded(out: &mut String, look: &Look, ev: &Told<'_>) {
    for part in behind(ev) {
        match part {
            Behind::Json(label, value) => raw(out, look, &label, value),
            Behind::Note(text) => note(out, look, text),
        }
    }
}

/// One try of a harness read: what it found, or how it failed, and with `--expand` its input,
/// its result and the block the model receives when the read settled the call.
fn verify(out: &mut String, look: &Look, ev: &Told<'_>) {
    let s = &look.styles;
    let Event::Verify { tool, number, failed, retried, found, message, details, .. } = ev.event else {
        return;
    };
    let headline = verify_words(*found, *retried);
    let style = match (found, retried) {
        (Some(true), _) => s.good,
        (Some(false), _) | (None, true) => s.warn,
        (None, false) => s.bad,
    };
    let (label, reads) = verify_label(tool, *number);
    let mark = if *failed { look.glyphs.fail } else { look.glyphs.pass };
    card(out, look, 2, &label, style, &format!("{mark} {reads}: {headline}"));
    if let Some(body) = failure_body(details, message.as_deref()) {
        card(out, look, 0, "", s.dim, &body);
    }
    if look.expand {
        expanded(out, look, ev);
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

/// The words a diff changes, one line per change: a changed tool message is one escaped string
/// on a long JSON line, and the few words that differ are easy to miss in it.
pub(crate) fn word_changes(diff: &str) -> Vec<String> {
    const MOST: usize = 3;
    let mut removed: Vec<&str> = Vec::new();
    let mut added: Vec<&str> = Vec::new();
    let mut changes = Vec::new();
    let flush = |removed: &mut Vec<&str>, added: &mut Vec<&str>, changes: &mut Vec<String>| {
        for (old, new) in removed.iter().zip(added.iter()) {
            changes.extend(line_changes(old, new));
        }
        for old in removed.iter().skip(added.len()) {
            changes.extend(line_changes(old, ""));
        }
        for new in added.iter().skip(removed.len()) {
            changes.extend(line_changes("", new));
        }
        removed.clear();
        added.clear();
    };
    for line in diff.lines() {
        if line.starts_with("---") || line.starts_with("+++") {
            continue;
        }
        match line.as_bytes().first() {
            Some(b'-') if added.is_empty() => removed.push(&line[1..]),
            Some(b'+') => added.push(&line[1..]),
            _ => {
                flush(&mut removed, &mut added, &mut changes);
                if let Some(gone) = line.strip_prefix('-') {
                    removed.push(gone);
                }
            }
        }
    }
    flush(&mut removed, &mut added, &mut changes);
    // Past a few changes the runs went different ways, and the diff above says it better.
    if changes.len() > MOST {
        changes.clear();
    }
    changes
}

/// What one changed line adds, drops or replaces, word by word.
fn line_changes(old: &str, new: &str) -> Vec<String> {
    use similar::{ChangeTag, TextDiff};
    let (old, new) = (tokens(old), tokens(new));
    let diff = TextDiff::configure().diff_slices(&old, &new);
    let all: Vec<(ChangeTag, &str)> = diff.iter_all_changes().map(|c| (c.tag(), c.value())).collect();
    // Runs of changed tokens; one unchanged token between two changes joins them.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (i, (tag, _)) in all.iter().enumerate() {
        if *tag == ChangeTag::Equal {
            continue;
        }
        match runs.last_mut() {
            Some((_, end)) if i <= *end + 1 => *end = i + 1,
            _ => runs.push((i, i + 1)),
        }
    }
    let mut changes = Vec::new();
    for (start, end) in runs {
        let (mut gone, mut came) = (String::new(), String::new());
        for (tag, text) in &all[start..end] {
            if *tag != ChangeTag::Insert {
                gone.push_str(text);
            }
            if *tag != ChangeTag::Delete {
                came.push_str(text);
            }
        }
        // Quotes or commas alone say little: show the unchanged words on either side too.
        if !format!("{gone}{came}").chars().any(char::is_alphanumeric) {
            let side = |i: Option<usize>| i.and_then(|i| all.get(i)).map_or("", |(_, text)| *text);
            let (before, after) = (side(start.checked_sub(1)), side(Some(end)));
            gone = format!("{before}{gone}{after}");
            came = format!("{before}{came}{after}");
        }
        let (gone, came) = (tidy(&gone), tidy(&came));
        changes.push(match (gone.is_empty(), came.is_empty()) {
            (true, true) => continue,
            (true, false) => format!("your run adds `{came}`"),
            (false, true) => format!("your run drops `{gone}`"),
            (false, false) => format!("your run has `{came}` where the recording has `{gone}`"),
        });
    }
    changes
}

/// A changed fragment as the learner reads it: quotes unescaped, the commas and the odd quote the
/// diff cut from the JSON around it dropped, a key's opening quote put back.
fn tidy(words: &str) -> String {
    let edges = |c: char| c == ',' || c.is_whitespace();
    let mut text = words.replace("\\\"", "\"").trim_matches(edges).to_string();
    // `"a":1,"` ends with the opening quote of the next key.
    if let Some(cut) = text.strip_suffix(",\"") {
        text = cut.trim_matches(edges).to_string();
    }
    // `a":1` is a key that lost its opening quote to the words around it.
    let key_without_quote = text.find('"').is_some_and(|at| text[at + 1..].starts_with(':'));
    if text.starts_with(char::is_alphanumeric) && key_without_quote {
        text.insert(0, '"');
    }
    text
}

/// Words (runs of letters and digits) and single other characters.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            start.get_or_insert(i);
            continue;
        }
        if let Some(from) = start.take() {
            out.push(&text[from..i]);
        }
        out.push(&text[i..i + c.len_utf8()]);
    }
    if let Some(from) = start {
        out.push(&text[from..]);
    }
    out
}

/// The verdict line. A replay that stopped early is never green: red when the code failed,
/// yellow when no recording answered.
pub fn verdict(v: &Verdict, look: &Look) -> String {
    let style = match v.stopped.as_deref() {
        Some("code_error") => look.styles.bad,
        Some(_) => look.styles.warn,
        None if v.wasted_retries > 0 || v.harmed => look.styles.bad,
        None => look.styles.good,
    };
    let mut out = String::new();
    card(&mut out, look, 0, "Verdict", style, &v.text);
    if let Some(note) = &v.note {
        card(&mut out, look, 0, "", look.styles.dim, note);
    }
    out
}

/// The verdict of a whole run.
pub fn run_verdict(run: &Replay, look: &Look) -> String {
    verdict(&run.verdict, look)
}

/// A whole replay, as printed without pacing.
pub fn replay(replay: &Replay, look: &Look) -> String {
    let mut out = header(replay, look);
    out.push('\n');
    for ev in &replay.told() {
        out.push_str(&event(ev, look));
    }
    out.push_str(&run_verdict(replay, look));
    out
}

/// What the code printed, cut to a few lines of a few hundred characters: a card is read at a
/// glance, and the JSON has it all.
fn shortened(printed: &str, look: &Look) -> String {
    const MOST_LINES: usize = 12;
    const MOST_CHARS: usize = 240;
    let more = if look.glyphs.dot == Glyphs::ASCII.dot { "..." } else { "…" };
    let lines: Vec<&str> = printed.trim_end().lines().collect();
    let cut = lines.len() > MOST_LINES;
    let kept = if cut { &lines[..MOST_LINES - 2] } else { &lines[..] };
    let mut text: Vec<String> = kept
        .iter()
        .map(|line| match line.char_indices().nth(MOST_CHARS) {
            Some((at, _)) => format!("{}{more}", &line[..at]),
            None => line.to_string(),
        })
        .collect();
    if cut {
        text.push(format!("{more} {} more lines (all of them in --format json)", lines.len() - kept.len()));
    }
    text.join("\n")
}

/// A horizontal rule's piece: box drawing, or `-` where the glyphs are ASCII.
fn rule_glyph(look: &Look) -> &'static str {
    if look.glyphs.dot == Glyphs::ASCII.dot {
        "-"
    } else {
        "─"
    }
}

/// The marker drawn where two runs split.
pub fn split_marker(look: &Look, split: Option<usize>) -> String {
    let text = match split {
        Some(_) => " the runs split here ",
        None => " the runs never split ",
    };
    let side = look.width.saturating_sub(text.len()) / 2;
    let rule = rule_glyph(look).repeat(side.min(30));
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
    for ev in &a.told()[..common.min(a.events.len())] {
        out.push_str(&event(ev, look));
    }
    out.push_str(&split_marker(look, split));
    for (i, run) in [a, b].into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let rule = rule_glyph(look).repeat(2);
        let _ = writeln!(out, "{}", s.paint(s.strong, format!("{rule} {} {rule}", run.code)));
        for ev in &run.told()[common.min(run.events.len())..] {
            out.push_str(&event(ev, look));
        }
        out.push_str(&run_verdict(run, look));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{changed_lines, diff_rows, word_changes};

    fn diff(old: &str, new: &str) -> String {
        similar::TextDiff::from_lines(old, new).unified_diff().header("recorded", "yours").to_string()
    }

    const RECORDED: &str = "{\n  \"content\": \"{\\\"error\\\":{\\\"errorCategory\\\":\\\"business\\\",\\\"isRetryable\\\":false,\\\"message\\\":\\\"Too old.\\\"},\\\"isError\\\":true}\",\n  \"is_error\": true\n}\n";

    #[test]
    fn names_the_words_a_changed_message_adds() {
        let mine = RECORDED.replace("Too old.", "Sorry. Too old.");
        assert_eq!(word_changes(&diff(RECORDED, &mine)), ["your run adds `Sorry.`"]);
    }

    #[test]
    fn names_a_renamed_key_and_a_value_of_another_type() {
        let renamed = RECORDED.replace(
            "\\\"isRetryable\\\":false,\\\"message\\\":\\\"Too old.\\\"",
            "\\\"message\\\":\\\"Too old.\\\",\\\"retryable\\\":false",
        );
        assert_eq!(
            word_changes(&diff(RECORDED, &renamed)),
            ["your run drops `\"isRetryable\":false`", "your run adds `\"retryable\":false`"]
        );
        let quoted = RECORDED.replace("\\\"isError\\\":true", "\\\"isError\\\":\\\"true\\\"");
        assert_eq!(word_changes(&diff(RECORDED, &quoted)), ["your run has `\"true\"` where the recording has `true`"]);
    }

    #[test]
    fn names_a_line_the_run_drops() {
        let mine = RECORDED.replace(",\n  \"is_error\": true", "");
        let changes = word_changes(&diff(RECORDED, &mine));
        assert!(changes.contains(&"your run drops `\"is_error\": true`".to_string()), "{changes:?}");
    }

    #[test]
    fn says_nothing_in_short_when_the_runs_went_different_ways() {
        let mine = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3,\n  \"d\": 4\n}\n";
        let theirs = "{\n  \"a\": 5,\n  \"b\": 6,\n  \"c\": 7,\n  \"d\": 8\n}\n";
        assert!(word_changes(&diff(theirs, mine)).is_empty());
    }

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
