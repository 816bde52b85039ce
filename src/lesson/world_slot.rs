//! A lesson's world: its process started at load, in the background, and waited for (and its
//! checks of the lesson's data made) at first use.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::nowhere::NOWHERE;
use super::paths::plain_word;
use super::problems::{Near, Problems};
use super::Lesson;
use crate::error::Error;
use crate::world::python::{AheadQuestion, Loading, PythonWorld, Refused};
use crate::world::{Setting, TicketKeys};

impl Lesson {
    /// The lesson once its world has loaded and checked the lesson's data: for a caller that
    /// wants those problems now, not at the world's first use.
    pub(crate) fn opened(self) -> Result<Lesson, Error> {
        self.world()?;
        Ok(self)
    }

    /// The lesson's world, waited for: `None` when it has none to run (listed only, or no Python).
    fn world(&self) -> Result<Option<&PythonWorld>, Error> {
        let Some(slot) = &self.world_slot else { return Ok(None) };
        match slot.opened.get_or_init(|| self.finish_opening(slot)) {
            Ok(world) => Ok(world.as_deref()),
            Err(not) => Err(Error::Corrupt { path: not.path.clone(), why: not.why.clone() }),
        }
    }

    /// The lesson's world, loaded (nowhere when it could not be: `world_error` says why).
    pub(crate) fn setting(&self) -> &dyn Setting {
        match self.world() {
            Ok(Some(world)) => world,
            _ => &NOWHERE,
        }
    }

    /// What keeps the lesson's world from answering, if anything: data it refused, or an
    /// author's error in it met while running. The command reports it instead of anything it
    /// would have said of the learner's code.
    pub(crate) fn world_error(&self) -> Option<Error> {
        match self.world() {
            Err(e) => Some(e),
            Ok(Some(world)) => world.broken().map(|why| world.error(why)),
            Ok(None) => None,
        }
    }

    /// A mark to tell, after a file's run or grading on this thread, what happened to the
    /// world meanwhile (`world_since`). Never waits for a world still loading.
    pub(crate) fn world_mark(&self) -> WorldMark {
        let world = self.loaded_world();
        if let Some(world) = world {
            // What an earlier file asked from this thread is not this one's doing.
            world.upset_from_this_thread();
        }
        WorldMark { resets: world.map_or(0, PythonWorld::resets) }
    }

    /// What happened to the world since `mark` was taken on this thread.
    pub(crate) fn world_since(&self, mark: &WorldMark) -> WorldSince {
        let Some(world) = self.loaded_world() else { return WorldSince::Untouched };
        match world.upset_from_this_thread() {
            Some(why) => WorldSince::UpsetFromHere(why),
            None if world.resets() != mark.resets => WorldSince::ResetByAnother,
            None => WorldSince::Untouched,
        }
    }

    /// The world if it has loaded, without waiting for it.
    fn loaded_world(&self) -> Option<&PythonWorld> {
        let slot = self.world_slot.as_ref()?;
        slot.opened.get()?.as_ref().ok()?.as_deref()
    }

    /// Start the world the lesson names (`<root>/worlds/<name>/world.py`) in its own process,
    /// in the background: it loads while the command goes on (and the learner's Python starts),
    /// and is waited for at its first use.
    pub(super) fn start_world(&mut self, problems: &mut Problems, root: &Path, text: &str, path: &Path) {
        let worlds = root.join("worlds");
        let Some(name) = self.setting.clone() else {
            problems.say(
                Near::key("title"),
                format!(
                    "the manifest names no world: add setting = \"<name>\" near the top (worlds here: {})",
                    world_names(&worlds)
                ),
            );
            return;
        };
        let file = worlds.join(&name).join("world.py");
        if !plain_word(&name) || !file.is_file() {
            problems.say(
                Near::key("setting"),
                format!(
                    "setting '{name}' is not a world here: there is no worlds/{name}/world.py (worlds here: {})",
                    world_names(&worlds)
                ),
            );
            return;
        }
        let shown = file.strip_prefix(root).unwrap_or(&file).display().to_string();
        let (data, tools) = (self.world.clone(), self.tools.clone());
        let tickets: Vec<(String, toml::Table)> =
            self.tickets.iter().map(|t| (t.id.clone(), t.world.clone())).collect();
        let opening = file.clone();
        let open = move || {
            let keys: Vec<TicketKeys<'_>> = tickets.iter().map(|(id, keys)| TicketKeys { id, keys }).collect();
            PythonWorld::begin(&opening, &shown, &data, &tools, &keys)
        };
        // The world comes back on a channel, not by joining the thread: its ending (its stack
        // given back, the kernel's wake-up at its exit) is then no wait of the first use's, which
        // on a VM found it done 0.17 ms before the join returned.
        let (sent, world) = std::sync::mpsc::sync_channel(1);
        let begin = open.clone();
        let ahead: Waiting = Arc::default();
        let asking = Arc::clone(&ahead);
        let started = std::thread::Builder::new().name("world".into()).spawn(move || {
            let _ = sent.send(begin().map(|loading| asked_ahead(loading, &asking)));
        });
        let pending = match started {
            Ok(_) => Pending::Thread(world),
            Err(_) => Pending::Now(Box::new(open)),
        };
        self.world_slot = Some(Arc::new(WorldSlot {
            pending: std::sync::Mutex::new(Some(pending)),
            opened: std::sync::OnceLock::new(),
            text: text.to_string(),
            path: path.to_path_buf(),
            file,
            name,
            ahead,
        }));
    }

