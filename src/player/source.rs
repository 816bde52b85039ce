//! Where the player's replays come from: the lesson's tickets run through the real runtimes,
//! Python bridge and recordings, one Python process per code file, kept open between replays.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::agent::Runtime;
use crate::bridge::{Bridge, LoadError};
use crate::commands::replaying::{self, CodeChoice};
use crate::commands::Context;
use crate::lesson::Lesson;
use crate::replay::Replay;

/// A ticket as the list shows it.
#[derive(Clone, Debug)]
pub struct TicketInfo {
    pub id: String,
    pub category: String,
}

/// What the player needs to replay a ticket. The lesson's source is the real one; tests can use
/// it too (it is fast), or a fake.
pub trait Source {
    fn lesson(&self) -> &str;
    fn tickets(&self) -> &[TicketInfo];
    /// The code choices' labels. The first is always the starter and the second the structured
    /// reference fix: compare and the prediction questions rely on it.
    fn codes(&self) -> &[String];
    /// Whether this code can run now, or why not (yours, before `start`).
    fn available(&self, code: usize) -> Result<(), String>;
    /// One ticket replayed with one code in one runtime, or why it could not be.
    fn play(&mut self, ticket: usize, code: usize, runtime: Runtime) -> Result<Replay, String>;
}

/// A Python process with one code file loaded, and the file's modification time when it loaded.
struct Loaded {
    bridge: Result<Bridge, LoadError>,
    stamp: Option<SystemTime>,
}

pub struct LessonSource<'c> {
    ctx: &'c Context,
    lesson: Lesson,
    limit: Duration,
    choices: Vec<CodeChoice>,
    labels: Vec<String>,
    tickets: Vec<TicketInfo>,
    loaded: HashMap<usize, Loaded>,
    /// Replays are deterministic, so each (ticket, code, runtime) is run once per file version.
    cache: HashMap<(usize, usize, &'static str), (Option<SystemTime>, Replay)>,
}

fn stamp(path: &std::path::Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl<'c> LessonSource<'c> {
    /// `extra`: a code file given with `--code PATH`, offered after the three usual choices.
    pub fn new(ctx: &'c Context, lesson: Lesson, limit: Duration, extra: Option<PathBuf>) -> LessonSource<'c> {
        let mut choices = vec![CodeChoice::Starter, CodeChoice::Structured, CodeChoice::Yours];
        if let Some(path) = extra {
            choices.push(CodeChoice::Path(path));
        }
        let labels = choices.iter().map(|c| c.label(ctx)).collect();
        let tickets =
            lesson.tickets.iter().map(|t| TicketInfo { id: t.id.clone(), category: t.category.clone() }).collect();
        LessonSource { ctx, lesson, limit, choices, labels, tickets, loaded: HashMap::new(), cache: HashMap::new() }
    }

    /// Start Python for every code that can run, all at once, so that the first switch to a
    /// code does not wait for an interpreter to start.
    pub fn warm(&mut self) {
        let wanted: Vec<(usize, PathBuf)> = (0..self.choices.len())
            .filter(|code| !self.loaded.contains_key(code))
            .filter_map(|code| Some((code, self.choices[code].file(self.ctx, &self.lesson).ok()?)))
            .collect();
        let (ctx, lesson, limit) = (self.ctx, &self.lesson, self.limit);
        let opened: Vec<(usize, Loaded)> = std::thread::scope(|scope| {
            let starting: Vec<_> = wanted
                .into_iter()
                .map(|(code, file)| {
                    let start =
                        move || Loaded { stamp: stamp(&file), bridge: replaying::open(ctx, lesson, &file, limit) };
                    (code, std::thread::Builder::new().name("player-python".into()).spawn_scoped(scope, start))
                })
                .collect();
            // A thread that could not start or panicked leaves its code to load on first use.
            starting.into_iter().filter_map(|(code, t)| Some((code, t.ok()?.join().ok()?))).collect()
        });
        self.loaded.extend(opened);
    }

    /// The index of a code choice, for the `--code` the player starts with.
    pub fn index_of(&self, choice: &CodeChoice) -> Option<usize> {
        self.choices.iter().position(|c| c == choice)
    }
}

impl Source for LessonSource<'_> {
    fn lesson(&self) -> &str {
        &self.lesson.id
    }

    fn tickets(&self) -> &[TicketInfo] {
        &self.tickets
    }

    fn codes(&self) -> &[String] {
        &self.labels
    }

    fn available(&self, code: usize) -> Result<(), String> {
        let choice = self.choices.get(code).ok_or("no such code")?;
        if *choice == CodeChoice::Yours && !self.lesson.work_file(&self.ctx.root).is_file() {
            return Err(format!("you have no copy yet; ./workshop start {} makes one", self.lesson.id));
        }
        choice.file(self.ctx, &self.lesson).map(|_| ()).map_err(|e| e.to_string())
    }

    fn play(&mut self, ticket: usize, code: usize, runtime: Runtime) -> Result<Replay, String> {
        let choice = self.choices.get(code).ok_or("no such code")?;
        let file = choice.file(self.ctx, &self.lesson).map_err(|e| e.to_string())?;
        let now = stamp(&file);
        let key = (ticket, code, runtime.name());
        if let Some((when, replay)) = self.cache.get(&key) {
            if *when == now {
                return Ok(replay.clone());
            }
        }
        let the_ticket = self.lesson.tickets.get(ticket).ok_or("no such ticket")?;
        let cassette = replaying::cassette(self.ctx, &self.lesson, runtime, the_ticket).map_err(|e| e.to_string())?;
        // The learner may save their file while the player runs: load the new version.
        let fresh = self.loaded.get(&code).is_some_and(|l| l.stamp == now);
        if !fresh {
            let bridge = replaying::open(self.ctx, &self.lesson, &file, self.limit);
            self.loaded.insert(code, Loaded { bridge, stamp: now });
        }
        let loaded = self.loaded.get_mut(&code).ok_or("the code did not load")?;
        let label = &self.labels[code];
        let (replay, _) =
            replaying::replay(self.ctx, &self.lesson, the_ticket, runtime, label, &mut loaded.bridge, &cassette);
        self.cache.insert(key, (now, replay.clone()));
        Ok(replay)
    }
}
