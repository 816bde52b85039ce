//! Where the pages to share get what they show and where they go: `watch --html FILE` (the
//! replays just run, with each ticket's question as the player asks it) and `grade --format
//! html` (the class's reports). `render::html` draws them; this file only gathers and writes.

use std::path::Path;

use crate::commands::Context;
use crate::error::{Error, FlagError};
use crate::lesson::{Lesson, Runtime};
use crate::output;
use crate::render::html;
use crate::replay::events::Run;
use crate::replay::CodeChoice;
use crate::terminal::player::predict::Question;
use crate::terminal::player::source::{prediction, Prediction};

/// One ticket's runs as `watch` made them, and where two split.
pub(super) struct Shown<'a> {
    pub runs: &'a [Run],
    pub split: Option<usize>,
}

/// What `watch --html` was asked for, beside the runs.
pub(super) struct PageRequest<'a> {
    pub codes: &'a [CodeChoice],
    pub runtime: Runtime,
    pub predict: bool,
    pub note: Option<&'a str>,
}

/// Write the page of the replays to `to` (`-`: standard output).
pub(super) fn replay(
    ctx: &Context,
    lesson: &Lesson,
    shown: &[Shown],
    asked: &PageRequest,
    to: &Path,
) -> Result<(), Error> {
    let tickets = shown
        .iter()
        .map(|s| html::replay::TicketPage {
            runs: s.runs,
            split: s.split,
            question: asked.predict.then(|| question(lesson, s.runs, asked)).flatten(),
        })
        .collect();
    let page =
        html::replay::Page { lesson: &lesson.id, title: &lesson.title, note: asked.note, tickets };
    write(ctx, &html::replay::page(&page), to)
}

/// The player's question for a ticket, when one of the runs shown is the run it asks about:
/// the lesson's count before a starter run, or the ticket's own before the run of its code.
fn question(
    lesson: &Lesson,
    runs: &[Run],
    asked: &PageRequest,
) -> Option<html::replay::PageQuestion> {
    let ticket = lesson
        .tickets
        .iter()
        .position(|t| Some(t.id.as_str()) == runs.first().map(|r| r.ticket.as_str()))?;
    // The player counts codes as 0 the starter and 1 the reference fix.
    let index = |c: &CodeChoice| match c {
        CodeChoice::Starter => Some(0),
        CodeChoice::Solution => Some(1),
        _ => None,
    };
    let asked_of: Question = match prediction(lesson, ticket, asked.runtime) {
        Prediction::Count { ask, context } => (index(asked.codes.first()?) == Some(0))
            .then(|| Question::for_run(&runs[0], 0, &ask, &context))?,
        Prediction::Ticket { code, predict, context } => {
            let run = asked.codes.iter().position(|c| index(c) == Some(code))?;
            Question::for_ticket(runs.get(run)?, run, &predict, &context)?
        }
    };
    let answer = asked_of.choices.iter().find(|c| c.right)?.words.clone();
    Some(html::replay::PageQuestion {
        ask: asked_of.ask.clone(),
        context: asked_of.context.clone(),
        choices: asked_of.choices.iter().map(|c| c.words.clone()).collect(),
        answer,
        about: runs.get(asked_of.run).map(|r| r.code.clone()).unwrap_or_default(),
    })
}

/// The page of a class's results, on standard output as grade's other formats are.
pub(super) fn class(
    lesson: &Lesson,
    reports: &[crate::checks::Report],
    sandbox: &str,
    skipped: &[(String, &'static str)],
) -> Result<(), Error> {
    let class =
        html::class::Class { lesson: &lesson.id, title: &lesson.title, reports, sandbox, skipped };
    output::as_is(&html::class::page(&class))
}

/// A page to standard output (`-`) or to a file, written whole or not at all: to a temporary
/// file beside it, then renamed over it. Says where it went and how to open it.
fn write(ctx: &Context, page: &str, to: &Path) -> Result<(), Error> {
    if to == Path::new("-") {
        return output::as_is(page);
    }
    let path = ctx.cwd.join(to);
    let shown = crate::text::inert::path(to);
    if path.is_dir() {
        return Err(FlagError::HtmlFolder { shown }.into());
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let could_not = |e: std::io::Error| {
        Error::io(format!("could not write the page to {shown} (does its folder exist, and may it be written to?)"), e)
    };
    let mut temp =
        tempfile::Builder::new().prefix(".workshop-page").tempfile_in(dir).map_err(could_not)?;
    std::io::Write::write_all(&mut temp, page.as_bytes()).map_err(could_not)?;
    // A page is for sharing: readable by others, not private as a temporary file is.
    let readable = std::os::unix::fs::PermissionsExt::from_mode(0o644);
    temp.as_file().set_permissions(readable).map_err(could_not)?;
    temp.persist(&path).map_err(|e| could_not(e.error))?;
    let url = path.canonicalize().unwrap_or(path);
    output::line(&format!(
        "Wrote {shown} ({} KB), one file with nothing to fetch. Open it in any browser: file://{}",
        page.len().div_ceil(1024),
        crate::text::inert::path(&url)
    ))
}