    /// The sample draw a check of a file with this seed will ask first, asked of the world now
    /// if it is still loading (see `Loading::ask_ahead`); nothing once it has opened.
    pub(crate) fn draw_ahead(&self, units: Vec<serde_json::Value>) {
        self.ask_ahead(AheadQuestion::Draw(units));
    }

    /// The first call of a run of `ticket`, asked of the world ahead (as soon as it can take it,
    /// while it loads; at once once it has loaded): the command's next run of that ticket takes
    /// the answer when its first call is this one.
    pub(crate) fn call_ahead(&self, ticket: &str, tool: &str, input: &serde_json::Value) {
        if let Some(Ok(Some(world))) = self.world_slot.as_ref().and_then(|slot| slot.opened.get()) {
            world.call_ahead(ticket, tool, input);
            return;
        }
        self.ask_ahead(AheadQuestion::FirstCall { ticket: ticket.into(), tool: tool.into(), input: input.clone() });
    }

    fn ask_ahead(&self, question: AheadQuestion) {
        if let Some(slot) = self.world_slot.as_ref().filter(|slot| slot.opened.get().is_none()) {
            if let Ok(mut waiting) = slot.ahead.lock() {
                waiting.push(question);
            }
        }
    }

    /// Wait for the world, then check what of the lesson only it can tell: its tools' behaviours,
    /// the samples' messages and fields, the counts notes name.
    fn finish_opening(&self, slot: &WorldSlot) -> Opened {
        let pending = slot.pending.lock().ok().and_then(|mut p| p.take());
        let opened = match pending {
            // No world sent: the thread ended without one (it panicked).
            Some(Pending::Thread(world)) => {
                world.recv().unwrap_or_else(|_| Err(Refused::Broken("its loading stopped unexpectedly".into())))
            }
            Some(Pending::Now(open)) => open(),
            None => Err(Refused::Broken("it was waited for twice".into())),
        };
        // The world's answer to its loading is read here, by the thread that wants it: the
        // starting thread does not wake for it only to wake this one.
        let opened = opened.map(|loading| asked_ahead(loading, &slot.ahead)).and_then(Loading::finish);
        let manifest = |problems: Problems| {
            let placed = problems.placed(&slot.text);
            NotOpened { path: slot.path.display().to_string(), why: placed.join("\n  ") }
        };
        let world = match opened {
            Ok(world) => world,
            Err(Refused::Problems(found)) => return Err(manifest(Problems::from_world(found))),
            Err(Refused::Broken(why)) => return Err(NotOpened { path: slot.file.display().to_string(), why }),
            // With no Python nothing can run: the learner's bridge says so in its own words, and
            // an autograder still gets its report.
            Err(Refused::NoPython) => return Ok(None),
        };
        let problems = self.check_with_world(&world, &slot.name);
        if problems.found.is_empty() {
            Ok(Some(Arc::new(world)))
        } else {
            Err(manifest(problems))
        }
    }
}

/// The world loading, asked ahead the questions a command will ask it first when the command has
/// said them by now: by the thread that started it, and by the one that first uses it (those
/// said since).
fn asked_ahead(mut loading: Loading, ahead: &Waiting) -> Loading {
    let waiting = ahead.lock().map(|mut waiting| std::mem::take(&mut *waiting)).unwrap_or_default();
    for question in waiting {
        loading.ask_ahead(question);
    }
    loading
}

/// Questions to ask the world as soon as its process can take them (`Lesson::draw_ahead`,
/// `Lesson::call_ahead`), until taken.
type Waiting = Arc<std::sync::Mutex<Vec<AheadQuestion>>>;

/// A world's process being started: on a thread of its own, or (when no thread could be made)
/// at its first use.
enum Pending {
    Thread(std::sync::mpsc::Receiver<Result<Loading, Refused>>),
    Now(Box<dyn FnOnce() -> Result<Loading, Refused> + Send>),
}

/// A world once waited for: loaded (`None`: nothing to run it with), or why not.
type Opened = Result<Option<Arc<PythonWorld>>, NotOpened>;

/// Why a world did not open: the file to fix (the manifest, or the world's own), and what is
/// wrong with it.
#[derive(Debug, Clone)]
struct NotOpened {
    path: String,
    why: String,
}

/// A lesson's world: being started, then loaded (or why not).
pub(crate) struct WorldSlot {
    pending: std::sync::Mutex<Option<Pending>>,
    opened: std::sync::OnceLock<Opened>,
    /// The manifest's text and path, to place the world's problems at their lines.
    text: String,
    path: PathBuf,
    /// The world's file, and its name.
    file: PathBuf,
    name: String,
    /// Questions to ask as soon as the world's process can take them.
    ahead: Waiting,
}

impl std::fmt::Debug for WorldSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the world {}", self.name)
    }
}

/// The worlds under a root's `worlds/` folder, for messages: `harbour, shop`, or `none`.
fn world_names(worlds: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(worlds)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().join("world.py").is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// The world's state when a file's run or grading began on a thread (`Lesson::world_mark`).
pub(crate) struct WorldMark {
    resets: u64,
}

/// What happened to the lesson's world while one file ran (`Lesson::world_since`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum WorldSince {
    Untouched,
    /// A run asked from this thread upset it (killed, stopped, flooded it): the file's doing.
    UpsetFromHere(String),
    /// Another thread's file upset it, and the runs it held, this file's among them, were lost.
    ResetByAnother,
}
