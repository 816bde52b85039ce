//! Replaying a ticket: the one path that `watch`, `record`, `doctor` and the player share. A
//! `Replayer` knows where the lesson's recordings and the learner's own are, starts Python with
//! the chosen code, and runs a ticket through a runtime with the model's turns from the shipped
//! recordings, then the learner's own (under `work/<lesson>/recordings/`), then, with `--live`,
//! the model itself; or, for authors, from any model (a script, the live API).

pub(crate) mod counts;
pub(crate) mod events;
pub(crate) mod exchange;
pub(crate) mod live;
pub(crate) mod messages;
pub(crate) mod received;
pub(crate) mod recordings;
pub(crate) mod runtime;
pub(crate) mod story;
pub(crate) mod turns;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::bridge::{Bridge, LoadError, Stop};
use crate::course::root::Where;
use crate::error::{Corrupt, Error, FlagError, Flaw, LessonError};
use crate::lesson::{Lesson, Runtime, Ticket};
use crate::replay::events::Run;
use crate::replay::live::{own, Client, Layered, LiveModel, Settings};
use crate::replay::turns::{Model, RecordedModel};
use recordings::{Cassette, Entry};

/// Whose functions the tools use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodeChoice {
    Starter,
    Solution,
    Yours,
    Path(PathBuf),
    /// One of the lesson's named mistakes, by its label.
    Mistake(String),
}

impl CodeChoice {
    /// The name the header shows.
    pub fn label(&self, at: &Where, lesson: &Lesson) -> String {
        match self {
            CodeChoice::Starter => "starter".into(),
            CodeChoice::Solution => lesson.solution_label.clone(),
            CodeChoice::Yours => "yours".into(),
            CodeChoice::Path(path) => at.shown(path),
            CodeChoice::Mistake(label) => label.clone(),
        }
    }

    /// The file holding the code, which must exist.
    pub fn file(&self, at: &Where, lesson: &Lesson) -> Result<PathBuf, Error> {
        let path = match self {
            CodeChoice::Starter => lesson.starter_file(&at.root),
            CodeChoice::Solution => lesson.solution_path(),
            CodeChoice::Yours => crate::course::work_file::existing(&at.root, lesson)
                .map_err(|e| e.error(lesson, |p| at.shown(p), Some(&lesson.solution_label)))?,
            CodeChoice::Path(path) => path.clone(),
            CodeChoice::Mistake(label) => match lesson.mistake(label) {
                Some(mistake) => lesson.dir.join(&mistake.file),
                None => {
                    let (lesson, label) = (lesson.id.clone(), label.clone());
                    return Err(LessonError::NoMistake { lesson, label }.into());
                }
            },
        };
        if !path.is_file() {
            return Err(Corrupt::new(&path, Flaw::MissingFromLesson).into());
        }
        Ok(path)
    }
}

/// The tickets to replay in a runtime: the one named, or all that run there.
pub(crate) fn tickets<'l>(
    lesson: &'l Lesson,
    id: Option<&str>,
    runtime: Runtime,
) -> Result<Vec<&'l Ticket>, Error> {
    let Some(id) = id else {
        return Ok(lesson.tickets_for(runtime.name()));
    };
    let ticket = lesson.ticket(id).ok_or_else(|| {
        let ids = lesson.tickets.iter().map(|t| t.id.clone()).collect();
        LessonError::NoTicket { lesson: lesson.id.clone(), id: id.to_string(), ids }
    })?;
    if !ticket.runs_in(runtime.name()) {
        let runtimes = ticket.runtimes.clone();
        return Err(LessonError::WrongRuntime { ticket: id.to_string(), runtimes }.into());
    }
    Ok(vec![ticket])
}

/// The model behind `--live`, for one command.
pub(crate) struct Live {
    client: Client,
    memo: HashMap<String, Entry>,
}

impl Live {
    /// The live model with these limits; an error when it cannot work (no key, bad settings).
    pub(crate) fn new(
        max_requests: Option<u32>,
        request_timeout: Option<f64>,
    ) -> Result<Live, Error> {
        let settings = Settings::resolve(max_requests, request_timeout)
            .map_err(|e| FlagError::Live(Box::new(e)))?;
        Ok(Live { client: Client::new(settings), memo: HashMap::new() })
    }
}

/// A code under replay: its label, and its Python (or why it did not load).
pub(crate) struct Coded {
    pub label: String,
    pub bridge: Result<Bridge, LoadError>,
}

/// Replays the tickets of one lesson.
pub(crate) struct Replayer<'l> {
    at: Where,
    lesson: &'l Lesson,
    /// The deadline of each call into the learner's code.
    limit: Duration,
    live: Option<Live>,
}

impl<'l> Replayer<'l> {
    pub(crate) fn new(at: Where, lesson: &'l Lesson, limit: Duration) -> Replayer<'l> {
        Replayer { at, lesson, limit, live: None }
    }

    /// Ask the model where no recording answers.
    pub(crate) fn with_live(mut self, live: Option<Live>) -> Replayer<'l> {
        self.live = live;
        self
    }

