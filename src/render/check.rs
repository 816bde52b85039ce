//! `check`'s report as text for a person, or JSON for an autograder.

use std::fmt::Write as _;

use super::plain_words;
use crate::checks::{CheckResult, Report, Status};
use crate::render::styles::{Glyphs, Styles};
use crate::text::pyrepr;
use crate::text::shorten::{shorten, shorten_text};

const LABEL_WIDTH: usize = 10;
/// Lines of the learner's output shown in text; the JSON report keeps all that was captured.
const PRINTED_LINES: usize = 20;
/// Characters of a check's message shown; its values are shortened already, so this is a guard.
const MESSAGE_CHARS: usize = 2_000;
/// What to look for when a call never returned.
const HUNG_HINT: &str = "The call above never returned. Look for a loop that cannot end on \
     the path this call takes (a while with no way out, a retry with no limit); print inside \
     it to see.";

/// The report as a learner reads it.
pub(crate) fn text(report: &Report, styles: &Styles, glyphs: Glyphs, width: usize) -> String {
    let mut out = String::new();
    let header = format!("{} {} {}", report.lesson, glyphs.dot, report.file);
    for (i, line) in
        textwrap::wrap(&header, textwrap::Options::new(width.max(20)).break_words(true))
            .iter()
            .enumerate()
    {
        if i == 0 && line.starts_with(&report.lesson) {
            let _ = writeln!(
                out,
                "{}{}",
                styles.paint(styles.strong, &report.lesson),
                &line[report.lesson.len()..]
            );
        } else {
            let _ = writeln!(out, "{line}");
        }
    }
    out.push('\n');
    if report.status == Status::Error {
        not_loaded(&mut out, report, styles, glyphs, width);
        return out;
    }
    check_lines(&mut out, report, styles, glyphs, width);
    if let Some(first) = report.first_failure() {
        out.push('\n');
        expand(&mut out, first, styles, glyphs, width);
        if !report.load_output.trim().is_empty() {
            labelled(&mut out, styles, width, "at import", &printed(&report.load_output));
        }
    }
    not_run(&mut out, report, styles, width);
    out.push('\n');
    let unrun = match report.not_run() {
        0 => String::new(),
        n => format!(", {n} not run"),
    };
    let tally = format!("{}/{} passed{unrun}", report.passed, report.total);
    let (style, rest) = if report.passed == report.total {
        (styles.good, ": every check is green.".to_string())
    } else {
        let first = report.first_failure();
        let fix = match first.and_then(|c| c.hung.as_deref()) {
            // A hang first: the checks after it wait on the same function.
            Some(call) => format!("make {call} return (it hung)"),
            None => format!("fix {}", first.map(|c| c.id.as_str()).unwrap_or("")),
        };
        (styles.bad, format!(". Next: {fix} in {}, then {}.", report.file, report.again))
    };
    // Wrapped as plain text, then the tally painted, so colour codes never count as width.
    let plain = format!("{tally}{rest}");
    for (i, line) in textwrap::wrap(&plain, plain_words(width)).iter().enumerate() {
        if i == 0 && line.starts_with(&tally) {
            let _ = writeln!(out, "{}{}", styles.paint(style, &tally), &line[tally.len()..]);
        } else {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// A file that did not load: why, what it printed, and that no check ran.
fn not_loaded(out: &mut String, report: &Report, styles: &Styles, glyphs: Glyphs, width: usize) {
    // Loaded, and run, but no grade stands: an answer not the runner's, or the world upset.
    let ran = report.checks.iter().all(|c| c.not_run.is_none());
    let head = if ran { "no grade for" } else { "could not load" };
    let _ = writeln!(out, "{} {head} {}", styles.paint(styles.bad, glyphs.fail), report.file);
    // The message can quote the learner's code or what it raised: shown inert.
    for line in crate::text::inert::text(&report.message).lines() {
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
        labelled(out, styles, width, "printed", &printed(&report.load_output));
    }
    out.push('\n');
    let outcome = if ran { "No grade stands" } else { "No check ran" };
    wrapped(out, &format!("{outcome}. Fix the file, then {}.", report.again), width);
}

/// One line per check: its mark, id and name, the names lined up (or under the ids when narrow).
fn check_lines(out: &mut String, report: &Report, styles: &Styles, glyphs: Glyphs, width: usize) {
    let id_width = report.checks.iter().map(|c| c.id.len()).max().unwrap_or(0);
    // The marks may be wider than one column ("ok" and "XX" in ASCII): the names line up after
    // the widest, and the wrapping counts it.
    let marks = [glyphs.pass, glyphs.fail, glyphs.skip];
    let mark_width = marks.iter().map(|g| g.chars().count()).max().unwrap_or(1);
    // On a narrow terminal the names go under their ids, indented, instead of off the edge.
    let beside = mark_width + 1 + id_width + 2 + 20 <= width;
    for check in &report.checks {
        let hung = check.hung.as_ref().map(|call| format!("hung: {call} never returned"));
        let name = hung.as_deref().unwrap_or(&check.name);
        let (glyph, style) = match check.status {
            Status::Pass => (glyphs.pass, styles.good),
            Status::NotRun => (glyphs.skip, styles.dim),
            _ => (glyphs.fail, styles.bad),
        };
        let mark = format!(
            "{}{}",
            styles.paint(style, glyph),
            " ".repeat(mark_width - glyph.chars().count())
        );
        if beside {
            let indent = " ".repeat(mark_width + 1 + id_width + 2);
            let room = width.saturating_sub(indent.len()).max(20);
            for (i, piece) in textwrap::wrap(name, plain_words(room)).iter().enumerate() {
                if i == 0 {
                    let _ = writeln!(
                        out,
                        "{mark} {:<id_width$}  {}",
                        check.id,
                        styles.paint(styles.dim, piece)
                    );
                } else {
                    let _ = writeln!(out, "{indent}{}", styles.paint(styles.dim, piece));
                }
            }
        } else {
            let _ = writeln!(out, "{mark} {}", check.id);
            for piece in textwrap::wrap(name, plain_words(width.saturating_sub(4))) {
                let _ = writeln!(out, "    {}", styles.paint(styles.dim, piece));
            }
        }
    }
}

/// Checks that could not run (a function given up on after it hung), grouped by why.
fn not_run(out: &mut String, report: &Report, styles: &Styles, width: usize) {
    let mut not_run: Vec<(&str, Vec<&str>)> = Vec::new();
    let unrun = |c: &&CheckResult| matches!(c.status, Status::Error | Status::NotRun);
    for check in report.checks.iter().filter(unrun) {
        let why = check.not_run.as_deref().unwrap_or(&check.message);
        match not_run.iter_mut().find(|(w, _)| *w == why) {
            Some((_, ids)) => ids.push(&check.id),
            None => not_run.push((why, vec![&check.id])),
        }
    }
    for (why, ids) in not_run {
        out.push('\n');
        labelled(
            out,
            styles,
            width,
            "not run",
            &format!("{}: {}", ids.join(", "), shorten_text(why, MESSAGE_CHARS)),
        );
    }
}

fn wrapped(out: &mut String, text: &str, width: usize) {
    for line in textwrap::wrap(text, plain_words(width)) {
        let _ = writeln!(out, "{line}");
    }
}

/// The first failure in full: the call, expected and got, where they differ, output and hint.
fn expand(out: &mut String, check: &CheckResult, styles: &Styles, glyphs: Glyphs, width: usize) {
    // A hang is what to fix, whatever the check was about: it heads the failure.
    let head = match &check.hung {
        Some(call) => {
            let id = &check.id;
            format!("{} {id}: {call} hung, so this check could not finish", glyphs.fail)
        }
        None => format!("{} {}: {}", glyphs.fail, check.id, check.name),
    };
    for (i, line) in textwrap::wrap(&head, plain_words(width)).iter().enumerate() {
        let lead = format!("{} {}", glyphs.fail, check.id);
        if i == 0 && line.starts_with(&lead) {
            let rest = &line[lead.len()..];
            let _ = writeln!(
                out,
                "{} {}{rest}",
                styles.paint(styles.bad, glyphs.fail),
                styles.paint(styles.strong, &check.id)
            );
        } else {
            let _ = writeln!(out, "  {line}");
        }
    }
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
    let shown =
        if check.output.trim().is_empty() { "nothing".to_string() } else { printed(&check.output) };
    labelled(out, styles, width, "printed", &shown);
    // A hang says nothing of what the check looks at: its hints would send the learner to the
    // wrong place.
    if check.hung.is_some() {
        labelled(out, styles, width, "hint", HUNG_HINT);
        return;
    }
    // The lesson's advice for the mistake this shape of answer suggests; else its first hint.
    match (&check.guidance, check.hints.first()) {
        (Some(advice), _) => {
            labelled(out, styles, width, "likely", &format!("{}. {}", advice.mistake, advice.says))
        }
        (None, Some(hint)) => labelled(out, styles, width, "hint", hint),
        (None, None) => {}
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
        let _ = write!(
            text,
            "\n… {} more lines (--format json shows them)",
            lines.len() - PRINTED_LINES
        );
    }
    if let Some(note) = note {
        text.push('\n');
        text.push_str(note);
    }
    text
}

/// `  label     text`, the text wrapped under itself. The text is the learner's (what they
/// printed, what they raised), so control characters in it are shown escaped, never sent.
fn labelled(out: &mut String, styles: &Styles, width: usize, label: &str, text: &str) {
    let text = crate::text::inert::text(text);
    let indent = " ".repeat(LABEL_WIDTH + 2);
    let room = width.saturating_sub(indent.len()).max(20);
    let mut first = true;
    for line in text.lines() {
        for piece in textwrap::wrap(line, textwrap::Options::new(room).break_words(true)) {
            if first {
                let _ = writeln!(
                    out,
                    "  {}{piece}",
                    styles.paint(styles.label, format!("{label:<LABEL_WIDTH$}"))
                );
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
pub(crate) fn json(report: &Report) -> String {
    serde_json::to_string_pretty(&shortened(report))
        .map(crate::text::inert::json)
        .unwrap_or_else(|e| format!("{{\"status\": \"error\", \"message\": \"{e}\"}}"))
}

/// The report as machines get it (`check --format json`, every line of `grade`, the Exercism
/// results): values and messages shortened, each cut marked, so no file's report is large.
pub(crate) fn shortened(report: &Report) -> Report {
    let mut shown = report.clone();
    shown.message = shorten_text(&report.message, MESSAGE_CHARS);
    for check in &mut shown.checks {
        check.expected = check.expected.as_ref().map(shorten);
        check.got = check.got.as_ref().map(shorten);
        check.message = shorten_text(&check.message, MESSAGE_CHARS);
    }
    shown
}
