//! `workshop check --watch`: grade once, then again on every save, until `q`.
//!
//! One event loop over one channel, as in the player: the file watcher, the key reader, a
//! ticker and each finished grading send a [`Msg`]. Grading runs on a worker thread, so keys
//! answer while the learner's code runs; a run that is no longer wanted (a newer save, `r`) is
//! told to stop before its next call, and the per-call deadline bounds the call in progress. On
//! `q` (or Ctrl-C, exit 130) the learner's Python is killed at once, and nothing is reported.
//!
//! Keys: on a terminal, single keys (`r` re-run, `h` hint, `n` next lesson once green, `q`, Esc
//! or Ctrl-C quit). When
//! standard input is not a terminal (a script, an editor's task, a test) keys are read as lines
//! and each line's first letter counts: `printf 'h\nq\n' | workshop check --watch`. End of input
//! stops the keys, not the watching.
//!
//! Output: on a terminal each redraw replaces the screen. Otherwise each redraw is printed in
//! turn, starting with a marker line `── run N · why · HH:MM:SS · checked in T ms ──` and ending
//! with the line that starts `Watching `.

use std::cell::{Cell, RefCell};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::Scope;
use std::time::{Duration, Instant};

use crossterm::event::{Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};

use crate::checks::{Report, Status};
use crate::cli::{CheckArgs, CheckFormat};
use crate::commands::Context;
use crate::error::{Error, EXIT_SUCCESS};
use crate::lesson::Lesson;
use crate::player::terminal;
use crate::render;
use crate::watcher::{self, Change, Fingerprint, Staleness};

/// How often the loop looks at the file itself, to notice saves whose events never came.
const LOOK_EVERY: Duration = Duration::from_millis(500);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Rerun,
    Hint,
    /// Start the next lesson and watch its file instead (once every check is green).
    Next,
    Quit,
    /// Ctrl-C, read as a key in raw mode: quit as the signal would have.
    Interrupt,
    Other,
}

/// The exit status of a Ctrl-C, as if SIGINT had ended the process.
const EXIT_INTERRUPTED: i32 = 128 + libc::SIGINT;

/// How one lesson's watch ended.
enum Ended {
    Quit,
    /// Ctrl-C on a terminal.
    Interrupted,
    /// Go on to the lesson with this id.
    Next(String),
}

enum Msg {
    Key(Key),
    File(Change),
    /// A grading ended: its report, or `None` when it was stopped before the end.
    Graded {
        run: u64,
        result: Option<Result<Report, Error>>,
        took: Duration,
    },
    Resize,
    Tick,
}

fn key_of(ev: TermEvent) -> Option<Msg> {
    match ev {
        TermEvent::Key(k) if k.kind != KeyEventKind::Release => {
            let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
            Some(Msg::Key(match k.code {
                KeyCode::Char('c') if ctrl => Key::Interrupt,
                KeyCode::Char('q') | KeyCode::Esc => Key::Quit,
                KeyCode::Char('r') => Key::Rerun,
                KeyCode::Char('h') => Key::Hint,
                KeyCode::Char('n') => Key::Next,
                _ => Key::Other,
            }))
        }
        TermEvent::Resize(..) => Some(Msg::Resize),
        _ => None,
    }
}

fn key_of_line(line: &str) -> Option<Key> {
    Some(match line.trim().chars().next()? {
        'q' | 'Q' => Key::Quit,
        'r' | 'R' => Key::Rerun,
        'h' | 'H' => Key::Hint,
        'n' | 'N' => Key::Next,
        _ => Key::Other,
    })
}

/// Keys as lines from a standard input that is not a terminal. The thread may stay blocked in
/// `read` until the process ends; it holds nothing but a sender.
fn read_lines(tx: Sender<Msg>) -> std::io::Result<()> {
    std::thread::Builder::new().name("check-watch-keys".into()).spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { return };
            if let Some(key) = key_of_line(&line) {
                if tx.send(Msg::Key(key)).is_err() {
                    return;
                }
            }
        }
    })?;
    Ok(())
}

