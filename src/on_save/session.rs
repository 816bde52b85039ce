//! One lesson's watch in `check --watch`: the loop over the channel, and each grading run on a
//! worker thread, stopped when no longer wanted.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::Scope;
use std::time::{Duration, Instant};

use crate::checks::{Report, Status};
use crate::context::Context;
use crate::error::Error;
use crate::lesson::Lesson;
use crate::saves::{Change, Fingerprint, Staleness};

use super::keys::WatchKey;
use super::msg::{Ended, WatchEvent};
use super::note::WatchNote;
use super::output::Output;

/// Why `n` cannot go on to the next lesson.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NoNext {
    #[error("n starts the next lesson once every check here is green.")]
    NotGreen,
    #[error("every lesson of the course is done: there is no next one.")]
    AllDone,
    /// The course could not be read.
    #[error(transparent)]
    Course(Error),
}

/// A Python process kept started, the runner imported, for the next grading: a save then costs
/// loading the file and the calls, not the interpreter's start-up.
type SpareSlot = Arc<Mutex<Option<crate::bridge::Spare>>>;

/// Grade as `check` grades, stopping early when asked. `None`: stopped.
fn grade(
    ctx: &Context,
    lesson: &Lesson,
    file: &Path,
    limit: Duration,
    stop: &AtomicBool,
    spare: &SpareSlot,
) -> Option<Result<Report, Error>> {
    let taken = spare.lock().ok().and_then(|mut s| s.take());
    let graded = crate::checks::one_file::grade_with_spare(
        lesson,
        file,
        &ctx.shown(file),
        limit,
        stop,
        taken,
    );
    // A world that broke is its author's error, never a grade of the learner's file.
    graded.map(|r| match lesson.world_error() {
        Some(e) => Err(e),
        None => r.map_err(Error::Load),
    })
}

/// The next steps at green, or why they could not be worked out (kept, so shared).
pub(super) type DoorOrWhyNot = Result<crate::next::Door, Rc<Error>>;

/// One lesson's watch: the file, the grading in progress, and what is on screen.
pub(crate) struct Session<'a> {
    pub(super) ctx: &'a Context,
    pub(super) lesson: &'a Lesson,
    pub(super) file: PathBuf,
    pub(super) shown: String,
    pub(super) limit: Duration,
    pub(super) polling: bool,
    pub(super) output: Output,
    pub(super) tx: Sender<WatchEvent>,
    pub(crate) run: u64,
    pub(super) why: String,
    pub(super) at: String,
    /// The stop flag of the grading in progress.
    pub(super) running: Option<Arc<AtomicBool>>,
    /// Why to grade again once the grading in progress has stopped.
    pub(super) pending: Option<String>,
    pub(super) report: Option<Report>,
    pub(crate) notes: Vec<WatchNote>,
    /// The hint steps `h` showed last, until the next report.
    pub(super) hint_card: Option<String>,
    /// The file is not there now: the report on screen is of the version that was.
    pub(super) gone: bool,
    /// The run whose report is on screen: its number, why and when it started, how long it took.
    pub(super) on_screen: Option<(u64, String, String, Duration)>,
    pub(super) staleness: Staleness,
    pub(super) spare: SpareSlot,
    /// Standard output could not be written.
    pub(super) write_failed: Cell<Option<std::io::Error>>,
    /// What next, once green, at the width it was laid out for: worked out once per report (it
    /// reads the whole course), not on every redraw.
    pub(super) door: RefCell<Option<(usize, DoorOrWhyNot)>>,
}

