//! The learner's work file for a lesson, checked to be there as a regular file, and what to say
//! when it is not (`check` and `watch --code yours` add their own way out).

use std::path::{Path, PathBuf};

use crate::error::{CourseError, Error};
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
    /// The error, the path as `shown` shows it; `pick` is the solution's label when `--code`
    /// offers another way on (", or pick --code starter or fixed").
    pub(crate) fn error(
        &self,
        lesson: &Lesson,
        shown: impl Fn(&Path) -> String,
        pick: Option<&str>,
    ) -> Error {
        let (lesson, pick) = (lesson.id.clone(), pick.map(str::to_string));
        match self {
            NoWorkFile::NotRegular { path, what } => {
                CourseError::WorkNotRegular { path: shown(path), what, lesson, pick }
            }
            NoWorkFile::Absent { path } => {
                CourseError::WorkAbsent { path: shown(path), lesson, pick }
            }
        }
        .into()
    }
}