    /// Start Python with a code file loaded.
    pub(crate) fn open(&self, file: &Path) -> Result<Bridge, LoadError> {
        self.open_stoppable(file, Stop::default())
    }

    /// As `open`, for a caller that may have to end Python from another thread (see `Stop`).
    pub(crate) fn open_stoppable(&self, file: &Path, stop: Stop) -> Result<Bridge, LoadError> {
        Bridge::start_with_spare(
            self.lesson.python_for(file, &self.at.shown(file), self.limit),
            stop,
            None,
        )
    }

    /// A code choice, its file found and its Python started.
    pub(crate) fn code(&self, choice: &CodeChoice) -> Result<Coded, Error> {
        let file = choice.file(&self.at, self.lesson)?;
        Ok(Coded { label: choice.label(&self.at, self.lesson), bridge: self.open(&file) })
    }

    /// The shipped recorded turns of a ticket in a runtime, validated.
    pub(crate) fn cassette(&self, runtime: Runtime, ticket: &Ticket) -> Result<Cassette, Error> {
        let dir = self.lesson.recordings_dir(&self.at.root);
        let kinds = crate::lesson::kinds::Kinds::for_ticket(&self.lesson.own_words, &ticket.id);
        Cassette::load(&self.at.root, &recordings::file_for(&dir, runtime.name(), &ticket.id))?
            .with_kinds(&self.at.root, kinds)
    }

    /// Run a ticket with the model's turns from any model (an author's script, the live API).
    pub(crate) fn run_with(
        &self,
        ticket: &Ticket,
        runtime: Runtime,
        code: &mut Coded,
        model: &mut dyn Model,
    ) -> Run {
        run_code(self.lesson, ticket, runtime, &code.label, &mut code.bridge, model)
    }

    /// As `replay`, for a caller that keeps its own Python per code (the player).
    pub(crate) fn replay_with(
        &mut self,
        ticket: &Ticket,
        runtime: Runtime,
        label: &str,
        bridge: &mut Result<Bridge, LoadError>,
        shipped: &Cassette,
    ) -> Result<Run, Error> {
        let file = own::file(&self.at.root, &self.lesson.id, runtime.name(), &ticket.id);
        let mut entries = own::load(&self.at.root, &file)?;
        let asker = self.live.as_mut().map(|l| LiveModel::new(&mut l.client, &mut l.memo));
        let mut model = Layered::new(
            RecordedModel::new(shipped, self.at.root.clone()),
            &mut entries,
            file,
            asker,
        );
        let mark = self.lesson.world_mark();
        let replay = run_code(self.lesson, ticket, runtime, label, bridge, &mut model);
        // A world that broke is its author's error, whatever the replay then showed.
        if let Some(e) = self.lesson.world_error() {
            return Err(e);
        }
        // One the code under replay upset is that code's doing (the player runs nothing beside
        // it); the world is whole again.
        if let crate::lesson::WorldSince::UpsetFromHere(why)
        | crate::lesson::WorldSince::Reset { outside: Some(why) } =
            self.lesson.world_since(&mark)
        {
            let message = format!(
                "the {label} code's run of {} upset the lesson's world: {why}. This is the code's \
                 doing, not the world's: it must leave the world alone and name things of a sane size.",
                ticket.id
            );
            return Err(Error::Load(LoadError::new(
                crate::bridge::LoadKind::UpsetTheWorld,
                message,
            )));
        }
        match model.failure {
            Some(failure) => Err(Error::Model {
                failure,
                after: "The replay stopped; nothing under recordings/ was changed.",
            }),
            None => Ok(replay),
        }
    }

    /// Replay a ticket from its shipped recordings only, strictly; also the keys of the turns
    /// it used (for `doctor`).
    pub(crate) fn strict(
        &self,
        ticket: &Ticket,
        runtime: Runtime,
        code: &mut Coded,
        shipped: &Cassette,
    ) -> (Run, HashSet<String>) {
        let mut model = RecordedModel::new(shipped, self.at.root.clone());
        let replay = self.run_with(ticket, runtime, code, &mut model);
        (replay, model.used)
    }

    /// Replay a ticket as a learner sees it: shipped turns first, then the learner's own, then
    /// the model with `--live` (its replies are kept among the learner's own; the shipped
    /// recordings are never written).
    pub(crate) fn replay(
        &mut self,
        ticket: &Ticket,
        runtime: Runtime,
        code: &mut Coded,
        shipped: &Cassette,
    ) -> Result<Run, Error> {
        self.replay_with(ticket, runtime, &code.label, &mut code.bridge, shipped)
    }
}

/// A ticket run with this code, or the replay that says it did not load.
fn run_code(
    lesson: &Lesson,
    ticket: &Ticket,
    runtime: Runtime,
    label: &str,
    bridge: &mut Result<Bridge, LoadError>,
    model: &mut dyn Model,
) -> Run {
    match bridge {
        Ok(bridge) => crate::replay::runtime::run(lesson, ticket, runtime, label, bridge, model),
        Err(error) => crate::replay::runtime::not_loaded(lesson, ticket, label, runtime, error),
    }
}
