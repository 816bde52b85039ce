//! A lesson's world: its process started at load, in the background, and waited for (and its
//! checks of the lesson's data made) at first use.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::nowhere::NOWHERE;
use super::paths::plain_word;
use super::problems::{Near, Problems};
use super::Lesson;
use crate::error::{Corrupt, Error, Flaw};
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
            Err(not) => Err(not.error()),
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
            None if world.resets() != mark.resets => {
                WorldSince::Reset { outside: world.upset_from_outside_since(mark.resets) }
            }
            None => WorldSince::Untouched,
        }
    }

    /// A grading begun: with `alone`, once no other is under way, and none begins until it
    /// ends; else beside any others (`grade --jobs`). `Grading::alone` tells, at its end, whether
    /// it ran with no other beside it, so that whatever befell the world meanwhile was its doing.
    pub(crate) fn grading(&self, alone: bool) -> Grading<'_> {
        match &self.world_slot {
            Some(slot) => slot.gradings.begin(alone),
            None => Grading {
                gradings: None,
                _hold: Hold { _beside: None, _alone: None },
                started: 0,
                others: false,
            },
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
    pub(super) fn start_world(
        &mut self,
        problems: &mut Problems,
        root: &Path,
        text: &str,
        path: &Path,
    ) {
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
            let keys: Vec<TicketKeys<'_>> =
                tickets.iter().map(|(id, keys)| TicketKeys { id, keys }).collect();
            PythonWorld::begin(&opening, &shown, &data, &tools, &keys)
        };
        // The world comes back on a channel, not by joining the thread: its ending (its stack
        // given back, the kernel's wake-up at its exit) is then no wait of the first use's
        // (docs/benchmarks.md, "Figures once kept in comments").
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
            gradings: Gradings::default(),
        }));
    }

    /// The sample draw a check of a file with this seed will ask first, asked of the world now
    /// if it is still loading (see `Loading::ask_ahead`); nothing once it has opened.
    pub(crate) fn draw_ahead(&self, units: Vec<serde_json::Value>) {
        if crate::bridge::plain() {
            return;
        }
        self.ask_ahead(AheadQuestion::Draw(units));
    }

    /// The first call of a run of `ticket`, asked of the world ahead (as soon as it can take it,
    /// while it loads; at once once it has loaded): the command's next run of that ticket takes
    /// the answer when its first call is this one.
    pub(crate) fn call_ahead(&self, ticket: &str, tool: &str, input: &serde_json::Value) {
        if crate::bridge::plain() {
            return;
        }
        if let Some(Ok(Some(world))) = self.world_slot.as_ref().and_then(|slot| slot.opened.get()) {
            world.call_ahead(ticket, tool, input);
            return;
        }
        self.ask_ahead(AheadQuestion::FirstCall {
            ticket: ticket.into(),
            tool: tool.into(),
            input: input.clone(),
        });
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
            Some(Pending::Thread(world)) => world.recv().unwrap_or_else(|_| {
                Err(Refused::Broken("its loading stopped unexpectedly".into()))
            }),
            Some(Pending::Now(open)) => open(),
            None => Err(Refused::Broken("it was waited for twice".into())),
        };
        // The world's answer to its loading is read here, by the thread that wants it: the
        // starting thread does not wake for it only to wake this one.
        let opened =
            opened.map(|loading| asked_ahead(loading, &slot.ahead)).and_then(Loading::finish);
        let manifest = |problems: Problems| {
            let placed = problems.placed(&slot.text);
            NotOpened::Manifest { path: slot.path.display().to_string(), problems: placed }
        };
        let world = match opened {
            Ok(world) => world,
            Err(Refused::Problems(found)) => return Err(manifest(Problems::from_world(found))),
            Err(Refused::Broken(why)) => {
                return Err(NotOpened::World { path: slot.file.display().to_string(), why })
            }
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
enum NotOpened {
    /// The manifest's problems, the world's check of it among them.
    Manifest { path: String, problems: Vec<String> },
    /// The world's own file broke as it loaded, in the world module's words.
    World { path: String, why: String },
}

impl NotOpened {
    /// The error a command ends with, each time the world is asked for.
    fn error(&self) -> Error {
        let (path, flaw) = match self {
            NotOpened::Manifest { path, problems } => (path, Flaw::Problems(problems.clone())),
            NotOpened::World { path, why } => (path, Flaw::World(why.clone())),
        };
        Corrupt { path: path.clone(), line: None, flaw }.into()
    }
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
    /// The gradings under way, to tell whose doing an upset of the world was.
    gradings: Gradings,
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
    /// A question asked from this thread upset it (its answer went over the limit): the file's
    /// doing, for certain.
    UpsetFromHere(String),
    /// It was started afresh, and the runs it held were lost: upset from outside (stopped,
    /// killed or written into; `outside` says how) or ended by itself. Whose doing that was,
    /// only a run with no other beside it tells (`Lesson::grading`).
    Reset {
        outside: Option<String>,
    },
}

/// The gradings under way (`Lesson::grading`).
#[derive(Default)]
pub(crate) struct Gradings {
    /// How many are under way, and how many ever began.
    under_way: std::sync::Mutex<(usize, u64)>,
    /// Held shared by a grading beside others, alone by one that must run by itself.
    beside: std::sync::RwLock<()>,
}

impl Gradings {
    /// A grading begun (see `Lesson::grading`).
    fn begin(&self, alone: bool) -> Grading<'_> {
        let no_hold = Hold { _beside: None, _alone: None };
        let hold = if alone {
            Hold {
                _alone: Some(
                    self.beside.write().unwrap_or_else(std::sync::PoisonError::into_inner),
                ),
                ..no_hold
            }
        } else {
            Hold {
                _beside: Some(
                    self.beside.read().unwrap_or_else(std::sync::PoisonError::into_inner),
                ),
                ..no_hold
            }
        };
        let mut under_way =
            self.under_way.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let others = under_way.0 > 0;
        under_way.0 += 1;
        under_way.1 += 1;
        Grading { gradings: Some(self), _hold: hold, started: under_way.1, others }
    }
}

