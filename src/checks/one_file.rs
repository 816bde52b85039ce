//! Grading one file: start Python with it, run the lesson's checks, make the report. One function
//! serves `check`, `check --watch`, `hint`, `doctor` and `grade`; a stop flag ends it early (a
//! newer save, or `q`), answering every call still to come at once, unrun.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;

use crate::bridge::sandbox::Sandbox;
use crate::bridge::{Bridge, BridgeConfig, Call, LoadError, LoadKind, Outcome, Spare, Stop};
use crate::checks::{self, Report, Status};
use crate::course::progress::Progress;
use crate::error::{Error, GradeError};
use crate::lesson::{Lesson, WorldSince};
use crate::replay::runtime::harness::Code;

/// The learner's code, until told to stop.
struct Stoppable<'a> {
    bridge: &'a mut Bridge,
    stop: &'a AtomicBool,
}

impl Code for Stoppable<'_> {
    fn call(&mut self, function: &str, args: &[Value]) -> Call {
        if self.stop.load(Ordering::SeqCst) {
            let message = "not run: the grading was stopped".into();
            return Call {
                outcome: Outcome::Unavailable { message },
                output: String::new(),
                dropped: 0,
            };
        }
        self.bridge.call(function, args)
    }
}

/// As `grade`, to the end, for an untrusted file started as `sandboxed` says.
pub(crate) fn grade_sandboxed(lesson: &Lesson, cfg: BridgeConfig) -> Result<Report, LoadError> {
    run(lesson, cfg, &AtomicBool::new(false), None)
}

/// How an untrusted file's Python is started (`python`, found once by `Interpreter`, in
/// `sandbox`): a sandbox made ahead for a file (`grade`) is taken only by a start asking for the
/// same, so both build it here.
pub(crate) fn sandboxed(
    lesson: &Lesson,
    file: &Path,
    shown: &str,
    limit: Duration,
    python: std::ffi::OsString,
    sandbox: Sandbox,
) -> BridgeConfig {
    BridgeConfig { python, sandbox: Some(sandbox), ..lesson.python_for(file, shown, limit) }
}

/// A Python process started now, the runner imported, to grade a later version of `file` with
/// `grade_with_spare` (`check --watch` keeps one ready while the learner edits).
pub(crate) fn spare(lesson: &Lesson, file: &Path, shown: &str, limit: Duration) -> Option<Spare> {
    Spare::start(&lesson.python_for(file, shown, limit))
}

/// Grade a file. `Err` only when no Python could be started; a file that does not load is a
/// report with status `error`. `None` when stopped before the end.
pub(crate) fn grade(
    lesson: &Lesson,
    file: &Path,
    shown: &str,
    limit: Duration,
    stop: &AtomicBool,
) -> Option<Result<Report, LoadError>> {
    grade_with_spare(lesson, file, shown, limit, stop, None)
}

/// As `grade`, loading the file in `spare` when there is one.
pub(crate) fn grade_with_spare(
    lesson: &Lesson,
    file: &Path,
    shown: &str,
    limit: Duration,
    stop: &AtomicBool,
    spare: Option<Spare>,
) -> Option<Result<Report, LoadError>> {
    let result = run(lesson, lesson.python_for(file, shown, limit), stop, spare);
    (!stop.load(Ordering::SeqCst)).then_some(result)
}

/// How many times a file is graded whose gradings the world's resets cut short (see `run`).
const GRADINGS_AT_MOST: usize = 3;

