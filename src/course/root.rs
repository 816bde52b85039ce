//! Finding the workshop root: the folder that holds `lessons/`.

use std::path::{Path, PathBuf};

use crate::error::{CourseError, Error};

/// `--root` / `WORKSHOP_ROOT` when given (it must hold `lessons/`), else the nearest folder at or
/// above `cwd` that holds `lessons/`.
pub(crate) fn find(given: Option<&Path>, cwd: &Path) -> Result<PathBuf, Error> {
    if let Some(dir) = given {
        let dir = cwd.join(dir);
        if dir.join("lessons").is_dir() {
            return Ok(dir);
        }
        return Err(CourseError::NotAWorkshop { dir: crate::text::inert::path(&dir) }.into());
    }
    cwd.ancestors()
        .find(|dir| dir.join("lessons").is_dir())
        .map(Path::to_path_buf)
        .ok_or_else(|| CourseError::NoWorkshopHere { cwd: crate::text::inert::path(cwd) }.into())
}

/// `path` relative to the root when it is inside it, for messages (escaped: see `inert::path`).
pub(crate) fn shown(root: &Path, path: &Path) -> String {
    crate::text::inert::path(path.strip_prefix(root).unwrap_or(path))
}

/// Where a command runs: the workshop root and the learner's current folder. Domain code takes
/// this (never the command's whole context) to find files and to name them in messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Where {
    pub root: PathBuf,
    pub cwd: PathBuf,
}

impl Where {
    /// A path for messages: relative to the root when run there; from a folder inside the root,
    /// relative to that folder, so the path works where the learner is.
    pub fn shown(&self, path: &Path) -> String {
        self.relative(path, crate::text::inert::path)
    }

    /// The same path by name, for JSON to carry (see `inert::name`).
    pub fn named(&self, path: &Path) -> String {
        self.relative(path, crate::text::inert::name)
    }

    fn relative(&self, path: &Path, spell: fn(&Path) -> String) -> String {
        if self.cwd != self.root {
            if let (Ok(inside), Ok(rel)) =
                (self.cwd.strip_prefix(&self.root), path.strip_prefix(&self.root))
            {
                if let Ok(here) = path.strip_prefix(&self.cwd) {
                    return spell(here);
                }
                let up = "../".repeat(inside.components().count());
                return format!("{up}{}", spell(rel));
            }
        }
        spell(path.strip_prefix(&self.root).unwrap_or(path))
    }
}
