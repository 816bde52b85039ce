//! Replays for learners: the shipped recordings, then the learner's own under
//! `work/<lesson>/recordings/`, then, with `watch --live`, the model itself. What the model
//! answers is kept among the learner's own; the shipped recordings are never written.

use std::collections::HashMap;

use crate::bridge::{Bridge, LoadError};
use crate::cli::LiveArgs;
use crate::context::Context;
use crate::error::Error;
use crate::events::Replay;
use crate::lesson::Runtime;
use crate::lesson::{Lesson, Ticket};
use crate::live::{own, Client, Layered, LiveModel, Settings};
use crate::model::ReplayModel;
use crate::recordings::{Cassette, Entry};
use crate::replaying;

/// The model behind `--live`, for one command.
pub struct Live {
    client: Client,
    memo: HashMap<String, Entry>,
}

impl Live {
    /// `None` without `--live`; an error when `--live` cannot work (no key, bad settings).
    pub fn from_args(args: &LiveArgs) -> Result<Option<Live>, Error> {
        if !args.live {
            return Ok(None);
        }
        let settings = Settings::resolve(args.max_requests, args.request_timeout).map_err(Error::usage)?;
        Ok(Some(Live { client: Client::new(settings), memo: HashMap::new() }))
    }
}

/// The learner's own turns for a ticket, loaded once and shared by the runs of that ticket.
pub struct Own {
    file: std::path::PathBuf,
    entries: Vec<Entry>,
}

impl Own {
    pub fn load(ctx: &Context, lesson: &Lesson, runtime: Runtime, ticket: &Ticket) -> Result<Own, Error> {
        let file = own::file(&ctx.root, &lesson.id, runtime.name(), &ticket.id);
        let entries = own::load(&ctx.root, &file)?;
        Ok(Own { file, entries })
    }
}

/// Replay a ticket: shipped turns first, then the learner's own, then the model with `--live`.
#[allow(clippy::too_many_arguments)]
pub fn replay(
    ctx: &Context,
    lesson: &Lesson,
    ticket: &Ticket,
    runtime: Runtime,
    label: &str,
    code: &mut Result<Bridge, LoadError>,
    shipped: &Cassette,
    own: &mut Own,
    live: Option<&mut Live>,
) -> Result<Replay, Error> {
    let asker = live.map(|l| LiveModel::new(&mut l.client, &mut l.memo));
    let mut model =
        Layered::new(ReplayModel::new(shipped, ctx.root.clone()), &mut own.entries, own.file.clone(), asker);
    let replay = replaying::run_with(lesson, ticket, runtime, label, code, &mut model);
    match model.failure {
        Some(why) => Err(Error::Io(format!("{why} The replay stopped; nothing under recordings/ was changed."))),
        None => Ok(replay),
    }
}

/// Replay a ticket offline: the shipped turns, then the learner's own (the player's way).
pub fn replay_offline(
    ctx: &Context,
    lesson: &Lesson,
    ticket: &Ticket,
    runtime: Runtime,
    label: &str,
    code: &mut Result<Bridge, LoadError>,
    shipped: &Cassette,
) -> Result<Replay, Error> {
    let mut own = Own::load(ctx, lesson, runtime, ticket)?;
    replay(ctx, lesson, ticket, runtime, label, code, shipped, &mut own, None)
}