/// Grade a file as it would be graded alone. A grading during which the world was upset is not
/// kept. A question of this file's that upset it (an answer over the limit) is its doing for
/// certain; a world stopped, killed or written into from outside is found by whichever file asks
/// next, so a grading that met one beside others (`grade --jobs` grades files side by side) is
/// done again with no other file beside it, where whatever befalls the world is its doing. A file
/// that upsets the world a second time so gets that as its error.
fn run(
    lesson: &Lesson,
    cfg: BridgeConfig,
    stop: &AtomicBool,
    spare: Option<Spare>,
) -> Result<Report, LoadError> {
    let shown = cfg.shown_as.clone();
    let mut spare = spare;
    let (mut upset_by_it, mut alone) = (0, false);
    for _ in 0..GRADINGS_AT_MOST {
        let grading = lesson.grading(alone);
        let mark = lesson.world_mark();
        let report = graded_once(lesson, cfg.clone(), stop, spare.take())?;
        let since = lesson.world_since(&mark);
        let by_itself = grading.alone();
        drop(grading);
        let its_doing = match since {
            _ if stop.load(Ordering::SeqCst) => return Ok(report),
            WorldSince::Untouched => return Ok(report),
            WorldSince::UpsetFromHere(why) => Some(why),
            WorldSince::Reset { outside: Some(why) } if by_itself => Some(why),
            WorldSince::Reset { .. } => {
                alone = true;
                None
            }
        };
        if let Some(why) = its_doing {
            upset_by_it += 1;
            if upset_by_it == 2 {
                return Ok(Report::not_loaded(
                    lesson,
                    shown.clone(),
                    &upset_the_world(&shown, &why),
                ));
            }
        }
    }
    let why = format!(
        "{shown}: the lesson's world was started afresh during each of its {GRADINGS_AT_MOST} gradings \
         (other files' runs upset it, or it ended by itself), so this file has no grade of its own; \
         grade it again on its own."
    );
    Ok(Report::not_loaded(lesson, shown, &LoadError::new(LoadKind::UpsetTheWorld, why)))
}

/// The error of a file whose run upset the lesson's world, said as its doing.
fn upset_the_world(shown: &str, why: &str) -> LoadError {
    let message = format!(
        "{shown}: its run upset the lesson's world, twice: {why}. This is the file's doing, not \
         the world's: a file must leave the world alone and name things of a sane size. The world \
         was started afresh for whatever comes next."
    );
    LoadError::new(LoadKind::UpsetTheWorld, message)
}

/// Grade a file once.
fn graded_once(
    lesson: &Lesson,
    cfg: BridgeConfig,
    stop: &AtomicBool,
    spare: Option<Spare>,
) -> Result<Report, LoadError> {
    let seed = checks::seed_for(
        &std::fs::read(&cfg.file).unwrap_or_default(),
        crate::checks::sample_key::current(),
    );
    checks::ask_ahead(lesson, seed);
    let shown = cfg.shown_as.clone();
    let shown = shown.as_str();
    match Bridge::start_with_spare(cfg, Stop::default(), spare) {
        Ok(mut bridge) => {
            crate::bridge::take_turns_on_one_core();
            let results =
                checks::run_all(lesson, &mut Stoppable { bridge: &mut bridge, stop }, seed);
            // An answer the runner did not write makes no grade, whichever check it decided.
            if let Err(e) = bridge.confirm() {
                return Ok(Report::not_loaded(lesson, shown.to_string(), &e));
            }
            let mut report = Report::graded(lesson, shown.to_string(), results);
            report.load_output = std::mem::take(&mut bridge.load_output);
            Ok(report)
        }
        Err(e) if e.kind == LoadKind::NoPython => Err(e),
        Err(e) => Ok(Report::not_loaded(lesson, shown.to_string(), &e)),
    }
}

/// Grade a file to the end.
pub(crate) fn to_the_end(
    at: &crate::course::root::Where,
    lesson: &Lesson,
    file: &std::path::Path,
    limit: Duration,
) -> Result<Report, Error> {
    let never = std::sync::atomic::AtomicBool::new(false);
    let graded = match grade(lesson, file, &at.shown(file), limit, &never) {
        Some(result) => result.map_err(Error::Load),
        None => Err(GradeError::Stopped.into()),
    };
    // A world that broke is its author's error, never a grade of the learner's file.
    match lesson.world_error() {
        Some(e) => Err(e),
        None => graded,
    }
}

/// Whether `file` is the learner's own work file of the lesson, however it was named (`--file`, `..`).
pub(crate) fn is_work_file(root: &Path, lesson: &Lesson, file: &Path) -> bool {
    let work = lesson.work_file(root);
    match (file.canonicalize(), work.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => file == work,
    }
}

/// Record a grade in progress when it is of the learner's own work file and the file loaded.
pub(crate) fn save_progress(
    root: &Path,
    lesson: &Lesson,
    file: &Path,
    report: &Report,
) -> std::io::Result<()> {
    if !is_work_file(root, lesson, file) || report.status == Status::Error {
        return Ok(());
    }
    Progress::update(root, &lesson.id, |p| {
        p.started = true;
        p.passed = Some(report.passed);
        p.total = Some(report.total);
        p.green |= report.status == Status::Pass;
    })
}
