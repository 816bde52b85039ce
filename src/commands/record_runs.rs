//! What `record` and `record --live` share: a scripted run made ready to replay, and the end of
//! a recording, where nothing is written unless every run went through.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::commands::Context;
use crate::error::{Corrupt, Error, Flaw, EXIT_FAILED, EXIT_SUCCESS};
use crate::lesson::{Lesson, Runtime, Ticket};
use crate::outln;
use crate::render::count;
use crate::replay::recordings::{self, Entry};
use crate::replay::turns::ScriptRun;
use crate::replay::{self, Coded, Replayer};

/// A scripted run's runtime, ticket and code, ready for `Replayer::run_with`.
pub(super) fn prepare<'l>(
    ctx: &Context,
    lesson: &'l Lesson,
    replayer: &Replayer,
    run: &ScriptRun,
) -> Result<(Runtime, &'l Ticket, Coded), Error> {
    let runtime = Runtime::parse(&run.runtime).ok_or_else(|| {
        let script = lesson.recordings_dir(&ctx.root).join("script.toml");
        Corrupt::new(&script, Flaw::UnknownRuntime { name: run.runtime.clone() })
    })?;
    let ticket = replay::tickets(lesson, Some(&run.ticket), runtime)?[0];
    let choice = super::scripted_code(ctx, lesson, &run.code)?;
    let mut code = replayer.code(&choice)?;
    code.label = run.code.clone();
    Ok((runtime, ticket, code))
}

/// The end of a recording. With `problems`, nothing is written and the report says that so many
/// runs did `not_done`; otherwise each file is written, its line saying how many turns and then
/// `note(path, entries)`. `printed` is the first failure to print so far, returned at the end.
pub(super) fn finish(
    ctx: &Context,
    mut printed: Result<(), Error>,
    problems: usize,
    files: &BTreeMap<PathBuf, Vec<Entry>>,
    not_done: &str,
    note: impl Fn(&Path, &[Entry]) -> String,
) -> Result<i32, Error> {
    if problems > 0 {
        printed?;
        outln!(
            "\n{} {not_done}",
            if problems == 1 { "1 run did".to_string() } else { format!("{problems} runs did") }
        )?;
        return Ok(EXIT_FAILED);
    }
    for (path, entries) in files {
        recordings::write_file(path, entries)
            .map_err(|e| Error::io(format!("could not write {}", ctx.shown(path)), e))?;
        let note = note(path, entries);
        printed = printed.and_then(|()| {
            outln!("wrote {} ({}{note})", ctx.shown(path), count(entries.len(), "turn"))
        });
    }
    printed?;
    Ok(EXIT_SUCCESS)
}