/// One grading under way (`Lesson::grading`); it ends when dropped.
pub(crate) struct Grading<'a> {
    gradings: Option<&'a Gradings>,
    _hold: Hold<'a>,
    /// Its number among all that began.
    started: u64,
    /// Whether another was under way when it began.
    others: bool,
}

/// How a grading holds its turn: shared, alone, or neither (a lesson with no world).
struct Hold<'a> {
    _beside: Option<std::sync::RwLockReadGuard<'a, ()>>,
    _alone: Option<std::sync::RwLockWriteGuard<'a, ()>>,
}

impl Grading<'_> {
    /// Whether it has run, so far, with no other grading beside it: none under way when it
    /// began, and none begun since.
    pub(crate) fn alone(&self) -> bool {
        let Some(gradings) = self.gradings else { return true };
        let under_way =
            gradings.under_way.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        !self.others && under_way.1 == self.started
    }
}

impl Drop for Grading<'_> {
    fn drop(&mut self) {
        if let Some(gradings) = self.gradings {
            let mut under_way =
                gradings.under_way.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            under_way.0 -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Gradings;

    #[test]
    fn a_grading_is_alone_only_when_none_ran_beside_it() {
        let gradings = Gradings::default();
        let first = gradings.begin(false);
        assert!(first.alone());
        let second = gradings.begin(false);
        assert!(!first.alone(), "another began beside it");
        assert!(!second.alone(), "another was under way as it began");
        drop(second);
        assert!(!first.alone(), "once beside another, never alone again");
        drop(first);
        assert!(gradings.begin(false).alone(), "each after the other: alone");
    }

    #[test]
    fn a_grading_that_must_be_alone_waits_for_the_others_and_holds_off_new_ones() {
        let gradings = Gradings::default();
        let order = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            let beside = gradings.begin(false);
            scope.spawn(|| {
                let alone = gradings.begin(true);
                order.lock().unwrap().push("alone began");
                assert!(alone.alone());
                std::thread::sleep(std::time::Duration::from_millis(50));
                order.lock().unwrap().push("alone ended");
            });
            // Time for the spawned grading to begin, if it would not wait.
            std::thread::sleep(std::time::Duration::from_millis(50));
            order.lock().unwrap().push("beside ended");
            drop(beside);
        });
        assert_eq!(*order.lock().unwrap(), ["beside ended", "alone began", "alone ended"]);
    }
}
