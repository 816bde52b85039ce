//! The cards of a replay: one short line per event, an optional body, wrapped to the width.
//! Rendered once, to styled lines (`render::styled`): the printed replay paints them, the player
//! draws them as its own spans.

mod attempt;
mod changes;
mod missing;
mod rpc;
mod words;

use std::fmt::Write as _;

use serde_json::Value;

use crate::lesson::kinds::ByKind;
use crate::render::styled::{ansi, Line};
use crate::render::styles::{Glyphs, Role, Styles};
use crate::replay::events::{Event, Run, Told, Verdict, VerdictTone};
pub(crate) use attempt::{behind, Behind};
pub(crate) use changes::word_changes;
pub(crate) use rpc::rpc_words;
pub(crate) use words::provenance_line;
pub(crate) use words::{attempt_said, attempt_words, by_kind_words, failure_body, note_words};
pub(crate) use words::{
    capped_words, host_error_words, host_label, stop_words, CAP_ENDS, TOLD_WHO,
};
pub(crate) use words::{unanswered, verify_label, verify_words, API_REFUSES};

const LABEL: usize = 14;

/// How to draw cards.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Look {
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
fn card(
    out: &mut Vec<Line>,
    look: &Look,
    indent: usize,
    label: &str,
    label_role: Role,
    text: &str,
) {
    let text = crate::text::inert::text(text);
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
                out.push(Line::plain(&pad).with(label_role, label).with(Role::Plain, piece));
                first = false;
            } else {
                out.push(Line::plain(format!("{body_indent}{piece}")));
            }
        }
    }
    if first {
        out.push(Line::plain(pad).with(label_role, label));
    }
}

/// Raw JSON under a card, indented, never wrapped mid-token.
fn raw(out: &mut Vec<Line>, look: &Look, label: &str, value: &Value) {
    let pretty = crate::text::inert::json(serde_json::to_string_pretty(value).unwrap_or_default());
    let pad = " ".repeat(LABEL);
    note(out, look, label);
    // Long lines (a tool message inside a JSON string) wrap at word boundaries, under themselves.
    let room = look.width.saturating_sub(pad.len() + 2).max(20);
    for line in pretty.lines() {
        let depth = line.len() - line.trim_start().len();
        let under = " ".repeat(depth + 2);
        let options = textwrap::Options::new(room)
            .break_words(true)
            .word_separator(textwrap::WordSeparator::Custom(json_words))
            .word_splitter(textwrap::WordSplitter::NoHyphenation)
            .subsequent_indent(&under);
        for piece in textwrap::wrap(line, options) {
            out.push(Line::plain(format!("{pad}  ")).with(Role::Code, piece));
        }
    }
}

/// A JSON line's words for wrapping: a break may come after a space, or after a `,` or `:`
/// between tokens (inside an encoded string too), so a key or a value is never cut in two
/// unless it is wider than the room on its own.
fn json_words(line: &str) -> Box<dyn Iterator<Item = textwrap::core::Word<'_>> + '_> {
    let bytes = line.as_bytes();
    let spaces_from = |mut j: usize| {
        while j < bytes.len() && bytes[j] == b' ' {
            j += 1;
        }
        j
    };
    let mut words = Vec::new();
    // The indentation stays with the first word.
    let mut start = 0;
    let mut i = spaces_from(0);
    while i < bytes.len() {
        // A word ends after a space run, or after a `,` or `:` and the spaces after it.
        let end = match bytes[i] {
            b' ' => spaces_from(i),
            b',' | b':' => spaces_from(i + 1),
            _ => {
                i += 1;
                continue;
            }
        };
        words.push(textwrap::core::Word::from(&line[start..end]));
        start = end;
        i = end;
    }
    if start < line.len() {
        words.push(textwrap::core::Word::from(&line[start..]));
    }
    Box::new(words.into_iter())
}