impl<'a> Session<'a> {
    pub(crate) fn new(
        ctx: &'a Context,
        lesson: &'a Lesson,
        file: PathBuf,
        limit: Duration,
        polling: bool,
        output: Output,
        tx: Sender<WatchEvent>,
    ) -> Session<'a> {
        let shown = ctx.shown(&file);
        let staleness = Staleness::new(Fingerprint::of(&file));
        Session {
            ctx,
            lesson,
            file,
            shown,
            limit,
            polling,
            output,
            tx,
            run: 0,
            why: String::new(),
            at: String::new(),
            running: None,
            pending: None,
            report: None,
            notes: Vec::new(),
            hint_card: None,
            gone: false,
            on_screen: None,
            staleness,
            spare: Arc::new(Mutex::new(None)),
            write_failed: Cell::new(None),
            door: RefCell::new(None),
        }
    }

    pub(crate) fn run<'s>(
        &'s mut self,
        scope: &'s Scope<'s, '_>,
        rx: &Receiver<WatchEvent>,
    ) -> Result<Ended, Error>
    where
        'a: 's,
    {
        self.start(scope, "first run");
        for msg in rx.iter() {
            match msg {
                WatchEvent::Key(key @ (WatchKey::Quit | WatchKey::Interrupt)) => {
                    self.stop_now();
                    return Ok(if key == WatchKey::Quit {
                        Ended::Quit
                    } else {
                        Ended::Interrupted
                    });
                }
                WatchEvent::Key(WatchKey::Rerun) => self.start(scope, "r pressed"),
                WatchEvent::Key(WatchKey::Hint) => {
                    self.hint();
                    self.draw();
                }
                WatchEvent::Key(WatchKey::Next) => match self.next_lesson() {
                    Ok(id) => {
                        if let Some(stop) = self.running.take() {
                            stop.store(true, Ordering::SeqCst);
                        }
                        return Ok(Ended::Next(id));
                    }
                    Err(why) => {
                        self.notes = vec![WatchNote::Once(why.to_string())];
                        self.draw();
                    }
                },
                WatchEvent::Key(WatchKey::Other) => {
                    let keys = "Keys: r re-run · h hint · n next lesson (once green) · q quit.";
                    self.notes = vec![WatchNote::Once(keys.into())];
                    self.draw();
                }
                WatchEvent::File(Change::Saved) => {
                    // An event came: this filesystem reports changes, whatever a run is doing.
                    self.staleness.seen(Fingerprint::of(&self.file));
                    self.start(scope, "saved");
                }
                WatchEvent::File(Change::Gone) => self.gone(),
                WatchEvent::File(Change::Failed(why)) => {
                    self.notes = vec![WatchNote::Watching(format!(
                        "The file watcher failed ({why}). Press r to grade by hand, or quit and run again with --poll."
                    ))];
                    self.draw();
                }
                WatchEvent::Graded { run, result, took } => self.graded(scope, run, result, took),
                WatchEvent::Resize => self.draw(),
                WatchEvent::Tick => self.look(scope),
            }
            // Nobody can read the reports any more (a closed pipe, a full disk): stop watching.
            if let Some(e) = self.write_failed.take() {
                self.stop_now();
                return Err(Error::Output(e));
            }
        }
        Ok(Ended::Quit)
    }

    /// Whether every check here is green now: the report on screen is of the file as it is.
    fn green(&self) -> bool {
        !self.gone
            && self.running.is_none()
            && self.report.as_ref().is_some_and(|r| r.status == Status::Pass)
    }

    /// The lesson `n` goes on to, or why it cannot.
    fn next_lesson(&self) -> Result<String, NoNext> {
        if !self.green() {
            return Err(NoNext::NotGreen);
        }
        let course = crate::next::Course::read(self.ctx).map_err(NoNext::Course)?;
        match course.after(&self.lesson.id) {
            Some((next, _)) => Ok(next.id.clone()),
            None => Err(NoNext::AllDone),
        }
    }

    /// Quitting: the grading in progress reports nothing, and its Python (with everything it
    /// started, and the one kept ready) is killed now, not at the end of the call's deadline.
    fn stop_now(&mut self) {
        if let Some(stop) = self.running.take() {
            stop.store(true, Ordering::SeqCst);
        }
        crate::bridge::end_everything();
    }

    /// Grade now, or as soon as the grading in progress has stopped.
    fn start<'s>(&mut self, scope: &'s Scope<'s, '_>, why: &str)
    where
        'a: 's,
    {
        if let Some(stop) = &self.running {
            stop.store(true, Ordering::SeqCst);
            self.pending = Some(why.to_string());
            return;
        }
        if !self.file.is_file() {
            self.gone();
            return;
        }
        self.gone = false;
        self.run += 1;
        self.why = why.to_string();
        self.at = super::clock::clock();
        self.staleness.seen(Fingerprint::of(&self.file));
        let stop = Arc::new(AtomicBool::new(false));
        self.running = Some(Arc::clone(&stop));
        let (ctx, lesson, file, limit, tx, run, spare) = (
            self.ctx,
            self.lesson,
            self.file.clone(),
            self.limit,
            self.tx.clone(),
            self.run,
            Arc::clone(&self.spare),
        );
        let spawned = std::thread::Builder::new().name("check-watch-grade".into()).spawn_scoped(
            scope,
            move || {
                let began = Instant::now();
                let result = grade(ctx, lesson, &file, limit, &stop, &spare);
                let _ = tx.send(WatchEvent::Graded { run, result, took: began.elapsed() });
                // Ready for the next save, while the learner edits.
                if !stop.load(Ordering::SeqCst) {
                    if let Ok(mut slot) = spare.lock() {
                        if slot.is_none() {
                            *slot = crate::checks::one_file::spare(
                                lesson,
                                &file,
                                &ctx.shown(&file),
                                limit,
                            );
                        }
                    }
                }
            },
        );
        if let Err(e) = spawned {
            self.running = None;
            let why = format!("Could not start a check ({e}). Press r to try again.");
            self.notes = vec![WatchNote::Once(why)];
        }
        if self.output.terminal {
            self.draw();
        }
    }

    fn graded<'s>(
        &mut self,
        scope: &'s Scope<'s, '_>,
        run: u64,
        result: Option<Result<Report, Error>>,
        took: Duration,
    ) where
        'a: 's,
    {
        if run == self.run {
            self.running = None;
        }
        match result {
            Some(Ok(report)) if run == self.run => {
                self.on_screen = Some((run, self.why.clone(), self.at.clone(), took));
                self.save_progress(&report);
                self.report = Some(report);
                *self.door.get_mut() = None;
                self.notes.retain(WatchNote::stays_for_a_grade);
                self.hint_card = None;
                self.draw();
            }
            Some(Err(e)) if run == self.run => {
                self.notes = vec![WatchNote::Once(format!("Could not grade: {e}"))];
                self.draw();
            }
            _ => {}
        }
        if self.running.is_none() {
            if let Some(why) = self.pending.take() {
                self.start(scope, &why);
            }
        }
    }

    fn gone(&mut self) {
        if let Some(stop) = self.running.take() {
            stop.store(true, Ordering::SeqCst);
        }
        self.pending = None;
        self.gone = true;
        self.staleness.seen(Fingerprint::of(&self.file));
        self.notes = vec![WatchNote::Once(format!(
            "{} is gone (deleted or moved away); the report above is of the last version. Still watching: save the file again and it is graded.",
            self.shown
        ))];
        self.draw();
    }

    /// Look at the file itself: a change on disk that no event announced means this filesystem
    /// does not report changes. Grade anyway, and say so.
    fn look<'s>(&mut self, scope: &'s Scope<'s, '_>)
    where
        'a: 's,
    {
        if self.polling || !self.staleness.missed_event(Fingerprint::of(&self.file), Instant::now())
        {
            return;
        }
        self.notes = vec![WatchNote::Watching(format!(
            "{} changed, but no file event arrived: this filesystem may not report changes (a WSL mount of a Windows drive, a network drive). Quit and run again with --poll to grade on every save.",
            self.shown
        ))];
        if self.file.is_file() {
            self.start(scope, "changed on disk");
        } else {
            self.gone();
        }
    }

    fn save_progress(&self, report: &Report) {
        if let Err(e) =
            crate::checks::one_file::save_progress(&self.ctx.root, self.lesson, &self.file, report)
        {
            self.show(&format!("warning: progress was not saved ({e}); the grade stands.\n"));
        }
    }
}
