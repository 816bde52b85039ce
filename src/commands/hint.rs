//! `workshop hint`: the next hint step for the first failing check (or the one named), from the
//! lesson's data. How far each check's hints have gone is kept in progress.

use crate::checks::Status;
use crate::cli::HintArgs;
use crate::commands::Context;
use crate::error::{Corrupt, CourseError, Error, Flaw, LessonError, EXIT_SUCCESS};
use crate::hint::card::{Again, Card};
use crate::hint::steps::next_step;
use crate::lesson::{CheckSpec, Lesson};
use crate::output;

/// Seconds each call of the learner's code may take while grading for a hint, as `check`'s default.
const GRADE_TIMEOUT_SECS: f64 = 1.0;

pub(super) fn run(ctx: &Context, args: HintArgs) -> Result<i32, Error> {
    let lesson = ctx.lesson(args.lesson.as_deref())?;
    if lesson.checks.iter().all(|c| c.hints.is_empty()) {
        return Err(LessonError::NoHints { lesson: lesson.id.clone() }.into());
    }
    let (check, failing) = match args.check.as_deref() {
        Some(id) => (named_check(&lesson, id)?, None),
        None => match first_failing(ctx, &lesson)? {
            Some((check, failing)) => (check, Some(failing)),
            None => return Ok(EXIT_SUCCESS),
        },
    };
    if check.hints.is_empty() {
        output::line(&format!(
            "The check {} has no hints. ./workshop solution {} --reveal shows the reference.",
            check.id, lesson.id
        ))?;
        return Ok(EXIT_SUCCESS);
    }
    let (shown, newest) = next_step(ctx, &lesson.id, check);
    let again = match args.check.as_deref() {
        Some(id) => format!("./workshop hint {} --check {id}", lesson.id),
        None => format!("./workshop hint {}", lesson.id),
    };
    let card = Card {
        check,
        failing: failing.as_deref(),
        shown,
        newest,
        lesson: &lesson.id,
        again: Again::Command(&again),
    };
    output::print(&card.text(&ctx.styles, ctx.width))?;
    if args.edit {
        let file = ctx.learner_file(&lesson, None)?;
        crate::terminal::editor::open(&file, &ctx.shown(&file))?;
    }
    Ok(EXIT_SUCCESS)
}

/// The check named by `--check`.
fn named_check<'l>(lesson: &'l Lesson, id: &str) -> Result<&'l CheckSpec, Error> {
    lesson.check(id).ok_or_else(|| {
        let ids = lesson.checks.iter().map(|c| c.id.clone()).collect();
        Error::from(LessonError::NoCheck { lesson: lesson.id.clone(), id: id.to_string(), ids })
    })
}

/// The first check the learner's file fails, with why; `None` (said here) when every check passes.
fn first_failing<'l>(
    ctx: &Context,
    lesson: &'l Lesson,
) -> Result<Option<(&'l CheckSpec, String)>, Error> {
    let file = ctx.learner_file(lesson, None)?;
    let limit = std::time::Duration::from_secs_f64(GRADE_TIMEOUT_SECS);
    let report = crate::checks::one_file::to_the_end(&ctx.at(), lesson, &file, limit)?;
    if report.status == Status::Error {
        return Err(CourseError::DoesNotLoad {
            file: report.file.clone(),
            first_line: report.message.lines().next().unwrap_or_default().to_string(),
            lesson: lesson.id.clone(),
        }
        .into());
    }
    let Some(first) = report.first_failure() else {
        output::line(&format!(
            "All {} checks pass: no hint needed. Compare your file with the reference: ./workshop solution {}",
            report.total, lesson.id
        ))?;
        return Ok(None);
    };
    let check = lesson.check(&first.id).ok_or_else(|| {
        let flaw = Flaw::NoCheckEntry { check: first.id.clone() };
        Error::from(Corrupt::new(&lesson.dir.join("lesson.toml"), flaw))
    })?;
    Ok(Some((check, first.message.clone())))
}
