//! The errors that end a command, and the exit codes they map to.

use std::path::Path;

use crate::bridge::LoadError;

/// All checks green, or the command did what was asked.
pub(crate) const EXIT_SUCCESS: i32 = 0;
/// Checks ran and some failed, or the command refused to act (it says why).
pub(crate) const EXIT_FAILED: i32 = 1;
/// Could not run: usage, a file that does not load, no Python, corrupt lesson data.
pub(crate) const EXIT_COULD_NOT_RUN: i32 = 2;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The command line or the situation does not allow the command to run.
    #[error("{0}")]
    Usage(String),
    /// Lesson data or recordings are broken.
    #[error("{path}: {why}")]
    Corrupt { path: String, why: String },
    /// The command chose not to act, to protect the learner's work.
    #[error("{0}")]
    Refused(String),
    /// The learner's file could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A file, folder or thread the command needs failed it; `what` says which, and the
    /// message ends with what to do when the disk is full or a limit is in force.
    #[error("{what}: {source}{}", next_step(.source))]
    Io { what: String, source: std::io::Error },
    /// The saved file cannot be watched for `check --watch`.
    #[error("{0}. Try --poll, or run ./workshop check after each save.")]
    Watch(#[from] crate::saves::WatchError),
    /// A model turn could not be had (from the live model, or the learner's own recordings), so
    /// the run stopped; `after` says what was left as it was.
    #[error("{failure} {after}")]
    Model { failure: String, after: &'static str },
    /// Standard output could not be written (see `output`): a closed pipe ends the command quietly.
    #[error("could not write the output: {0}")]
    Output(std::io::Error),
}

impl Error {
    pub fn usage(message: impl Into<String>) -> Error {
        Error::Usage(message.into())
    }

    pub fn corrupt(path: &Path, why: impl Into<String>) -> Error {
        Error::Corrupt { path: path.display().to_string(), why: why.into() }
    }

    pub fn io(what: impl std::fmt::Display, err: std::io::Error) -> Error {
        Error::Io { what: what.to_string(), source: err }
    }

    /// Paths in the message relative to the workshop root, as every other message shows them.
    pub fn relative_to(self, root: &Path) -> Error {
        match self {
            Error::Corrupt { path, why } => {
                let rel = Path::new(&path)
                    .strip_prefix(root)
                    .map(|p| p.display().to_string())
                    .unwrap_or(path);
                Error::Corrupt { path: rel, why }
            }
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

/// What to do about a write the system refused for want of room, after its error.
pub(crate) fn next_step(err: &std::io::Error) -> &'static str {
    match err.raw_os_error() {
        Some(libc::EFBIG) => {
            ". A file-size limit is in force (ulimit -f): raise it (ulimit -f unlimited) and try again"
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
