//! `workshop reset`: the starter back in work/<lesson>/, the learner's version kept beside it;
//! `reset --undo`: that version back again.

use std::io::BufRead;

use crate::cli::ResetArgs;
use crate::commands::Context;
use crate::error::{Error, EXIT_FAILED, EXIT_SUCCESS};
use crate::{course::starter, outln, output};

pub(super) fn run(ctx: &Context, args: ResetArgs) -> Result<i32, Error> {
    let lesson = ctx.lesson(args.lesson.as_deref())?;
    let file = lesson.work_file(&ctx.root);
    if args.undo {
        let undone = starter::bring_back(&ctx.at(), &lesson, args.force)?;
        if let Some(kept) = &undone.kept {
            outln!("kept     your previous version as {}", ctx.shown(kept))?;
        }
        outln!("restored {} from {}", ctx.shown(&file), ctx.shown(&undone.restored))?;
        return Ok(EXIT_SUCCESS);
    }
    if !starter::edited(&ctx.at(), &lesson) && file.is_file() {
        outln!("{} is already the starter: nothing to reset.", ctx.shown(&file))?;
        return Ok(EXIT_SUCCESS);
    }
    if !args.yes && ctx.stdin_terminal && ctx.stdout_terminal && file.is_file() {
        output::print(&format!(
            "Put the starter back in {}? Your version is kept as a backup beside it. [y/N] ",
            ctx.shown(&file)
        ))?;
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            outln!("Left as it is.")?;
            return Ok(EXIT_FAILED);
        }
    }
    let kept = starter::put_starter(&ctx.at(), &lesson, true, "reset")?;
    for backup in &kept {
        outln!("kept     your previous version as {}", ctx.shown(backup))?;
    }
    outln!("reset    {} is the starter again", ctx.shown(&file))?;
    Ok(EXIT_SUCCESS)
}
