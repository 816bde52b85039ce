//! Loading a lesson: its manifest read, validated, and its world started.

use std::path::Path;

use super::paths::{known_ids, validate_id};
use super::problems::Problems;
use super::Lesson;
use crate::error::{Corrupt, Error, Flaw};

/// Every lesson of the root that loads, in course order (by number), and the id and error of
/// each that does not: a listing shows a broken lesson as broken and goes on with the rest.
pub(crate) fn all_in_order(root: &Path) -> (Vec<Lesson>, Vec<(String, Error)>) {
    let (mut lessons, mut broken) = (Vec::new(), Vec::new());
    for id in known_ids(root) {
        match Lesson::load_listed(root, &id) {
            Ok(lesson) => lessons.push(lesson),
            Err(e) => broken.push((id, e.relative_to(root))),
        }
    }
    lessons.sort_by_key(|l| l.number);
    (lessons, broken)
}

impl Lesson {
    /// Load and validate `lessons/<id>/lesson.toml`.
    pub fn load(root: &Path, id: &str) -> Result<Lesson, Error> {
        Lesson::load_in(root, id, true)
    }

    /// A lesson to list, its world not started: its place is nowhere, so nothing of it runs.
    /// Its world's checks wait for a command that runs it.
    pub(crate) fn load_listed(root: &Path, id: &str) -> Result<Lesson, Error> {
        Lesson::load_in(root, id, false)
    }

    fn load_in(root: &Path, id: &str, world: bool) -> Result<Lesson, Error> {
        validate_id(id)?;
        let dir = root.join("lessons").join(id);
        let path = dir.join("lesson.toml");
        if !path.is_file() {
            return Err(super::find::unknown(root, id));
        }
        let text = crate::files::read_data_text(&path, crate::files::DATA_CAP)
            .map_err(|e| Corrupt::new(&path, Flaw::Unreadable(e)))?;
        Lesson::from_text(&text, &path, &dir, Some(id), world.then_some(root))
    }

    /// Load a manifest from any path (lesson authors' fixtures too), validated.
    pub fn load_file(path: &Path, dir: &Path, id: Option<&str>) -> Result<Lesson, Error> {
        let text = crate::files::read_data_text(path, crate::files::DATA_CAP)
            .map_err(|e| Corrupt::new(path, Flaw::Unreadable(e)))?;
        // A lesson lives in <root>/lessons/<id>/, its world in <root>/worlds/<name>/.
        let root = dir.parent().and_then(Path::parent).unwrap_or(dir);
        Lesson::from_text(&text, path, dir, id, Some(root))
    }

    /// A manifest's text, validated, its world found under `<root>/worlds/` and loaded.
    pub(crate) fn from_text(
        text: &str,
        path: &Path,
        dir: &Path,
        id: Option<&str>,
        root: Option<&Path>,
    ) -> Result<Lesson, Error> {
        let mut lesson: Lesson = toml::from_str(text).map_err(|e| {
            let at = e.span().map(|s| text[..s.start.min(text.len())].lines().count().max(1));
            Corrupt::new(path, Flaw::Manifest { at, source: e })
        })?;
        lesson.dir = dir.to_path_buf();
        if let Some(id) = id {
            if lesson.id != id {
                let flaw = Flaw::IdMismatch { says: lesson.id, folder: id.to_string() };
                return Err(Corrupt::new(path, flaw).into());
            }
        }
        let mut problems = Problems::default();
        lesson.validate(&mut problems);
        lesson.word_expectations(&mut problems);
        lesson.define_properties(&mut problems);
        let Some(root) = root else {
            // Listed only: what needs the world waits for a command that starts it.
            let problems = problems.placed(text);
            if !problems.is_empty() {
                return Err(Corrupt::new(path, Flaw::Problems(problems)).into());
            }
            return Ok(lesson);
        };
        if problems.found.is_empty() {
            lesson.start_world(&mut problems, root, text, path);
            // For the world's check of them (`check_with_world`), while its process starts: a
            // lesson listed only never has that check, so it never walks its cases for this.
            lesson.checks.iter_mut().for_each(super::check_spec::CheckSpec::name_samples);
        }
        let problems = problems.placed(text);
        if !problems.is_empty() {
            return Err(Corrupt::new(path, Flaw::Problems(problems)).into());
        }
        Ok(lesson)
    }
}
