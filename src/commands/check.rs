//! `workshop check`: grade the learner's file and say what to do next.

use std::time::Duration;

use crate::checks::{Report, Status};
use crate::cli::{CheckArgs, CheckFormat};
use crate::commands::Context;
use crate::error::{Error, EXIT_COULD_NOT_RUN, EXIT_FAILED, EXIT_SUCCESS};
use crate::lesson::Lesson;
use crate::output;
use crate::progress::Progress;
use crate::render;

/// Grade a file to the end.
pub fn grade(ctx: &Context, lesson: &Lesson, file: &std::path::Path, limit: Duration) -> Result<Report, Error> {
    let never = std::sync::atomic::AtomicBool::new(false);
    match crate::grading::grade(lesson, file, &ctx.shown(file), limit, &never) {
        Some(result) => result.map_err(Error::Load),
        None => Err(Error::usage("the grading was stopped")),
    }
}

/// Record a grade in progress when it is of the learner's own work file, however it was named
/// (`--file`, `..`), and the file loaded.
pub fn save_progress(ctx: &Context, lesson: &Lesson, file: &std::path::Path, report: &Report) -> std::io::Result<()> {
    let same = |a: &std::path::Path, b: &std::path::Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    if !same(file, &lesson.work_file(&ctx.root)) || report.status == Status::Error {
        return Ok(());
    }
    Progress::update(&ctx.root, &lesson.id, |p| {
        p.started = true;
        p.passed = Some(report.passed);
        p.total = Some(report.total);
        p.green |= report.status == Status::Pass;
    })
}

pub fn run(ctx: &Context, args: CheckArgs) -> Result<i32, Error> {
    if args.watch {
        return super::check_watch::run(ctx, args);
    }
    let lesson = ctx.lesson(args.lesson.as_deref())?;
    let limit = args.timeout;
    let file = ctx.learner_file(&lesson, args.file.as_deref())?;
    if args.edit {
        crate::editor::open(&file, &ctx.shown(&file))?;
    }
    let mut report = match grade(ctx, &lesson, &file, limit) {
        // An autograder reads stdout: even with no Python it gets a report it can parse.
        Err(Error::Load(e)) if args.format != CheckFormat::Text => {
            crate::errln!("error: {e}");
            Report::not_loaded(&lesson, ctx.shown(&file), &e)
        }
        other => other?,
    };
    if let Some(typed) = &args.file {
        // Suggest the command as it was typed, so it works from where the learner is.
        report.again = format!("run ./workshop check {} --file {} again", lesson.id, typed.display());
    }
    let shown = match args.format {
        CheckFormat::Text => output::print(&render::check::text(&report, &ctx.styles, ctx.glyphs, ctx.width)),
        CheckFormat::Json => output::line(&render::check::json(&report)),
        CheckFormat::Exercism => output::line(&render::exercism::results(&report, &lesson)),
    };
    // The grade counts even when nobody read all of it (`check | head -1`).
    if let Err(e) = save_progress(ctx, &lesson, &file, &report) {
        crate::errln!("warning: progress was not saved ({e}); the grade above stands.");
    }
    shown?;
    Ok(match report.status {
        Status::Pass => EXIT_SUCCESS,
        Status::Fail => EXIT_FAILED,
        Status::Error => EXIT_COULD_NOT_RUN,
    })
}
