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
use super::one::grade_one;
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
    std::thread::scope(|scope| -> Result<(), Error> {
        for n in 0..jobs {
            let tx = tx.clone();
            let (next, abort) = (&next, &abort);
            std::thread::Builder::new()
                .name(format!("grade-{n}"))
                .spawn_scoped(scope, move || loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= subs.len() || abort.load(Ordering::SeqCst) {
                        return;
                    }
                    let result = grade_one(lesson, &subs[i], python, limit, limits);
                    if result.is_err() {
                        abort.store(true, Ordering::SeqCst);
                    }
                    if tx.send((i, result)).is_err() {
                        return;
                    }
                })
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
                    if let Err(e) = output::print(&line(report, lesson, format, printed == 0)) {
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