pub(super) fn run(ctx: &Context, args: CheckArgs) -> Result<i32, Error> {
    if args.format != CheckFormat::Text {
        return Err(Error::usage(
            "--watch redraws a report for a person after every save, and --format json or exercism prints one report for a program: drop one of them.",
        ));
    }
    let mut lesson = ctx.lesson(args.lesson.as_deref())?;
    let limit = args.timeout;
    let mut file = ctx.learner_file(&lesson, args.file.as_deref())?;
    let keys_on_terminal = ctx.stdin_terminal;
    let out_terminal = ctx.stdout_terminal;

    // One channel, one key reader and one ticker for the whole session, across lessons (`n`).
    let (tx, rx) = mpsc::channel();
    // Raw mode only where keys come from a terminal; restored on every way out of this function.
    let screen = if keys_on_terminal {
        Some(terminal::Screen::enter(false).map_err(|e| Error::io("could not read keys from the terminal", e))?)
    } else {
        None
    };
    let _keys = if keys_on_terminal {
        Some(terminal::read_events(tx.clone(), key_of).map_err(|e| Error::io("could not start the key reader", e))?)
    } else {
        read_lines(tx.clone()).map_err(|e| Error::io("could not start the key reader", e))?;
        None
    };
    let _ticks =
        terminal::tick(tx.clone(), LOOK_EVERY, |_| Msg::Tick).map_err(|e| Error::io("could not start the timer", e))?;

    let output = Output { terminal: out_terminal, raw: keys_on_terminal && out_terminal };
    let (mut runs, mut notes) = (0, Vec::new());
    let result = loop {
        let to_loop = tx.clone();
        let watching = watcher::watch(&file, args.poll, move |change| {
            let _ = to_loop.send(Msg::File(change));
        })
        .map_err(|why| Error::Io(format!("{why}. Try --poll, or run ./workshop check after each save.")))?;
        let mut session = Session::new(ctx, &lesson, file.clone(), limit, watching.polling, output, tx.clone());
        session.run = runs;
        session.notes = std::mem::take(&mut notes);
        let ended = std::thread::scope(|scope| session.run(scope, &rx));
        runs = session.run;
        drop(watching);
        match ended {
            Ok(Ended::Next(id)) => {
                let next = Lesson::load(&ctx.root, &id)?;
                notes.push(go_on(ctx, &next)?);
                file = next.work_file(&ctx.root);
                lesson = next;
                // What the last lesson's watcher and graders sent is of no use now; keys still are.
                for msg in rx.try_iter().collect::<Vec<_>>() {
                    if let Msg::Key(key) = msg {
                        let _ = tx.send(Msg::Key(key));
                    }
                }
            }
            Ok(Ended::Quit) => break Ok(EXIT_SUCCESS),
            Ok(Ended::Interrupted) => break Ok(EXIT_INTERRUPTED),
            Err(e) => break Err(e),
        }
    };
    drop(screen);
    result
}

/// Start the next lesson for `n`: the starter copied in, unless the learner's file is there with
/// their edits, which is kept as it is. The note says which.
fn go_on(ctx: &Context, next: &Lesson) -> Result<String, Error> {
    let shown = ctx.shown(&next.work_file(&ctx.root));
    let how = match super::start::begin(ctx, next, false) {
        Ok(_) => format!("the starter is in {shown}"),
        Err(Error::Refused(_)) => {
            super::start::mark_started(ctx, next);
            format!("{shown} has your edits, so it is graded as it is")
        }
        Err(e) => return Err(e),
    };
    Ok(format!("Lesson {}, {}: {how}. Read it with ./workshop lesson {}.", next.number, next.title, next.id))
}

#[derive(Clone, Copy)]
struct Output {
    /// Redraw in place (clear the screen) rather than print block after block.
    terminal: bool,
    /// The terminal is in raw mode: a new line needs a carriage return too.
    raw: bool,
}

impl Output {
    fn show(&self, text: &str) -> std::io::Result<()> {
        let mut out = std::io::stdout().lock();
        if self.terminal {
            crossterm::execute!(
                out,
                crossterm::terminal::Clear(crossterm::terminal::ClearType::All),
                crossterm::cursor::MoveTo(0, 0)
            )?;
        }
        let text = if self.raw { text.replace('\n', "\r\n") } else { text.to_string() };
        out.write_all(text.as_bytes())?;
        out.flush()
    }
}

