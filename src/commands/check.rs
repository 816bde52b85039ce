//! `workshop check`: grade the learner's file and say what to do next.

use crate::checks::one_file;
use crate::checks::{Report, Status};
use crate::cli::{CheckArgs, CheckFormat};
use crate::commands::Context;
use crate::error::{Error, EXIT_COULD_NOT_RUN, EXIT_FAILED, EXIT_SUCCESS};
use crate::output;
use crate::render;

/// Whether Python is started at once, as soon as the command line is parsed and before the
/// workshop is even found: most of a check is the interpreter's start-up, and it then runs beside
/// everything else. Not for `--watch` (it keeps its own ready) or `--edit` (the editor may take
/// minutes); help never gets here. A check asked for any other way warms up in `run`.
pub(crate) fn grades_at_once(args: &CheckArgs) -> bool {
    !args.watch && !args.edit
}

pub(crate) fn run(ctx: &Context, args: CheckArgs) -> Result<i32, Error> {
    if args.watch {
        return super::check_on_save::run(ctx, args);
    }
    if !args.edit {
        // Python starts now, while the lesson is read: most of a check is its start-up.
        super::warm_up(false);
    }
    crate::checks::sample_key::choose(false)?;
    let lesson = ctx.lesson(args.lesson.as_deref())?;
    let limit = args.timeout;
    let file = ctx.learner_file(&lesson, args.file.as_deref())?;
    if args.edit {
        crate::terminal::editor::open(&file, &ctx.shown(&file))?;
    }
    let mut report = match one_file::to_the_end(&ctx.at(), &lesson, &file, limit) {
        // An autograder reads stdout: even with no Python it gets a report it can parse.
        Err(Error::Load(e)) if args.format != CheckFormat::Text => {
            // The learner's file and line, as they are: its text is not the workshop's.
            crate::output::note_as_is(&format!("error: {e}"));
            Report::not_loaded(&lesson, ctx.shown(&file), &e)
        }
        other => other?,
    };
    if let Some(typed) = &args.file {
        // Suggest the command as it was typed, so it works from where the learner is.
        let typed = crate::text::inert::path(typed);
        let again = format!("run ./workshop check {} --file {typed} again", lesson.id);
        report.again = output::adapt(&again).into_owned();
    }
    if args.format == CheckFormat::Json {
        // An autograder reads the name itself; JSON escapes whatever in it would act.
        report.file = ctx.at().named(&file);
    }
    let (s, glyphs) = (&ctx.styles, ctx.glyphs);
    let shown = match args.format {
        // The report holds what the learner's code printed and returned: never rewritten (its
        // own hints were adapted as they were made).
        CheckFormat::Text => output::as_is(&render::check::text(&report, s, glyphs, ctx.width)),
        CheckFormat::Json => output::line_as_is(&render::check::json(&report)),
        CheckFormat::Exercism => output::line_as_is(&render::exercism::results(&report, &lesson)),
    };
    // The grade counts even when nobody read all of it (`check | head -1`).
    if let Err(e) = one_file::save_progress(&ctx.root, &lesson, &file, &report) {
        crate::errln!(
            "warning: progress was not saved ({e}{}); the grade above stands.",
            crate::error::next_step(&e)
        );
    }
    shown?;
    // Green is a door: what to do next, when the file graded is the learner's own.
    if args.format == CheckFormat::Text
        && report.status == Status::Pass
        && one_file::is_work_file(&ctx.root, &lesson, &file)
    {
        output::print(&format!("\nWhat next:\n{}", crate::next::door(ctx, &lesson)?.text))?;
    }
    Ok(match report.status {
        Status::Pass => EXIT_SUCCESS,
        Status::Fail | Status::NotRun => EXIT_FAILED,
        Status::Error => EXIT_COULD_NOT_RUN,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_is_started_early_for_a_check_that_grades_at_once() {
        use clap::Parser;
        let quick = |line: &str| {
            let cli = crate::cli::Cli::try_parse_from(
                std::iter::once("workshop").chain(line.split_whitespace()),
            );
            matches!(cli.map(|c| c.command), Ok(Some(crate::cli::Command::Check(args))) if grades_at_once(&args))
        };
        for line in [
            "check",
            "check lesson --file x.py --format json",
            "--root /w check",
            "--root=/w --ascii check",
            "--color never check",
        ] {
            assert!(quick(line), "{line}");
        }
        for line in [
            "",
            "watch",
            "check --watch",
            "check --edit",
            "check --help",
            "--root check",
            "list check",
            "--root /w watch",
        ] {
            assert!(!quick(line), "{line}");
        }
    }
}
