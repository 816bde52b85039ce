//! The runner's bytecode in the shared cache folder, kept honest. Python trusts a `.pyc` it finds
//! beside a module: an unchecked hash-based one without looking at the source at all, a
//! timestamp-based one when the source's time and size match its header. The learner's code
//! runs as the same user and could write either, so that the next command (another learner's
//! `check --format json` on the same account) would run its code as the runner.
//!
//! So a `.pyc` is used only as Python itself writes it (timestamp-based, for the source as it is
//! now) and only when it is, byte for byte, the one the workshop kept a copy of (`<pyc>.kept`)
//! when a command ended with it untouched: its code is vetted, not only its header. The
//! workshop remembers the bytes it saw before any learner code ran: as it vets them, before
//! Python starts, or, when there were none to vet (the first command on a fresh cache), at the
//! first hello read. When the command ends, after every learner process was killed, a `.pyc`
//! that changed or appeared since is removed: Python compiles a sound one on the next start.
//! What stays open, to the same user only (`files::cache_dir` keeps other users out): a file
//! that forges a `.pyc` and its kept copy and then kills the workshop outright (SIGKILL) before
//! it can look; on a fresh cache, a file that forges one before the first hello is read (the
//! learner's process, forked from the first runner, may be loading its file by then); `grade`
//! never uses this cache.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The runner's module in its cache folder, and each of its `.pyc` files with the bytes seen
/// before learner code ran (`None`: there was none yet). The bytes themselves, not a digest:
/// compared at the command's end, which waits for it, in a few microseconds rather than the tens
/// a SHA-256 of them took.
struct Watched {
    dir: PathBuf,
    module: String,
    seen: Option<Vec<(PathBuf, Vec<u8>)>>,
    /// Whether `seen` was vetted against the kept copies (else, seen at a hello, it is kept at
    /// the end when nothing changed it).
    vetted: bool,
}

static WATCHED: Mutex<Option<Watched>> = Mutex::new(None);

/// The `.pyc` files of `module` in `dir`'s `__pycache__` (one per interpreter version).
fn compiled(dir: &Path, module: &str) -> Vec<PathBuf> {
    let prefix = format!("{module}.");
    let Ok(entries) = std::fs::read_dir(dir.join("__pycache__")) else { return Vec::new() };
    entries
        .flatten()
        .filter(|e| {
            e.file_name().to_str().is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".pyc"))
        })
        .map(|e| e.path())
        .collect()
}