/// The wall-clock time as HH:MM:SS, local.
fn clock() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let Ok(secs) = libc::time_t::try_from(now) else { return String::new() };
    // SAFETY: `tm` is plain old data; all zeroes is a valid value of it.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: localtime_r reads `secs` and writes only into the `tm` we give it.
    let ok = unsafe { !libc::localtime_r(&secs, &mut tm).is_null() };
    if ok {
        format!("{:02}:{:02}:{:02}", tm.tm_hour, tm.tm_min, tm.tm_sec)
    } else {
        String::new()
    }
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
    let graded = crate::grading::grade_with_spare(lesson, file, &ctx.shown(file), limit, stop, taken);
    // A world that broke is its author's error, never a grade of the learner's file.
    graded.map(|r| match lesson.world_error() {
        Some(e) => Err(e),
        None => r.map_err(Error::Load),
    })
}

struct Session<'a> {
    ctx: &'a Context,
    lesson: &'a Lesson,
    file: PathBuf,
    shown: String,
    limit: Duration,
    polling: bool,
    output: Output,
    tx: Sender<Msg>,
    run: u64,
    why: String,
    at: String,
    /// The stop flag of the grading in progress.
    running: Option<Arc<AtomicBool>>,
    /// Why to grade again once the grading in progress has stopped.
    pending: Option<String>,
    report: Option<Report>,
    notes: Vec<String>,
    /// The hint steps `h` showed last, until the next report.
    hint_card: Option<String>,
    /// The file is not there now: the report on screen is of the version that was.
    gone: bool,
    /// The run whose report is on screen: its number, why and when it started, how long it took.
    on_screen: Option<(u64, String, String, Duration)>,
    staleness: Staleness,
    spare: SpareSlot,
    /// Standard output could not be written.
    write_failed: Cell<Option<std::io::Error>>,
    /// What next, once green, at the width it was laid out for: worked out once per report (it
    /// reads the whole course), not on every redraw.
    door: RefCell<Option<(usize, Result<crate::next::Door, String>)>>,
}

