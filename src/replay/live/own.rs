//! The learner's own recordings: turns `watch --live` asked the model for, kept under
//! `work/<lesson>/recordings/<runtime>/<ticket>.jsonl` in the same format as the shipped ones, so
//! later replays of the same request find them offline. The shipped `recordings/` are never
//! written here.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::replay::recordings::{self, Cassette, Entry, Whose};

/// The learner's own recording file for a ticket in a runtime.
pub(crate) fn file(root: &Path, lesson: &str, runtime: &str, ticket: &str) -> PathBuf {
    recordings::file_for(&root.join("work").join(lesson).join("recordings"), runtime, ticket)
}

/// The turns kept in `path`, validated like the shipped ones; none when there is no file yet.
pub(crate) fn load(root: &Path, path: &Path) -> Result<Vec<Entry>, Error> {
    if !path.is_file() {
        return Ok(Vec::new());
    }
    // Not a shipped file: git cannot restore it and `record` does not make it; its errors say so.
    let cassette = Cassette::load_as(root, path, Whose::Own)?;
    Ok(cassette.turns.into_iter().map(|t| t.entry).collect())
}

/// Keep one more turn: the whole file is written anew beside it and renamed over it, so an
/// interrupted write leaves the old file whole.
pub(crate) fn keep(path: &Path, entries: &mut Vec<Entry>, entry: Entry) -> std::io::Result<()> {
    if entries.iter().any(|e| e.key == entry.key) {
        return Ok(());
    }
    entries.push(entry);
    recordings::write_file(path, entries)
}
