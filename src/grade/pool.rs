//! The worker pool of `grade`: submissions graded on several threads, each line printed in order
//! as soon as the ones before it are done.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::bridge::sandbox::{Interpreter, Limits};
use crate::checks::Report;
use crate::cli::GradeFormat;
use crate::error::Error;
use crate::lesson::Lesson;
use crate::output;

use super::bar::Bar;
use super::line::line;
use super::one::{grade_one, prepare, Prepared};
use super::submission::Submission;

/// Grade every submission on `jobs` threads and print each line in order as soon as the ones
/// before it are done. One file's trouble is its own verdict; only a failure of the machinery
/// (no temporary folder) stops the run.
pub(crate) fn grade_all(
    lesson: &Lesson,
    subs: &[Submission],
    python: &Interpreter,
    limit: Duration,
    jobs: usize,
    format: GradeFormat,
) -> Result<Vec<Report>, Error> {
    let limits = Limits::for_grading(limit);
    let next = AtomicUsize::new(0);
    let abort = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, Result<Report, Error>)>();
    let mut bar = Bar::new(subs.len());
    let mut reports: Vec<Option<Report>> = (0..subs.len()).map(|_| None).collect();
    let mut printed = 0;
    let mut failure = None;
    let run = GradingRun { lesson, subs, python, limit, limits, jobs, next: &next, abort: &abort };
    std::thread::scope(|scope| -> Result<(), Error> {
        for n in 0..jobs {
            let tx = tx.clone();
            std::thread::Builder::new()
                .name(format!("grade-{n}"))
                .spawn_scoped(scope, move || run.grade_in_turn(&tx))
                .map_err(|e| {
                    abort.store(true, Ordering::SeqCst);
                    Error::io("could not start a grading thread", e)
                })?;
        }
        drop(tx);
        for (i, result) in rx {
            match result {
                Ok(report) => reports[i] = Some(report),
                Err(e) => {
                    failure.get_or_insert(e);
                    continue;
                }
            }
            bar.tick();
            while let Some(Some(report)) = reports.get(printed) {
                if failure.is_none() {
                    bar.clear();
                    // A reader that went away (`grade ... | head -3`) ends the grading.
                    if let Err(e) = output::as_is(&line(report, lesson, format, printed == 0)) {
                        abort.store(true, Ordering::SeqCst);
                        failure = Some(e);
                    }
                }
                printed += 1;
            }
        }
        bar.clear();
        Ok(())
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(reports.into_iter().flatten().collect())
}

/// What every grading thread of a run shares.
#[derive(Clone, Copy)]
struct GradingRun<'a> {
    lesson: &'a Lesson,
    subs: &'a [Submission],
    python: &'a Interpreter,
    limit: Duration,
    limits: Limits,
    /// How many threads grade.
    jobs: usize,
    /// The next file no thread has taken.
    next: &'a AtomicUsize,
    /// Set when the run stops: no file is taken or graded after.
    abort: &'a AtomicBool,
}

impl GradingRun<'_> {
    /// Take files in turn and grade them, each report sent with its index. Under bubblewrap,
    /// the next file's sandbox is made while one is graded (see `prepare`), as long as enough
    /// files are left that no other thread goes without one for it.
    fn grade_in_turn(self, tx: &mpsc::Sender<(usize, Result<Report, Error>)>) {
        // Each file's Python only takes turns with this thread: both keep to one core.
        let _core = crate::bridge::keep_to_a_core_of_its_own();
        let ahead = self.python.sandboxed();
        let mut held = None;
        loop {
            let Some((i, prepared)) = held.take().or_else(|| self.claim(false)) else { return };
            // A file made ready ahead is not graded once the run is stopping.
            if self.abort.load(Ordering::SeqCst) {
                return;
            }
            let left = self.subs.len().saturating_sub(self.next.load(Ordering::SeqCst));
            if ahead && left >= self.jobs {
                held = self.claim(true);
            }
            let result = prepared.and_then(|prepared| {
                grade_one(self.lesson, &self.subs[i], self.python, self.limit, prepared)
            });
            if result.is_err() {
                self.abort.store(true, Ordering::SeqCst);
            }
            if tx.send((i, result)).is_err() {
                return;
            }
        }
    }

    /// The next file, made ready to grade (its sandbox made now when `ahead`); `None` when
    /// every file is taken or the run is stopping.
    fn claim(&self, ahead: bool) -> Option<(usize, Result<Prepared, Error>)> {
        let i = self.next.fetch_add(1, Ordering::SeqCst);
        if i >= self.subs.len() || self.abort.load(Ordering::SeqCst) {
            return None;
        }
        Some((i, prepare(self.lesson, &self.subs[i], self.python, self.limit, self.limits, ahead)))
    }
}
