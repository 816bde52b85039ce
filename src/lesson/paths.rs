//! Where a lesson's files are (its folder, the learner's copy, the recordings), and which names
//! and paths a manifest may use.

use std::path::{Path, PathBuf};

use super::Lesson;
use crate::error::{Error, LessonError};

/// A lesson id is a folder name: no separators, no `..`, nothing hidden.
pub(crate) fn validate_id(id: &str) -> Result<(), Error> {
    let bad = id.is_empty()
        || id.starts_with('.')
        || id.contains(['/', '\\'])
        || id.contains("..")
        || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bad {
        return Err(LessonError::NotAnId { id: id.to_string() }.into());
    }
    Ok(())
}

/// The ids of the lessons under `root/lessons`, sorted.
pub(crate) fn known_ids(root: &Path) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(root.join("lessons"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("lesson.toml").is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    ids.sort();
    ids
}

/// Letters, digits, `-` and `_`, starting with a letter or digit.
pub(super) fn plain_word(text: &str) -> bool {
    text.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A file name with no folder in it, not hidden, not `..`.
pub(super) fn plain_file_name(text: &str) -> bool {
    !text.is_empty() && !text.starts_with('.') && !text.contains(['/', '\\']) && text != ".."
}

/// Whether a manifest's path stays inside the lesson's folder: not empty, no leading `/`, no `..`.
pub(super) fn inside_folder(path: &str) -> bool {
    !path.is_empty()
        && Path::new(path).components().all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// Whether `path` in the lesson's folder `dir`, its links followed, is still in that folder. A
/// path that is not there resolves to nothing and passes: that it is missing is said elsewhere.
pub(super) fn resolves_inside(dir: &Path, path: &str) -> bool {
    match (dir.canonicalize(), dir.join(path).canonicalize()) {
        (Ok(folder), Ok(file)) => file.starts_with(folder),
        _ => true,
    }
}

impl Lesson {
    pub fn solution_path(&self) -> PathBuf {
        self.dir.join(&self.solution)
    }

    pub fn starter_dir(&self, root: &Path) -> PathBuf {
        root.join("starter").join(&self.id)
    }

    pub fn work_dir(&self, root: &Path) -> PathBuf {
        root.join("work").join(&self.id)
    }

    pub fn recordings_dir(&self, root: &Path) -> PathBuf {
        root.join("recordings").join(&self.id)
    }

    pub fn starter_file(&self, root: &Path) -> PathBuf {
        self.starter_dir(root).join(&self.file)
    }

    pub fn work_file(&self, root: &Path) -> PathBuf {
        self.work_dir(root).join(&self.file)
    }
}
