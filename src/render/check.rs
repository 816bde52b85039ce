//! `check`'s report as text for a person, or JSON for an autograder.

use std::fmt::Write as _;

use crate::checks::{CheckResult, Report, Status};
use crate::pyrepr;
use crate::render::styles::{Glyphs, Styles};
use crate::shorten::{shorten, shorten_text};

const LABEL_WIDTH: usize = 10;
/// Lines of the learner's output shown in text; the JSON report keeps all that was captured.
const PRINTED_LINES: usize = 20;
/// Characters of a check's message shown; its values are shortened already, so this is a guard.
const MESSAGE_CHARS: usize = 2_000;

/// The report as a learner reads it.
pub fn text(report: &Report, styles: &Styles, glyphs: Glyphs, width: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} {} {}", styles.paint(styles.strong, &report.lesson), glyphs.dot, report.file);
    out.push('\n');
    if report.status == Status::Error {
        let _ = writeln!(out, "{} could not load {}", styles.paint(styles.bad, glyphs.fail), report.file);
        for line in report.message.lines() {
            // Code quoted from the file keeps its shape; sentences wrap.
            if line.starts_with(char::is_whitespace) {
                let _ = writeln!(out, "    {line}");
            } else {
                let room = width.saturating_sub(4).max(20);
                for piece in textwrap::wrap(line, textwrap::Options::new(room).break_words(true)) {
                    let _ = writeln!(out, "    {piece}");
                }
            }
        }
        if !report.load_output.trim().is_empty() {
            labelled(&mut out, styles, width, "printed", &printed(&report.load_output));
        }
        out.push('\n');
        let _ = writeln!(out, "No check ran. Fix the file, then run ./workshop check {} again.", report.lesson);
        return out;
    }
    let id_width = report.checks.iter().map(|c| c.id.len()).max().unwrap_or(0);
    for check in &report.checks {
        let mark = match check.status {
            Status::Pass => styles.paint(styles.good, glyphs.pass),
            _ => styles.paint(styles.bad, glyphs.fail),
        };
        let _ = writeln!(out, "{mark} {:<id_width$}  {}", check.id, styles.paint(styles.dim, &check.name));
    }
    if let Some(first) = report.first_failure() {
        out.push('\n');
        expand(&mut out, first, styles, glyphs, width);
        if !report.load_output.trim().is_empty() {
            labelled(&mut out, styles, width, "at import", &printed(&report.load_output));
        }
    }
    // Checks that could not run (a function given up on after it hung), grouped by why.
    let mut not_run: Vec<(&str, Vec<&str>)> = Vec::new();
    for check in report.checks.iter().filter(|c| c.status == Status::Error) {
        let why = check.message.strip_prefix("not run: ").unwrap_or(&check.message);
        match not_run.iter_mut().find(|(w, _)| *w == why) {
            Some((_, ids)) => ids.push(&check.id),
            None => not_run.push((why, vec![&check.id])),
        }
    }
    for (why, ids) in not_run {
        out.push('\n');
        labelled(
            &mut out,
            styles,
            width,
            "not run",
            &format!("{}: {}", ids.join(", "), shorten_text(why, MESSAGE_CHARS)),
        );
    }
    out.push('\n');
    let tally = format!("{}/{} passed", report.passed, report.total);
    if report.passed == report.total {
        let _ = writeln!(
            out,
            "{}. All green: replay the tickets with ./workshop watch {}",
            styles.paint(styles.good, tally),
            report.lesson
        );
    } else {
        let first = report.first_failure().map(|c| c.id.as_str()).unwrap_or("");
        let _ = writeln!(
            out,
            "{}. Next: fix {first} in {}, then run ./workshop check {} again.",
            styles.paint(styles.bad, tally),
            report.file,
            report.lesson
        );
    }
    out
}

/// The first failure in full: the call, expected and got, where they differ, output and hint.
fn expand(out: &mut String, check: &CheckResult, styles: &Styles, glyphs: Glyphs, width: usize) {
    let _ = writeln!(
        out,
        "{} {}: {}",
        styles.paint(styles.bad, glyphs.fail),
        styles.paint(styles.strong, &check.id),
        check.name
    );
    if let Some(call) = &check.call {
        labelled(out, styles, width, "call", call);
    }
    if let Some(expected) = &check.expected {
        labelled(out, styles, width, "expected", &pyrepr::repr(&shorten(expected)));
    }
    if let Some(got) = &check.got {
        labelled(out, styles, width, "got", &pyrepr::repr(&shorten(got)));
    }
    let label = if check.expected.is_some() { "where" } else { "problem" };
    labelled(out, styles, width, label, &shorten_text(&check.message, MESSAGE_CHARS));
    let shown = if check.output.trim().is_empty() { "nothing".to_string() } else { printed(&check.output) };
    labelled(out, styles, width, "printed", &shown);
    if let Some(hint) = check.hints.first() {
        labelled(out, styles, width, "hint", hint);
    }
}

/// The learner's output, its first lines only when it is long. The bridge's own note on bytes
/// past its cap (a last line starting with `…`) is kept.
fn printed(output: &str) -> String {
    let mut lines: Vec<&str> = output.trim_end().lines().collect();
    let note = lines.last().filter(|l| l.starts_with('…')).copied();
    if note.is_some() {
        lines.pop();
    }
    let mut text = lines.iter().take(PRINTED_LINES).copied().collect::<Vec<_>>().join("\n");
    if lines.len() > PRINTED_LINES {
        let _ = write!(text, "\n… {} more lines (--format json shows them)", lines.len() - PRINTED_LINES);
    }
    if let Some(note) = note {
        text.push('\n');
        text.push_str(note);
    }
    text
}

/// `  label     text`, the text wrapped under itself.
fn labelled(out: &mut String, styles: &Styles, width: usize, label: &str, text: &str) {
    let indent = " ".repeat(LABEL_WIDTH + 2);
    let room = width.saturating_sub(indent.len()).max(20);
    let mut first = true;
    for line in text.lines() {
        for piece in textwrap::wrap(line, textwrap::Options::new(room).break_words(true)) {
            if first {
                let _ = writeln!(out, "  {}{piece}", styles.paint(styles.label, format!("{label:<LABEL_WIDTH$}")));
                first = false;
            } else {
                let _ = writeln!(out, "{indent}{piece}");
            }
        }
    }
    if first {
        let _ = writeln!(out, "  {}", styles.paint(styles.label, label));
    }
}

/// The report as JSON, for autograders. Values and messages are shortened (with markers saying
/// how much was cut), so the report of any file stays small.
pub fn json(report: &Report) -> String {
    let mut shown = report.clone();
    for check in &mut shown.checks {
        check.expected = check.expected.as_ref().map(shorten);
        check.got = check.got.as_ref().map(shorten);
        check.message = shorten_text(&check.message, MESSAGE_CHARS);
    }
    serde_json::to_string_pretty(&shown).unwrap_or_else(|e| format!("{{\"status\": \"error\", \"message\": \"{e}\"}}"))
}
