//! Where the player's replays come from: the lesson's tickets run through the real runtimes,
//! Python bridge and recordings. The replays are computed on a worker thread that owns the
//! Python processes (one per code file, kept open between replays), so a learner's file that
//! loops forever slows its own replay down, never the keys.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use crate::bridge::{Bridge, LoadError, Stop};
use crate::context::Context;
use crate::lesson::Runtime;
use crate::lesson::{Lesson, TicketPredict};
use crate::replay::events::Run;
use crate::replay::{CodeChoice, Replayer};
use crate::terminal::player::app::Msg;
use crate::terminal::player::unplayable::Unplayable;

/// A ticket as the list shows it.
#[derive(Clone, Debug)]
pub struct TicketInfo {
    pub id: String,
    pub category: String,
    /// The runtimes it runs in; empty for all of them.
    pub runtimes: Vec<Runtime>,
}

impl TicketInfo {
    /// Whether the ticket runs in a runtime, or the truth about where it does.
    pub fn runs_in(&self, runtime: Runtime) -> Result<(), Unplayable> {
        if self.runtimes.is_empty() || self.runtimes.contains(&runtime) {
            return Ok(());
        }
        let names: Vec<&str> = self.runtimes.iter().map(|r| r.name()).collect();
        Err(Unplayable::OtherRuntime {
            ticket: self.id.clone(),
            runtimes: names.join(" and "),
            runtime,
        })
    }
}

/// The question the player asks before a replay of a ticket.
#[derive(Clone, Debug)]
pub enum Prediction {
    /// The lesson's question before a starter replay: how many times a tool runs.
    Count { ask: String, context: String },
    /// The ticket's own question, before the replay of one code (by its index in `codes`).
    Ticket { code: usize, predict: TicketPredict, context: String },
}

/// The question before a replay of a ticket (by its index) in a runtime; codes are counted as
/// the player counts them, 0 the starter and 1 the reference fix. The player and the page of a
/// replay ask the same question.
pub(crate) fn prediction(lesson: &Lesson, ticket: usize, runtime: Runtime) -> Prediction {
    let lesson_context = lesson.predict.context.get(runtime.name()).cloned().unwrap_or_default();
    let own = lesson.tickets.get(ticket).and_then(|t| t.predict.clone());
    match own {
        Some(predict) => {
            let code = if predict.code == "starter" { 0 } else { 1 };
            // The lesson's context describes the starter; a question about the fix has its own.
            let context = match predict.context.get(runtime.name()) {
                Some(text) => text.clone(),
                None if code == 0 => lesson_context,
                None => String::new(),
            };
            Prediction::Ticket { code, predict, context }
        }
        None => Prediction::Count { ask: lesson.predict.ask.clone(), context: lesson_context },
    }
}

/// One replay: a ticket with one code in one runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub ticket: usize,
    pub code: usize,
    pub runtime: Runtime,
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.ticket, self.code, self.runtime.name()).hash(state);
    }
}

/// A replay the worker finished, as it arrives on the player's channel.
#[derive(Clone, Debug)]
pub struct Replayed {
    pub key: Key,
    /// The code file's modification time when it ran: a save since makes the replay stale.
    pub stamp: Option<SystemTime>,
    pub replay: Result<Run, Unplayable>,
}

/// What the player needs to replay a ticket.
pub trait Source {
    fn lesson(&self) -> &str;
    /// The question before a replay of a ticket in a runtime, with what the learner knows
    /// before guessing.
    fn prediction(&self, ticket: usize, runtime: Runtime) -> Prediction;
    fn tickets(&self) -> &[TicketInfo];
    /// The code choices' labels. The first is always the starter and the second the reference
    /// reference fix: compare and the prediction questions rely on it.
    fn codes(&self) -> &[String];
    /// Whether this code can run now, or why not (yours, before `start`).
    fn available(&self, code: usize) -> Result<(), Unplayable>;
    /// A replay computed before for the code file as it is now, at once.
    fn cached(&self, key: Key) -> Option<Run>;
    /// Ask for these replays; each comes back later on the player's channel as
    /// `Msg::Replayed`. Asking again drops whatever was asked before and not yet started.
    fn request(&mut self, keys: Vec<Key>);
    /// Keep a finished replay for `cached`.
    fn keep(&mut self, done: &Replayed);
}

fn stamp(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The player's side of the lesson: what the screen needs at once, the cache, and the worker
/// that computes what is not cached.
pub struct LessonSource<'c> {
    ctx: &'c Context,
    lesson: Lesson,
    choices: Vec<CodeChoice>,
    labels: Vec<String>,
    tickets: Vec<TicketInfo>,
    /// Replays are deterministic, so each one is run once per file version.
    cache: HashMap<Key, (Option<SystemTime>, Run)>,
    worker: ReplayWorker,
}

