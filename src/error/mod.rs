//! The errors that end a command, and the exit codes they map to. Every word a learner reads
//! about one is written here, in the `#[error]` attributes of the types below, from the data
//! each carries: the names, the paths, the underlying error as its source.

mod corrupt;
mod course;
mod flag;
mod grade;
mod lesson;
mod record;
mod refusal;
#[cfg(test)]
mod tests;

use std::path::Path;

pub(crate) use corrupt::{Corrupt, Flaw, Recording, Whose};
pub(crate) use course::CourseError;
pub(crate) use flag::FlagError;
pub(crate) use grade::GradeError;
pub(crate) use lesson::{LessonError, Numbered};
pub(crate) use record::RecordError;
pub(crate) use refusal::Refusal;

use crate::bridge::LoadError;

/// All checks green, or the command did what was asked.
pub(crate) const EXIT_SUCCESS: i32 = 0;
/// Checks ran and some failed, or the command refused to act (it says why).
pub(crate) const EXIT_FAILED: i32 = 1;
/// Could not run: usage, a file that does not load, no Python, corrupt lesson data.
pub(crate) const EXIT_COULD_NOT_RUN: i32 = 2;

/// An error of a module above this one (the quiz's rules, the live model's settings): kept as
/// the source, its words its own. Boxed, since `error` sits below every module that raises one.
pub(crate) type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A lesson, or a part of one, named on the command line is not there.
    #[error(transparent)]
    Lesson(#[from] LessonError),
    /// The workshop, the course's folders or the learner's work file are not as they must be.
    #[error(transparent)]
    Course(#[from] CourseError),
    /// A flag, or the setting that stands for one, cannot be used as given.
    #[error(transparent)]
    Flag(#[from] FlagError),
    /// The submissions given to `grade` cannot be graded.
    #[error(transparent)]
    Grade(#[from] GradeError),
    /// A lesson's recordings or its recording script are not there to use.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// Lesson data or recordings are broken (boxed: a parser's error is large, and every
    /// `Result` of the program carries this type).
    #[error(transparent)]
    Corrupt(Box<Corrupt>),
    /// The command chose not to act, to protect the learner's work.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The learner's file could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A file, folder or thread the command needs failed it; `what` says which, and the
    /// message ends with what to do when the disk is full or a limit is in force. `what` is
    /// prose with one meaning: the step that failed and its path ("could not write x.py"), as
    /// each of the many sites words it; the system's error is the source.
    #[error("{what}: {source}{}", next_step(.source))]
    Io { what: String, source: std::io::Error },
    /// The saved file cannot be watched for `check --watch`.
    #[error("{0}. Try --poll, or run ./workshop check after each save.")]
    Watch(#[from] crate::saves::WatchError),
    /// A model turn could not be had (from the live model, or the learner's own recordings), so
    /// the run stopped; `after` says what was left as it was. `failure` is prose with one
    /// meaning, the model layer's own account of the failed request (its `NoReply`, or why
    /// a turn could not be kept), which carries no error type of its own.
    #[error("{failure} {after}")]
    Model { failure: String, after: &'static str },
    /// Standard output could not be written (see `output`): a closed pipe ends the command quietly.
    #[error("could not write the output: {0}")]
    Output(std::io::Error),
}

impl Error {
    pub fn io(what: impl std::fmt::Display, err: std::io::Error) -> Error {
        Error::Io { what: what.to_string(), source: err }
    }

    /// Paths in the message relative to the workshop root, as every other message shows them.
    pub fn relative_to(self, root: &Path) -> Error {
        match self {
            Error::Corrupt(corrupt) => Error::Corrupt(Box::new(corrupt.relative_to(root))),
            other => other,
        }
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Refused(_) => EXIT_FAILED,
            Error::Output(e) if reader_left(e) => EXIT_SUCCESS,
            _ => EXIT_COULD_NOT_RUN,
        }
    }
}

impl From<Corrupt> for Error {
    fn from(corrupt: Corrupt) -> Error {
        Error::Corrupt(Box::new(corrupt))
    }
}

/// What to do about a write the system refused for want of room, after its error.
pub(crate) fn next_step(err: &std::io::Error) -> &'static str {
    match err.raw_os_error() {
        Some(libc::EFBIG) => {
            ". A file-size limit is in force (ulimit -f): raise it (ulimit -f unlimited) and try \
             again"
        }
        Some(libc::ENOSPC) => ". The disk is full: make room and try again",
        Some(libc::EDQUOT) => ". Your disk quota is used up: make room and try again",
        _ => "",
    }
}

/// Whether a failed write only means the reader stopped reading.
pub(crate) fn reader_left(err: &std::io::Error) -> bool {
    err.kind() == std::io::ErrorKind::BrokenPipe
}