pub(crate) fn header(replay: &Run, look: &Look) -> String {
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

/// One event as a card, as the terminal shows it.
pub(crate) fn event(ev: &Told<'_>, look: &Look) -> String {
    ansi(&event_lines(ev, look), &look.styles)
}

/// One event as a card: its styled lines.
pub(crate) fn event_lines(ev: &Told<'_>, look: &Look) -> Vec<Line> {
    let mut out = Vec::new();
    match ev.event {
        Event::Customer { text } => card(&mut out, look, 0, "Customer", Role::Label, text),
        Event::ToolCall { .. } => tool_call_cards(&mut out, look, ev.event),
        Event::Attempt { .. } => attempt::attempt(&mut out, look, ev),
        Event::Verify { .. } => attempt::verify(&mut out, look, ev),
        Event::Report { report, .. } => report_card(&mut out, look, report),
        Event::Note { text, after_results } => {
            card(&mut out, look, 0, "Note", Role::Label, &note_words(text, *after_results))
        }
        Event::Wait { ms } => card(
            &mut out,
            look,
            2,
            "wait",
            Role::Dim,
            &format!("{ms} ms backoff before the next attempt"),
        ),
        Event::Reply { text, provenance, by_kind, stop_reason } => {
            let stopped = stop_reason.as_deref().map(|r| format!("\n{}", stop_words(r)));
            let stopped = stopped.unwrap_or_default();
            let body = format!("{text}{stopped}\n[{}]", provenance.tag());
            card(&mut out, look, 0, "Agent replies", Role::Label, &body);
            kind_cards(&mut out, look, by_kind);
        }
        Event::HostError { .. } | Event::Capped { .. } | Event::Told { .. } => {
            host_cards(&mut out, look, ev.event)
        }
        Event::Rpc { .. } => rpc_cards(&mut out, look, ev.event),
        Event::RpcEnded { message } => card(&mut out, look, 0, "Host error", Role::Bad, message),
        Event::NoRecording { .. } => missing::dead_end(&mut out, look, ev.event),
        Event::ApiError { .. } | Event::CodeError { .. } => error_cards(&mut out, look, ev.event),
    }
    out
}

/// A model turn that calls a tool: what it said first, the call, and its input with `--expand`.
fn tool_call_cards(out: &mut Vec<Line>, look: &Look, event: &Event) {
    let Event::ToolCall { tool, input, words, preface, provenance, by_kind, .. } = event else {
        return;
    };
    if let Some(text) = preface {
        // The call below is the same model turn and carries its provenance.
        card(out, look, 0, "Agent says", Role::Label, text);
    }
    let calls = format!("{words}  [{}]", provenance.tag());
    card(out, look, 0, "Agent calls", Role::Label, &calls);
    kind_cards(out, look, by_kind);
    if look.expand {
        raw(out, look, &format!("{tool} input"), input);
    }
}

/// The API's refusal, or the code's own error, that ended the run.
fn error_cards(out: &mut Vec<Line>, look: &Look, event: &Event) {
    match event {
        Event::ApiError { status, error_type, message } => {
            let said = format!("{status} {error_type}: {message}");
            card(out, look, 0, "API error", Role::Bad, &said);
            card(out, look, 0, "", Role::Dim, API_REFUSES);
        }
        Event::CodeError { message, call, printed } => {
            card(out, look, 0, "Code error", Role::Bad, message);
            if let Some(call) = call {
                card(out, look, 0, "", Role::Dim, &format!("in {call}"));
            }
            if !printed.trim().is_empty() {
                let printed = format!("printed: {}", shortened(printed, look));
                card(out, look, 0, "", Role::Dim, &printed);
            }
        }
        _ => {}
    }
}

/// One JSON-RPC message between the MCP client and the learner's server: what it says, who read
/// it, what the server printed, and the message itself with `--expand`.
fn rpc_cards(out: &mut Vec<Line>, look: &Look, event: &Event) {
    let Event::Rpc { message, printed, .. } = event else { return };
    if let Some(words) = rpc_words(event) {
        let role = if words.kept { Role::Warn } else { Role::Label };
        card(out, look, 2, words.label, role, &words.line);
        card(out, look, 2, "", Role::Dim, &words.reader);
    }
    if !printed.trim().is_empty() {
        let printed = format!("printed: {}", shortened(printed, look));
        card(out, look, 2, "", Role::Dim, &printed);
    }
    if look.expand {
        raw(out, look, "JSON-RPC message", message);
    }
}

/// The host's events: an API error, a cap, what the person was told. None reaches the model.
fn host_cards(out: &mut Vec<Line>, look: &Look, event: &Event) {
    match event {
        Event::HostError {
            status,
            error_type,
            message,
            retry_after_ms,
            wait_ms,
            number,
            waited_by,
            ..
        } => {
            let (retry_after, wait) = (*retry_after_ms, *wait_ms);
            let by_client = waited_by.as_deref() == Some("client");
            let (line, then) =
                host_error_words(*status, error_type, message, retry_after, wait, by_client);
            let label = host_label(*number);
            let role = if wait_ms.is_some() { Role::Warn } else { Role::Bad };
            card(out, look, 0, &label, role, &line);
            card(out, look, 0, "", Role::Dim, &then);
        }
        Event::Capped { by, turns, elapsed_ms, limit } => {
            let words = capped_words(by, *turns, *elapsed_ms, *limit);
            card(out, look, 0, "Cap", Role::Warn, &words);
            card(out, look, 0, "", Role::Dim, CAP_ENDS);
        }
        Event::Told { text, .. } => {
            card(out, look, 0, "Host tells", Role::Label, text);
            card(out, look, 0, "", Role::Dim, TOLD_WHO);
        }
        _ => {}
    }
}

/// What a subagent passed up: the report's parts, in the order the world wrote them.
fn report_card(out: &mut Vec<Line>, look: &Look, report: &Value) {
    let parts: Vec<String> = report
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_str().map(|v| format!("{k}: {v}")))
        .collect();
    card(out, look, 2, "Report", Role::Warn, &parts.join("\n"));
}