/// Whether `pyc` is what Python writes for `source` of `len` bytes last changed at `mtime`
/// (seconds): flags 0 (timestamp-based), then the source's time and size, as 32-bit words.
fn as_python_writes(pyc: &[u8], mtime: u64, len: u64) -> bool {
    let word =
        |at: usize| pyc.get(at..at + 4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    word(4) == Some(0) && word(8) == Some(mtime as u32) && word(12) == Some(len as u32)
}

/// Whether `bytes`, read from `pyc`, are what Python writes for the source as it is (`mtime`,
/// `len`) and the very bytes the workshop kept of it.
fn sound(pyc: &Path, bytes: &[u8], mtime: u64, len: u64) -> bool {
    as_python_writes(bytes, mtime, len) && crate::files::holds(&kept(pyc), bytes)
}

/// Where the workshop keeps its copy of the `.pyc` at `pyc`, as it was when a command ended.
fn kept(pyc: &Path) -> PathBuf {
    pyc.with_extension("pyc.kept")
}

/// Before the runner is imported from `dir`: remove every `.pyc` of `module` that Python would
/// not have written for the source there now, and watch the folder from here on.
pub(super) fn vet(dir: &Path, module: &str) {
    let source = dir.join(format!("{module}.py"));
    let (mtime, len) = match std::fs::metadata(&source) {
        Ok(meta) => {
            let mtime =
                meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            (mtime.map_or(0, |d| d.as_secs()), meta.len())
        }
        Err(_) => (0, 0),
    };
    let mut seen = Vec::new();
    for pyc in compiled(dir, module) {
        match std::fs::read(&pyc) {
            // The runner's own, seen before any Python starts: Python imports it as it is.
            Ok(bytes) if sound(&pyc, &bytes, mtime, len) => {
                seen.push((pyc, bytes));
            }
            _ => {
                let _ = std::fs::remove_file(&pyc);
            }
        }
    }
    let seen = Some(seen).filter(|s| !s.is_empty());
    let vetted = seen.is_some();
    *WATCHED.lock().unwrap_or_else(|e| e.into_inner()) =
        Some(Watched { dir: dir.to_path_buf(), module: module.to_string(), seen, vetted });
}

/// A runner said hello, before any learner code ran: the `.pyc` files as they are now are the
/// runner's own, when `vet` found none (the first import writes it). The first hello that finds
/// one counts: a Python that started beside it (the world's) may greet before the first import
/// has written it. Where `vet` found the runner's `.pyc`, it is the one seen: a hello is read
/// once the learner's process may already run the learner's code.
pub(super) fn runner_started() {
    let mut watched = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
    let Some(w) = watched.as_mut() else { return };
    if w.seen.is_none() {
        let seen: Vec<_> = compiled(&w.dir, &w.module)
            .into_iter()
            .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
            .collect();
        w.seen = Some(seen).filter(|s| !s.is_empty());
    }
}

/// The runner's `.pyc` files were removed by the workshop itself (they would not import): the
/// ones the next start writes are the runner's, seen at the next hello.
pub(super) fn compiled_removed() {
    if let Some(w) = WATCHED.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        w.seen = None;
        w.vetted = false;
    }
}

/// The command is ending and no learner process is left: remove each `.pyc` that is not as
/// the first runner found it (changed, or new), so no later command imports it, and keep a copy
/// of each one first seen at a hello, for the next command to vet it by.
pub(super) fn check_at_end() {
    let watched = WATCHED.lock().unwrap_or_else(|e| e.into_inner()).take();
    let Some(Watched { dir, module, seen, vetted }) = watched else { return };
    let seen = seen.unwrap_or_default();
    for pyc in compiled(&dir, &module) {
        let was = seen.iter().find(|(p, _)| *p == pyc).map(|(_, bytes)| bytes);
        match was {
            Some(was) if std::fs::read(&pyc).is_ok_and(|now| now == *was) => {
                if !vetted {
                    keep(&pyc, was);
                }
            }
            _ => {
                let _ = std::fs::remove_file(&pyc);
            }
        }
    }
}

/// Write the kept copy of `pyc` (a temp file renamed into place, so no reader sees half of it).
fn keep(pyc: &Path, bytes: &[u8]) {
    let path = kept(pyc);
    let mut temp = path.clone().into_os_string();
    temp.push(format!(".{}.tmp", std::process::id()));
    if std::fs::write(&temp, bytes).and_then(|()| std::fs::rename(&temp, &path)).is_err() {
        let _ = std::fs::remove_file(&temp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_timestamp_pyc_for_the_source_as_it_is_passes() {
        let header = |flags: u32, mtime: u32, len: u32| {
            [0x6f0d_0d0a_u32, flags, mtime, len]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect::<Vec<u8>>()
        };
        assert!(as_python_writes(&header(0, 1_700_000_000, 20_494), 1_700_000_000, 20_494));
        assert!(!as_python_writes(&header(1, 0, 0), 1_700_000_000, 20_494), "unchecked hash-based");
        assert!(!as_python_writes(&header(3, 0, 0), 1_700_000_000, 20_494), "checked hash-based");
        assert!(
            !as_python_writes(&header(0, 1_699_999_999, 20_494), 1_700_000_000, 20_494),
            "older source"
        );
        assert!(
            !as_python_writes(&header(0, 1_700_000_000, 20_493), 1_700_000_000, 20_494),
            "other size"
        );
        assert!(!as_python_writes(&[0; 8], 0, 0), "too short");
    }
}
