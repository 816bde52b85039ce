//! `workshop record`: for lesson authors. Runs every scripted combination for real and writes the
//! authored model turns it answered with as recordings.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::cli::RecordArgs;
use crate::commands::Context;
use crate::error::{Error, RecordError};
use crate::lesson::kinds::Kinds;
use crate::outln;
use crate::replay::events::Event;
use crate::replay::events::Run;
use crate::replay::recordings::{self, Entry};
use crate::replay::turns::{Script, ScriptModel, ScriptRun};
use crate::replay::Replayer;

use super::record_runs::{finish, prepare};

use crate::render::count;

pub(super) fn run(ctx: &Context, args: RecordArgs) -> Result<i32, Error> {
    let lesson = ctx.lesson(args.lesson.as_deref())?;
    let Some(script) = Script::load(&ctx.root, &lesson.recordings_dir(&ctx.root))? else {
        let dir = ctx.shown(&lesson.recordings_dir(&ctx.root));
        return Err(RecordError::NoScript { dir }.into());
    };
    let runs = chosen_runs(&script, &args)?;
    if args.live.live {
        return super::record_live::run(ctx, &lesson, &runs, &args);
    }
    let s = &ctx.styles;
    let replayer = Replayer::new(ctx.at(), &lesson, args.timeout);
    let mut files: BTreeMap<PathBuf, Vec<Entry>> = BTreeMap::new();
    let mut kinds_of: BTreeMap<PathBuf, Kinds> = BTreeMap::new();
    let mut problems = 0;
    // Recording is the point: a reader who went away (`record | head -1`) stops the report, not
    // the recording. The first failure to print is returned at the end.
    let mut printed = Ok(());
    for run in runs {
        let (runtime, ticket, mut code) = prepare(ctx, &lesson, &replayer, run)?;
        let mut model = ScriptModel::new(&script, run, &lesson.agent.server);
        let replay = replayer.run_with(ticket, runtime, &mut code, &mut model);
        // A world that broke is its author's error: nothing is recorded from it.
        if let Some(e) = lesson.world_error() {
            return Err(e);
        }
        let name = format!("{}/{} with {}", runtime.name(), ticket.id, run.code);
        let mut issues = off_script(&replay, &model, run);
        let target =
            recordings::file_for(&lesson.recordings_dir(&ctx.root), runtime.name(), &ticket.id);
        let kinds = kinds_of
            .entry(target.clone())
            .or_insert_with(|| Kinds::for_ticket(&lesson.own_words, &ticket.id));
        let entries = files.entry(target).or_default();
        merge(entries, kinds, model.recorded, &mut issues);
        if issues.is_empty() {
            printed = printed.and_then(|()| {
                outln!("{} {name}: {}", s.paint(s.good, ctx.glyphs.pass), replay.verdict.text)
            });
        } else {
            problems += 1;
            printed = printed.and_then(|()| {
                outln!("{} {name}: {}", s.paint(s.bad, ctx.glyphs.fail), issues.join("; "))
            });
        }
    }
    let not_done =
        "not go as scripted; no recording was written. Fix script.toml and run this again.";
    finish(ctx, printed, problems, &files, not_done, |path, entries| {
        by_kind(kinds_of.get(path), entries)
    })
}

/// How a run strayed from its script: turns it ran out of or left over, its code's error, a
/// different number of tool calls.
fn off_script(replay: &Run, model: &ScriptModel, run: &ScriptRun) -> Vec<String> {
    let mut issues = Vec::new();
    if let Some(Event::NoRecording { diff, .. }) =
        replay.events.iter().find(|e| matches!(e, Event::NoRecording { .. }))
    {
        issues.push(format!("ran out of scripted turns ({diff})"));
    }
    if let Some(Event::CodeError { message, .. }) =
        replay.events.iter().find(|e| matches!(e, Event::CodeError { .. }))
    {
        issues.push(message.clone());
    }
    if model.turns_left() > 0 {
        issues.push(format!(
            "the script has {} nothing asked for",
            count(model.turns_left(), "turn")
        ));
    }
    if replay.verdict.tool_calls != run.tool_calls {
        issues.push(format!(
            "the tool ran {}; the script says {}",
            count(replay.verdict.tool_calls, "time"),
            run.tool_calls
        ));
    }
    issues
}

/// Add a run's recorded turns to its file's, each request once. Two runs that send one request,
/// or words of one kind in requests otherwise alike, must script the same reply to it.
/// A request sent again after a transient error is recorded again: the n-th sending of it in a
/// run is matched with the n-th entry of its key.
fn merge(entries: &mut Vec<Entry>, kinds: &Kinds, recorded: Vec<Entry>, issues: &mut Vec<String>) {
    let mut sent: BTreeMap<String, usize> = BTreeMap::new();
    for entry in recorded {
        let nth = sent.entry(entry.key.clone()).or_default();
        let this = *nth;
        *nth += 1;
        let kind = kinds.key(&entry.request);
        let same_kind = |e: &&Entry| kind.is_some() && kinds.key(&e.request) == kind;
        match entries.iter().filter(|e| e.key == entry.key).nth(this) {
            Some(same) if same.response == entry.response => {}
            Some(_) => issues.push("sends a request another run sends too, but scripts a different reply to it".into()),
            None if entries.iter().filter(same_kind).any(|e| e.response != entry.response) => issues.push(
                "sends words of the same kind as another run (own_words in the lesson), but scripts a different reply to them, so a replay could not tell which to give".into(),
            ),
            None => entries.push(entry),
        }
    }
}

/// "; replies by kind: …", for a file holding replies to words of the lesson's kinds.
fn by_kind(kinds: Option<&Kinds>, entries: &[Entry]) -> String {
    let kinds = kinds.map(|k| k.recorded(entries.iter().map(|e| &e.request))).unwrap_or_default();
    if kinds.is_empty() {
        return String::new();
    }
    let ids: Vec<&str> = kinds.iter().map(|(_, k)| k.kind.as_str()).collect();
    format!("; replies by kind: {}", ids.join(", "))
}

/// The scripted runs `--ticket` and `--runtime` select (every run without them).
fn chosen_runs<'s>(script: &'s Script, args: &RecordArgs) -> Result<Vec<&'s ScriptRun>, Error> {
    let runs: Vec<&ScriptRun> = script
        .runs
        .iter()
        .filter(|r| args.ticket.as_ref().is_none_or(|t| *t == r.ticket))
        .filter(|r| args.runtime.is_none_or(|rt| rt.name() == r.runtime))
        .collect();
    if runs.is_empty() {
        let runtime = args.runtime.map(|r| r.name().to_string());
        return Err(RecordError::NoRun { ticket: args.ticket.clone(), runtime }.into());
    }
    Ok(runs)
}
