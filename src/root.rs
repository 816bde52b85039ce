//! Finding the workshop root: the folder that holds `lessons/`.

use std::path::{Path, PathBuf};

use crate::error::Error;

/// `--root` / `WORKSHOP_ROOT` when given (it must hold `lessons/`), else the nearest folder at or
/// above `cwd` that holds `lessons/`.
pub fn find(given: Option<&Path>, cwd: &Path) -> Result<PathBuf, Error> {
    if let Some(dir) = given {
        let dir = cwd.join(dir);
        if dir.join("lessons").is_dir() {
            return Ok(dir);
        }
        return Err(Error::usage(format!(
            "{} is not a workshop: it has no lessons/ folder. Point --root (or WORKSHOP_ROOT) at the folder you cloned.",
            dir.display()
        )));
    }
    cwd.ancestors().find(|dir| dir.join("lessons").is_dir()).map(Path::to_path_buf).ok_or_else(|| {
        Error::usage(format!(
            "no workshop here: neither {} nor a folder above it has lessons/. Run this inside the cloned workshop, or pass --root DIR.",
            cwd.display()
        ))
    })
}

/// `path` relative to the root when it is inside it, for messages.
pub fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root).unwrap_or(path).display().to_string()
}
