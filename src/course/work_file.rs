//! The learner's work file for a lesson, checked to be there as a regular file, and what to say
//! when it is not (`check` and `watch --code yours` add their own way out).

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::lesson::Lesson;

/// Why the work file cannot be read as code.
#[derive(Debug)]
pub(crate) enum NoWorkFile {
    /// Something is there, but no regular file: in words ("a folder").
    NotRegular { path: PathBuf, what: &'static str },
    /// Nothing is there yet.
    Absent { path: PathBuf },
}

/// The lesson's work file, if it is a regular file.
pub(crate) fn existing(root: &Path, lesson: &Lesson) -> Result<PathBuf, NoWorkFile> {
    let path = lesson.work_file(root);
    if let Some(what) = crate::files::not_regular(&path) {
        return Err(NoWorkFile::NotRegular { path, what });
    }
    if !path.is_file() {
        return Err(NoWorkFile::Absent { path });
    }
    Ok(path)
}

impl NoWorkFile {
    /// The usage error, the path as `shown` shows it; `or` is another way on (", or pick --code
    /// starter or fixed"), said after starting the lesson.
    pub(crate) fn error(
        &self,
        lesson: &Lesson,
        shown: impl Fn(&Path) -> String,
        or: &str,
    ) -> Error {
        Error::usage(match self {
            NoWorkFile::NotRegular { path, what } if or.is_empty() => format!(
                "{} is {what}, not a file of code: put your code in a regular file there (./workshop start {} makes one where nothing is).",
                shown(path),
                lesson.id
            ),
            NoWorkFile::NotRegular { path, what } => {
                format!("{} is {what}, not a file of code: put your code in a regular file there{or}.", shown(path))
            }
            NoWorkFile::Absent { path } => {
                format!("{} does not exist yet: run ./workshop start {} first{or}.", shown(path), lesson.id)
            }
        })
    }
}
