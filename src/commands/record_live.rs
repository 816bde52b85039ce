//! `workshop record --live`: the scripted combinations run against the model itself. Each turn
//! is labelled `live` with its model, date and request id. Nothing is written until every run
//! went through: a failure or an interrupt leaves the recordings as they were.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use crate::cli::RecordArgs;
use crate::commands::Context;
use crate::error::{Error, FlagError, EXIT_SUCCESS};
use crate::lesson::Lesson;
use crate::outln;
use crate::replay::events::Event;
use crate::replay::live::{Client, LiveModel, Settings};
use crate::replay::recordings::{self, Entry};
use crate::replay::turns::ScriptRun;
use crate::replay::Replayer;

use super::record_runs::{finish, prepare};

use crate::render::count;

const UNTOUCHED: &str = "Nothing was written: the recordings are as they were.";

pub(super) fn run(
    ctx: &Context,
    lesson: &Lesson,
    runs: &[&ScriptRun],
    args: &RecordArgs,
) -> Result<i32, Error> {
    same_model(lesson, args)?;
    let settings = Settings::resolve(args.live.max_requests, args.live.request_timeout)
        .map_err(|e| FlagError::Live(Box::new(e)))?;
    let s = &ctx.styles;
    let replayer = Replayer::new(ctx.at(), lesson, args.timeout);
    let mut client = Client::new(settings);
    // One answer per request across runs: the starter and the solution run of a ticket open
    // with the same request, and it is asked once.
    let mut memo: HashMap<String, Entry> = HashMap::new();
    let mut files: BTreeMap<PathBuf, Vec<Entry>> = BTreeMap::new();
    let mut problems = 0;
    // Recording is the point: a reader who went away (`record | head -1`) stops the report, not
    // the recording. The first failure to print is returned at the end.
    let mut printed = outln!(
        "Asking {} at {} ({} runs).",
        lesson.agent.model,
        client.settings().shown_base(),
        runs.len()
    );
    for run in runs {
        let (runtime, ticket, mut code) = prepare(ctx, lesson, &replayer, run)?;
        let mut model = LiveModel::new(&mut client, &mut memo);
        let replay = replayer.run_with(ticket, runtime, &mut code, &mut model);
        let name = format!("{}/{} with {}", runtime.name(), ticket.id, run.code);
        if let Some(failure) = model.failure.take() {
            let _ = printed.and_then(|()| {
                outln!("{} {name}: the model could not be asked", s.paint(s.bad, ctx.glyphs.fail))
            });
            return Err(Error::Model { failure: failure.to_string(), after: UNTOUCHED });
        }
        let answered = std::mem::take(&mut model.answered);
        let broke = replay.events.iter().find_map(|e| match e {
            Event::CodeError { message, .. } => Some(message.clone()),
            _ => None,
        });
        if let Some(message) = broke {
            problems += 1;
            printed = printed
                .and_then(|()| outln!("{} {name}: {message}", s.paint(s.bad, ctx.glyphs.fail)));
            continue;
        }
        let target =
            recordings::file_for(&lesson.recordings_dir(&ctx.root), runtime.name(), &ticket.id);
        keep_new(files.entry(target).or_default(), answered);
        // A live model may choose differently from the authored script: said, not refused.
        let differs = (replay.verdict.tool_calls != run.tool_calls).then(|| {
            format!(" (the authored script says the tool runs {})", count(run.tool_calls, "time"))
        });
        printed = printed.and_then(|()| {
            outln!(
                "{} {name}: {}{}",
                s.paint(s.good, ctx.glyphs.pass),
                replay.verdict.text,
                differs.unwrap_or_default()
            )
        });
    }
    let not_done =
        format!("not finish. {UNTOUCHED} Fix the code or the lesson and run this again.");
    let code = finish(ctx, printed, problems, &files, &not_done, |_, _| ", live".to_string())?;
    if code != EXIT_SUCCESS {
        return Ok(code);
    }
    outln!("{} sent to the API.", count(client.sent as usize, "request"))?;
    Ok(EXIT_SUCCESS)
}

/// `--model` may only name the model the lesson names: replays send that one.
fn same_model(lesson: &Lesson, args: &RecordArgs) -> Result<(), Error> {
    match args.model.as_deref().filter(|m| *m != lesson.agent.model) {
        Some(model) => Err(FlagError::OtherModel {
            model: model.to_string(),
            lesson: lesson.id.clone(),
            named: lesson.agent.model.clone(),
        }
        .into()),
        None => Ok(()),
    }
}

/// Add the turns answered to a file's, each request once.
fn keep_new(entries: &mut Vec<Entry>, answered: Vec<Entry>) {
    for entry in answered {
        if !entries.iter().any(|e| e.key == entry.key) {
            entries.push(entry);
        }
    }
}
