//! `workshop solution`: the reference solution as a diff against the learner's file, once their
//! checks have been green; before that only with `--reveal` (confirmed on a terminal).

use std::io::BufRead;

use crate::cli::SolutionArgs;
use crate::commands::Context;
use crate::course::progress::Progress;
use crate::error::{Corrupt, Error, Flaw, Refusal, EXIT_FAILED, EXIT_SUCCESS};
use crate::output;
use crate::render::solution as diff;

pub(super) fn run(ctx: &Context, args: SolutionArgs) -> Result<i32, Error> {
    let lesson = ctx.lesson(args.lesson.as_deref())?;
    let file = ctx.learner_file(&lesson, None)?;
    let green = Progress::read(&ctx.root).lessons.get(&lesson.id).is_some_and(|p| p.green);
    // Off a terminal nobody can answer y/N, so --reveal alone is the consent (as --help says).
    let can_ask = ctx.stdin_terminal && ctx.stdout_terminal;
    if !green {
        if !args.reveal {
            return Err(Refusal::SolutionLocked { lesson: lesson.id.clone() }.into());
        }
        if can_ask && !confirmed()? {
            output::line(&format!(
                "Kept hidden. ./workshop hint {} gives the next step instead.",
                lesson.id
            ))?;
            return Ok(EXIT_FAILED);
        }
    }
    let reference = lesson.solution_path();
    let theirs = crate::files::read_data_text(&file, crate::files::DATA_CAP)
        .map_err(|e| Error::io(format!("cannot read {}", ctx.shown(&file)), e))?;
    let ours = crate::files::read_data_text(&reference, crate::files::DATA_CAP)
        .map_err(|e| Corrupt::new(&reference, Flaw::Unreadable(e)))?;
    let yours_label = format!("yours: {}", ctx.shown(&file));
    let reference_label = format!("reference: {}", ctx.shown(&reference));
    if theirs == ours {
        output::line(&format!(
            "Your file is the same as the reference solution ({}).",
            ctx.shown(&reference)
        ))?;
        return Ok(EXIT_SUCCESS);
    }
    if !green && !can_ask {
        output::line("Your checks are not green yet; here is the reference anyway.\n")?;
    }
    let key = "Lines starting with - are yours only; lines starting with + are the reference's. The files' opening docstrings and the starter's TODO notes are left out.";
    output::line(&format!(
        "{}\n",
        textwrap::wrap(key, crate::render::plain_words(ctx.width)).join("\n")
    ))?;
    // The starter's notes to the learner are left out of the diff; without a starter, nothing is.
    let starter =
        crate::files::read_data_text(&lesson.starter_file(&ctx.root), crate::files::DATA_CAP)
            .unwrap_or_default();
    let notes = diff::notes_of(&starter);
    let sides = diff::Sides { yours: &theirs, reference: &ours, notes: &notes };
    // The learner's file and the reference, line for line as they are.
    output::as_is(&diff::unified(&sides, &yours_label, &reference_label, &ctx.styles))?;
    Ok(EXIT_SUCCESS)
}

/// Ask before spoiling the exercise. Anything but y or yes, including end of input, is no.
fn confirmed() -> Result<bool, Error> {
    output::print("Your checks are not green yet. Show the reference solution anyway? [y/N] ")?;
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| Error::io("cannot read your answer", e))?;
    let answer = line.trim().to_ascii_lowercase();
    Ok(answer == "y" || answer == "yes")
}
