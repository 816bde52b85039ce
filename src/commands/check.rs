//! `workshop check`: grade the learner's file and say what to do next.

use crate::checks::{Report, Status};
use crate::cli::{CheckArgs, CheckFormat};
use crate::commands::Context;
use crate::error::{Error, EXIT_COULD_NOT_RUN, EXIT_FAILED, EXIT_SUCCESS};
use crate::grading;
use crate::output;
use crate::render;

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
    let mut report = match grading::to_the_end(&ctx.place(), &lesson, &file, limit) {
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
    if let Err(e) = grading::save_progress(&ctx.root, &lesson, &file, &report) {
        crate::errln!("warning: progress was not saved ({e}); the grade above stands.");
    }
    shown?;
    // Green is a door: what to do next, when the file graded is the learner's own.
    if args.format == CheckFormat::Text
        && report.status == Status::Pass
        && grading::is_work_file(&ctx.root, &lesson, &file)
    {
        output::print(&format!("\nWhat next:\n{}", crate::next::door(ctx, &lesson)?))?;
    }
    Ok(match report.status {
        Status::Pass => EXIT_SUCCESS,
        Status::Fail => EXIT_FAILED,
        Status::Error => EXIT_COULD_NOT_RUN,
    })
}