impl<'a> Session<'a> {
    fn new(
        ctx: &'a Context,
        lesson: &'a Lesson,
        file: PathBuf,
        limit: Duration,
        polling: bool,
        output: Output,
        tx: Sender<Msg>,
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

    fn run<'s>(&'s mut self, scope: &'s Scope<'s, '_>, rx: &Receiver<Msg>) -> Result<Ended, Error>
    where
        'a: 's,
    {
        self.start(scope, "first run");
        for msg in rx.iter() {
            match msg {
                Msg::Key(key @ (Key::Quit | Key::Interrupt)) => {
                    self.stop_now();
                    return Ok(if key == Key::Quit { Ended::Quit } else { Ended::Interrupted });
                }
                Msg::Key(Key::Rerun) => self.start(scope, "r pressed"),
                Msg::Key(Key::Hint) => {
                    self.hint();
                    self.draw();
                }
                Msg::Key(Key::Next) => match self.next_lesson() {
                    Ok(id) => {
                        if let Some(stop) = self.running.take() {
                            stop.store(true, Ordering::SeqCst);
                        }
                        return Ok(Ended::Next(id));
                    }
                    Err(why) => {
                        self.notes = vec![why];
                        self.draw();
                    }
                },
                Msg::Key(Key::Other) => {
                    self.notes = vec!["Keys: r re-run · h hint · n next lesson (once green) · q quit.".into()];
                    self.draw();
                }
                Msg::File(Change::Saved) => {
                    // An event came: this filesystem reports changes, whatever a run is doing.
                    self.staleness.seen(Fingerprint::of(&self.file));
                    self.start(scope, "saved");
                }
                Msg::File(Change::Gone) => self.gone(),
                Msg::File(Change::Failed(why)) => {
                    self.notes = vec![format!(
                        "The file watcher failed ({why}). Press r to grade by hand, or quit and run again with --poll."
                    )];
                    self.draw();
                }
                Msg::Graded { run, result, took } => self.graded(scope, run, result, took),
                Msg::Resize => self.draw(),
                Msg::Tick => self.look(scope),
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
        !self.gone && self.running.is_none() && self.report.as_ref().is_some_and(|r| r.status == Status::Pass)
    }

    /// The lesson `n` goes on to, or why it cannot.
    fn next_lesson(&self) -> Result<String, String> {
        if !self.green() {
            return Err("n starts the next lesson once every check here is green.".into());
        }
        let course = crate::next::Course::read(self.ctx).map_err(|e| e.to_string())?;
        match course.after(&self.lesson.id) {
            Some(next) => Ok(next.id.clone()),
            None => Err(format!("{} is the last lesson: there is no next one.", self.lesson.id)),
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
        self.at = clock();
        self.staleness.seen(Fingerprint::of(&self.file));
        let stop = Arc::new(AtomicBool::new(false));
        self.running = Some(Arc::clone(&stop));
        let (ctx, lesson, file, limit, tx, run, spare) =
            (self.ctx, self.lesson, self.file.clone(), self.limit, self.tx.clone(), self.run, Arc::clone(&self.spare));
        let spawned = std::thread::Builder::new().name("check-watch-grade".into()).spawn_scoped(scope, move || {
            let began = Instant::now();
            let result = grade(ctx, lesson, &file, limit, &stop, &spare);
            let _ = tx.send(Msg::Graded { run, result, took: began.elapsed() });
            // Ready for the next save, while the learner edits.
            if !stop.load(Ordering::SeqCst) {
                if let Ok(mut slot) = spare.lock() {
                    if slot.is_none() {
                        *slot = crate::grading::spare(lesson, &file, &ctx.shown(&file), limit);
                    }
                }
            }
        });
        if let Err(e) = spawned {
            self.running = None;
            self.notes = vec![format!("Could not start a check ({e}). Press r to try again.")];
        }
        if self.output.terminal {
            self.draw();
        }
    }

    fn graded<'s>(&mut self, scope: &'s Scope<'s, '_>, run: u64, result: Option<Result<Report, Error>>, took: Duration)
    where
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
                self.notes.retain(|n| n.contains("--poll") || n.starts_with("Lesson "));
                self.hint_card = None;
                self.draw();
            }
            Some(Err(e)) if run == self.run => {
                self.notes = vec![format!("Could not grade: {e}")];
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
        self.notes = vec![format!(
            "{} is gone (deleted or moved away); the report above is of the last version. Still watching: save the file again and it is graded.",
            self.shown
        )];
        self.draw();
    }

    /// Look at the file itself: a change on disk that no event announced means this filesystem
    /// does not report changes. Grade anyway, and say so.
    fn look<'s>(&mut self, scope: &'s Scope<'s, '_>)
    where
        'a: 's,
    {
        if self.polling || !self.staleness.missed_event(Fingerprint::of(&self.file), Instant::now()) {
            return;
        }
        self.notes = vec![format!(
            "{} changed, but no file event arrived: this filesystem may not report changes (a WSL mount of a Windows drive, a network drive). Quit and run again with --poll to grade on every save.",
            self.shown
        )];
        if self.file.is_file() {
            self.start(scope, "changed on disk");
        } else {
            self.gone();
        }
    }

    /// The next hint step of the first failing check, shown with the steps before it.
    fn hint(&mut self) {
        self.notes.retain(|n| n.contains("--poll"));
        self.hint_card = None;
        let note = match &self.report {
            None => "No report yet: the first check is still running.".to_string(),
            Some(r) if r.status == Status::Error => {
                "The file does not load, so no check ran: the message above says where to look.".to_string()
            }
            Some(r) => match r.first_failure().map(|c| (c, self.lesson.check(&c.id))) {
                None => "Every check passes: no hint needed.".to_string(),
                Some((check, None)) => format!("{} has no hint.", check.id),
                Some((_, Some(spec))) if spec.hints.is_empty() => format!("{} has no hint.", spec.id),
                Some((check, Some(spec))) => {
                    let (shown, newest) = crate::hint::steps::next_step(self.ctx, &self.lesson.id, spec);
                    let card = crate::hint::card::Card {
                        check: spec,
                        failing: Some(check.message.as_str()),
                        shown,
                        newest,
                        lesson: &self.lesson.id,
                        again: crate::hint::card::Again::Key('h'),
                    };
                    self.hint_card = Some(card.text(&self.ctx.styles, self.width()));
                    return;
                }
            },
        };
        self.notes.push(note);
    }

    fn save_progress(&self, report: &Report) {
        if let Err(e) = crate::grading::save_progress(&self.ctx.root, self.lesson, &self.file, report) {
            self.show(&format!("warning: progress was not saved ({e}); the grade stands.\n"));
        }
    }

    fn width(&self) -> usize {
        if self.output.terminal {
            crossterm::terminal::size().map(|(w, _)| usize::from(w).clamp(40, 100)).unwrap_or(self.ctx.width)
        } else {
            self.ctx.width
        }
    }

    fn draw(&self) {
        let s = &self.ctx.styles;
        let width = self.width();
        let mut text = String::new();
        let marker = match &self.on_screen {
            Some((run, why, at, took)) => {
                format!("── run {run} · {why} · {at} · checked in {} ms ──", took.as_millis())
            }
            None => format!("── run {} · {} · {} ──", self.run, self.why, self.at),
        };
        text.push_str(&s.paint(s.dim, marker));
        text.push_str("\n\n");
        match &self.report {
            Some(report) => {
                let mut report = report.clone();
                report.again = "save the file: every save runs the checks again".into();
                text.push_str(&render::check::text(&report, s, self.ctx.glyphs, width))
            }
            None => text.push_str(&format!("Grading {}…\n", self.shown)),
        }
        if let Some(card) = &self.hint_card {
            text.push('\n');
            text.push_str(card);
        }
        for note in &self.notes {
            text.push('\n');
            // Never split at a hyphen: lesson ids and paths stay whole.
            let options = textwrap::Options::new(width).word_splitter(textwrap::WordSplitter::NoHyphenation);
            for line in textwrap::wrap(note, options) {
                text.push_str(&s.paint(s.warn, line));
                text.push('\n');
            }
        }
        text.push('\n');
        let green = !self.gone && self.report.as_ref().is_some_and(|r| r.status == Status::Pass);
        if green {
            // Green is a door: the same next steps as `check`, and `n` for the next lesson.
            match self.door_at(width) {
                Ok(door) => {
                    let here = if door.next { "q quits, n starts the next lesson here" } else { "q quits" };
                    text.push_str(&s.paint(s.good, format!("All green. What next ({here}):")));
                    text.push('\n');
                    text.push_str(&door.text);
                }
                Err(e) => text.push_str(&format!("All green. ({e})\n")),
            }
            text.push('\n');
        }
        if self.running.is_some() && self.report.is_some() {
            text.push_str(&s.paint(s.dim, format!("Checking again ({})…", self.why)));
            text.push('\n');
        }
        let how = if self.polling { "polling for saves" } else { "save it to grade again" };
        let next = if green { " · n next lesson" } else { "" };
        let keys = format!("Watching {} ({how}) · r re-run · h hint{next} · q quit", self.shown);
        if self.output.terminal {
            // On a terminal it wraps as words, not wherever the edge falls; off one it stays one
            // line, the end of the redraw for whoever reads it.
            let options = textwrap::Options::new(width).word_splitter(textwrap::WordSplitter::NoHyphenation);
            text.push_str(&textwrap::wrap(&keys, options).join("\n"));
        } else {
            text.push_str(&keys);
        }
        text.push('\n');
        self.show(&text);
    }

    /// The next steps at green, laid out for `width` (see `door`).
    fn door_at(&self, width: usize) -> Result<crate::next::Door, String> {
        let mut kept = self.door.borrow_mut();
        if let Some((_, door)) = kept.as_ref().filter(|(at, _)| *at == width) {
            return door.clone();
        }
        let door = crate::next::door(&Context { width, ..self.ctx.clone() }, self.lesson).map_err(|e| e.to_string());
        *kept = Some((width, door.clone()));
        door
    }

    /// Show text; the first failure to write is kept for the loop, which then ends.
    fn show(&self, text: &str) {
        if let Err(e) = self.output.show(text) {
            let first = self.write_failed.take().unwrap_or(e);
            self.write_failed.set(Some(first));
        }
    }
}