impl<'c> LessonSource<'c> {
    /// `extra`: a code given with `--code PATH` or a mistake's label, offered after the three
    /// usual choices.
    /// `results`: the player's channel, where finished replays arrive. The worker starts Python
    /// for every code that can run at once, so the first switch to a code does not wait for an
    /// interpreter to start.
    pub fn new(
        ctx: &'c Context,
        lesson: Lesson,
        limit: Duration,
        extra: Option<CodeChoice>,
        results: Sender<Msg>,
    ) -> std::io::Result<LessonSource<'c>> {
        let mut choices = vec![CodeChoice::Starter, CodeChoice::Solution, CodeChoice::Yours];
        choices.extend(extra);
        let labels: Vec<String> = choices.iter().map(|c| c.label(&ctx.at(), &lesson)).collect();
        let tickets = lesson
            .tickets
            .iter()
            .map(|t| TicketInfo {
                id: t.id.clone(),
                category: t.category.clone(),
                runtimes: t.runtimes.iter().filter_map(|r| Runtime::parse(r)).collect(),
            })
            .collect();
        let runner = Runner {
            ctx: ctx.clone(),
            lesson: lesson.clone(),
            limit,
            choices: choices.clone(),
            labels: labels.clone(),
            loaded: HashMap::new(),
            done: HashMap::new(),
            stop: Stop::default(),
        };
        let worker = ReplayWorker::start(runner, results)?;
        Ok(LessonSource { ctx, lesson, choices, labels, tickets, cache: HashMap::new(), worker })
    }

    /// The index of a code choice, for the `--code` the player starts with.
    pub fn index_of(&self, choice: &CodeChoice) -> Option<usize> {
        self.choices.iter().position(|c| c == choice)
    }

    fn file_stamp(&self, code: usize) -> Option<SystemTime> {
        let file = self.choices.get(code)?.file(&self.ctx.at(), &self.lesson).ok()?;
        stamp(&file)
    }
}

impl Source for LessonSource<'_> {
    fn lesson(&self) -> &str {
        &self.lesson.id
    }

    fn prediction(&self, ticket: usize, runtime: Runtime) -> Prediction {
        prediction(&self.lesson, ticket, runtime)
    }

    fn tickets(&self) -> &[TicketInfo] {
        &self.tickets
    }

    fn codes(&self) -> &[String] {
        &self.labels
    }

    fn available(&self, code: usize) -> Result<(), Unplayable> {
        let choice = self.choices.get(code).ok_or(Unplayable::NoSuchCode)?;
        if *choice == CodeChoice::Yours && !self.lesson.work_file(&self.ctx.root).is_file() {
            return Err(Unplayable::NoCopy { lesson: self.lesson.id.clone() });
        }
        choice.file(&self.ctx.at(), &self.lesson).map(|_| ()).map_err(Unplayable::from)
    }

    fn cached(&self, key: Key) -> Option<Run> {
        let (when, replay) = self.cache.get(&key)?;
        (*when == self.file_stamp(key.code)).then(|| replay.clone())
    }

    fn request(&mut self, keys: Vec<Key>) {
        self.worker.ask(keys);
    }

    fn keep(&mut self, done: &Replayed) {
        if let Ok(replay) = &done.replay {
            self.cache.insert(done.key, (done.stamp, replay.clone()));
        }
    }
}

/// The worker thread, seen from the player. Dropping it stops the Python processes at once (a
/// call in progress is not waited for) and waits for the thread, which then has little to do.
struct ReplayWorker {
    requests: Option<Sender<Vec<Key>>>,
    stop: Stop,
    thread: Option<JoinHandle<()>>,
}

impl ReplayWorker {
    fn start(runner: Runner, results: Sender<Msg>) -> std::io::Result<ReplayWorker> {
        let (requests, inbox) = mpsc::channel();
        let stop = runner.stop.clone();
        let thread =
            std::thread::Builder::new().name("player-replays".into()).spawn(move || {
                runner.serve(inbox, results);
            })?;
        Ok(ReplayWorker { requests: Some(requests), stop, thread: Some(thread) })
    }

    fn ask(&self, keys: Vec<Key>) {
        if let Some(requests) = &self.requests {
            // A worker that has ended (it panicked) answers nothing; the status says replaying.
            let _ = requests.send(keys);
        }
    }
}