/// The label of a turn replayed through a kind: the reply was recorded for other words of the
/// same kind as the ones this run sent. `--expand` shows both.
fn kind_cards(out: &mut Vec<Line>, look: &Look, by_kind: &[ByKind]) {
    for swap in by_kind {
        let mut text = by_kind_words(swap);
        if look.expand {
            text.push_str(&format!(
                "\nthis run sent: {}\nrecorded for:  {}",
                swap.sent, swap.recorded
            ));
        }
        card(out, look, 0, "By kind", Role::Warn, &text);
    }
}

/// A dim line under a card's raw JSON (and its label above it).
fn note(out: &mut Vec<Line>, look: &Look, text: &str) {
    let pad = " ".repeat(LABEL);
    let room = look.width.saturating_sub(LABEL).max(20);
    for piece in textwrap::wrap(text, room) {
        out.push(Line::plain(&pad).with(Role::Dim, piece));
    }
}

/// The verdict line, coloured by the run (`Verdict::tone`): red for harm or a failed code,
/// yellow for a replay that stopped before a reply.
pub(crate) fn verdict(v: &Verdict, look: &Look) -> String {
    ansi(&verdict_lines(v, look), &look.styles)
}

/// The verdict line, and the lesson's note under it: their styled lines.
pub(crate) fn verdict_lines(v: &Verdict, look: &Look) -> Vec<Line> {
    let style = match v.tone {
        VerdictTone::Bad => Role::Bad,
        VerdictTone::Warn => Role::Warn,
        VerdictTone::Good => Role::Good,
    };
    let mut out = Vec::new();
    card(&mut out, look, 0, "Verdict", style, &v.text);
    if let Some(note) = &v.note {
        card(&mut out, look, 0, "", Role::Dim, note);
    }
    out
}

/// The verdict of a whole run.
pub(crate) fn run_verdict(run: &Run, look: &Look) -> String {
    verdict(&run.verdict, look)
}

/// A whole replay, as printed without pacing.
pub(crate) fn replay(replay: &Run, look: &Look) -> String {
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
        text.push(format!(
            "{more} {} more lines (all of them in --format json)",
            lines.len() - kept.len()
        ));
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
pub(crate) fn split_marker(look: &Look, split: Option<usize>) -> String {
    ansi(&split_marker_lines(look, split), &look.styles)
}

/// The marker drawn where two runs split: its styled line.
pub(crate) fn split_marker_lines(look: &Look, split: Option<usize>) -> Vec<Line> {
    let text = match split {
        Some(_) => " the runs split here ",
        None => " the runs never split ",
    };
    let side = look.width.saturating_sub(text.len()) / 2;
    let rule = rule_glyph(look).repeat(side.min(30));
    vec![Line::styled(Role::Warn, format!("{rule}{text}{rule}"))]
}

/// Two runs of one ticket: what they share once, the marker, then each run's own part.
pub(crate) fn compare(a: &Run, b: &Run, split: Option<usize>, look: &Look) -> String {
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
