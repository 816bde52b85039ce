//! Grading one submission: a fresh private folder holding a copy of it, and `check`'s grading,
//! sandboxed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::bridge::sandbox::{Folder, Interpreter, Limits, Sandbox};
use crate::bridge::{LoadError, LoadKind};
use crate::checks::Report;
use crate::error::Error;
use crate::lesson::Lesson;

use super::submission::Submission;

/// A submission made ready to grade: its private folder holding its copy, and its sandbox (under
/// bubblewrap perhaps made already, see `prepare`); or why it was not read.
pub(crate) enum Prepared {
    Ready(Folder, PathBuf, Sandbox),
    Unread(String),
}

/// Make `sub` ready to grade: a fresh private folder holding a copy of it, and its sandbox.
/// `ahead`: make the sandbox now (under bubblewrap), to start its Python in when its turn comes.
pub(crate) fn prepare(
    lesson: &Lesson,
    sub: &Submission,
    python: &Interpreter,
    limit: Duration,
    limits: Limits,
    ahead: bool,
) -> Result<Prepared, Error> {
    let source = match &sub.source {
        Ok(source) => source,
        Err(why) => return Ok(Prepared::Unread(why.to_string())),
    };
    let (folder, file) = Folder::holding(&sub.name, source).map_err(|e| {
        Error::io(
            format!(
                "could not copy {} to a temporary folder to grade it (is the temp folder full?)",
                sub.shown
            ),
            e,
        )
    })?;
    let sandbox = python.sandbox(folder.path().to_path_buf(), &[sub.name.as_os_str()], limits);
    if ahead {
        // The start the grading makes (`checks::one_file::grade_sandboxed`) takes it when it asks
        // for the same; any other start makes its own.
        let cfg = crate::checks::one_file::sandboxed(
            lesson,
            &file,
            &sub.shown,
            limit,
            python.executable.clone(),
            sandbox.clone(),
        );
        sandbox.make_ahead(&cfg);
    }
    Ok(Prepared::Ready(folder, file, sandbox))
}

/// Grade one file, made ready by `prepare`: `check`'s grading, sandboxed.
pub(crate) fn grade_one(
    lesson: &Lesson,
    sub: &Submission,
    python: &Interpreter,
    limit: Duration,
    prepared: Prepared,
) -> Result<Report, Error> {
    let unread = |message: String| {
        let error = LoadError::new(LoadKind::Unreadable, message);
        Ok(Report::not_loaded(lesson, sub.shown.clone(), &error))
    };
    let (folder, file, sandbox) = match prepared {
        Prepared::Ready(folder, file, sandbox) => (folder, file, sandbox),
        Prepared::Unread(why) => return unread(why),
    };
    let cfg = crate::checks::one_file::sandboxed(
        lesson,
        &file,
        &sub.shown,
        limit,
        python.executable.clone(),
        sandbox,
    );
    let graded = crate::checks::one_file::grade_sandboxed(lesson, cfg);
    let mut report = match graded {
        Ok(report) => report,
        // Python ran for this grading's start, so what ended it before it said hello is this
        // file's neighbours or the machine, not a missing Python: this file's error, not the run's.
        Err(e) => return unread(ended_early(&sub.shown, &e)),
    };
    relabel(&mut report, folder.path(), &sub.shown);
    drop(folder);
    Ok(report)
}

/// Why a file has no grade when its Python ended before the runner said hello. Only a Python that
/// would not start ends a grading early, so the reason is the interpreter's, without its remedy
/// (Python ran for this grading's start: installing it is not the way out).
fn ended_early(shown: &str, e: &LoadError) -> String {
    let why = e.no_python.as_deref().map_or(e.message.as_str(), |n| n.reason.as_str());
    format!("{shown}: its Python ended before it started the runner ({why}); grade this file again on its own.")
}

/// Messages name the file as shown, not the private copy it was graded from.
fn relabel(report: &mut Report, dir: &Path, shown: &str) {
    let Some(dir) = dir.to_str() else { return };
    let parent =
        Path::new(shown).parent().and_then(Path::to_str).filter(|p| !p.is_empty()).unwrap_or(".");
    let fix = |text: &mut String| {
        if text.contains(dir) {
            *text = text.replace(dir, parent);
        }
    };
    fix(&mut report.message);
    for check in &mut report.checks {
        fix(&mut check.message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::NoPython;

    #[test]
    fn a_python_that_ended_early_is_named_by_its_reason_alone() {
        let e = LoadError::from(NoPython::new(
            std::ffi::OsStr::new("/usr/bin/python3"),
            "it was killed by signal 9",
        ));
        assert_eq!(
            ended_early("class/a.py", &e),
            "class/a.py: its Python ended before it started the runner (it was killed by signal 9); grade this file again on its own."
        );
    }
}