impl Drop for ReplayWorker {
    fn drop(&mut self) {
        self.stop.stop();
        self.requests.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A Python process with one code file loaded, and the file's modification time when it loaded.
struct Loaded {
    bridge: Result<Bridge, LoadError>,
    stamp: Option<SystemTime>,
}

/// The worker thread's side: the Python processes, and what it replays.
struct Runner {
    ctx: Context,
    lesson: Lesson,
    limit: Duration,
    choices: Vec<CodeChoice>,
    labels: Vec<String>,
    loaded: HashMap<usize, Loaded>,
    /// What was replayed already, for which file version: asked again (the player moved away
    /// and back while it ran), it is not run twice.
    done: HashMap<Key, Option<SystemTime>>,
    stop: Stop,
}

impl Runner {
    /// Replay what is asked until the player goes away. Only the newest request counts: one
    /// superseded while waiting is dropped, and one superseded while running stops before its
    /// next replay.
    fn serve(mut self, inbox: Receiver<Vec<Key>>, results: Sender<Msg>) {
        self.warm();
        let mut next = None;
        loop {
            let mut keys = match next.take() {
                Some(keys) => keys,
                None => match inbox.recv() {
                    Ok(keys) => keys,
                    Err(_) => return,
                },
            };
            while let Ok(newer) = inbox.try_recv() {
                keys = newer;
            }
            for key in keys {
                if self.stop.is_stopped() {
                    return;
                }
                if let Ok(newer) = inbox.try_recv() {
                    next = Some(newer);
                    break;
                }
                let Some(done) = self.play(key) else { continue };
                if self.stop.is_stopped() || results.send(Msg::Replayed(Box::new(done))).is_err() {
                    return;
                }
            }
        }
    }

    /// Start Python for every code that can run, all at once.
    fn warm(&mut self) {
        let wanted: Vec<(usize, PathBuf)> = (0..self.choices.len())
            .filter(|code| !self.loaded.contains_key(code))
            .filter_map(|code| {
                Some((code, self.choices[code].file(&self.ctx.at(), &self.lesson).ok()?))
            })
            .collect();
        let (ctx, lesson, limit, stop) = (&self.ctx, &self.lesson, self.limit, &self.stop);
        let opened: Vec<(usize, Loaded)> = std::thread::scope(|scope| {
            let starting: Vec<_> = wanted
                .into_iter()
                .map(|(code, file)| {
                    let start = move || Loaded {
                        stamp: stamp(&file),
                        bridge: Replayer::new(ctx.at(), lesson, limit)
                            .open_stoppable(&file, stop.clone()),
                    };
                    (
                        code,
                        std::thread::Builder::new()
                            .name("player-python".into())
                            .spawn_scoped(scope, start),
                    )
                })
                .collect();
            // A thread that could not start or panicked leaves its code to load on first use.
            starting
                .into_iter()
                .filter_map(|(code, t)| Some((code, t.ok()?.join().ok()?)))
                .collect()
        });
        self.loaded.extend(opened);
    }

    /// One replay, or `None` when it was done already for this version of the file.
    fn play(&mut self, key: Key) -> Option<Replayed> {
        let failed = |why: Unplayable| Some(Replayed { key, stamp: None, replay: Err(why) });
        let Some(choice) = self.choices.get(key.code) else {
            return failed(Unplayable::NoSuchCode);
        };
        let file = match choice.file(&self.ctx.at(), &self.lesson) {
            Ok(file) => file,
            Err(e) => return failed(e.into()),
        };
        let now = stamp(&file);
        if self.done.get(&key) == Some(&now) {
            return None;
        }
        let Some(ticket) = self.lesson.tickets.get(key.ticket) else {
            return failed(Unplayable::NoSuchTicket);
        };
        let mut replayer = Replayer::new(self.ctx.at(), &self.lesson, self.limit);
        let cassette = match replayer.cassette(key.runtime, ticket) {
            Ok(cassette) => cassette,
            Err(e) => return failed(e.into()),
        };
        // The learner may save their file while the player runs: load the new version.
        let fresh = self.loaded.get(&key.code).is_some_and(|l| l.stamp == now);
        if !fresh {
            let bridge = replayer.open_stoppable(&file, self.stop.clone());
            self.loaded.insert(key.code, Loaded { bridge, stamp: now });
        }
        let loaded = self.loaded.get_mut(&key.code)?;
        let label = &self.labels[key.code];
        // The learner's own recordings (kept by watch --live) answer after the shipped ones.
        let replay =
            replayer.replay_with(ticket, key.runtime, label, &mut loaded.bridge, &cassette);
        let replay = match replay {
            Ok(replay) => replay,
            Err(e) => return failed(e.into()),
        };
        self.done.insert(key, now);
        Some(Replayed { key, stamp: now, replay: Ok(replay) })
    }
}
