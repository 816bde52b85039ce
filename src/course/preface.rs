//! What a course says of itself where its lessons are listed: `lessons/course.toml`, optional.

use std::path::Path;

use serde::Deserialize;

use crate::error::{Corrupt, Error, Flaw};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Preface {
    /// Said under the lessons when the first of them is not lesson 1: what came before it, and
    /// what the first lesson assumes of it.
    #[serde(default)]
    pub before: Option<String>,
}

pub(crate) fn path(root: &Path) -> std::path::PathBuf {
    root.join("lessons").join("course.toml")
}

impl Preface {
    /// The course's preface; none when there is no `course.toml`.
    pub(crate) fn read(root: &Path) -> Result<Preface, Error> {
        let path = path(root);
        if !path.is_file() {
            return Ok(Preface::default());
        }
        let text = crate::files::read_data_text(&path, crate::files::DATA_CAP)
            .map_err(|e| Corrupt::new(&path, Flaw::Unreadable(e)))?;
        toml::from_str(&text).map_err(|e| Corrupt::new(&path, Flaw::CourseFile(e)).into())
    }
}
