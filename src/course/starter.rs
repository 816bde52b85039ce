//! The learner's work folder: putting the starter in place without ever losing an edit, and
//! bringing the last backup back (`reset --undo`). Shared by `start` and `reset`. An edited file
//! is moved to a timestamped backup beside it (never over an existing file), the starter is
//! placed only where nothing is (a save meanwhile wins), and two runs at once take turns on a
//! lock of the folder.

use std::path::{Path, PathBuf};

use crate::course::root::Where;
use crate::error::{Corrupt, CourseError, Error, Flaw, Refusal};
use crate::files::{self, RegularRead};
use crate::lesson::Lesson;

/// Put the lesson's starter files in `work/<lesson>/`. Edited files are refused unless `force`,
/// and then kept as backups, whose paths are returned. `command` names the command in messages.
pub(crate) fn put_starter(
    at: &Where,
    lesson: &Lesson,
    force: bool,
    command: &str,
) -> Result<Vec<PathBuf>, Error> {
    let starter = lesson.starter_dir(&at.root);
    let files = starter_files(&starter)?;
    if files.is_empty() {
        return Err(Corrupt::new(&starter, Flaw::NoStarterFiles).into());
    }
    let work = lesson.work_dir(&at.root);
    std::fs::create_dir_all(&work)
        .map_err(|e| Error::io(format!("could not make {}", at.shown(&work)), e))?;
    // Two `start`s at once take turns, so the second compares with what the first left.
    let _lock = files::lock_folder(&work)
        .map_err(|e| Error::io(format!("could not lock {}", at.shown(&work)), e))?;
    let (edited, missing) = compared(at, lesson, &files, command)?;
    if !edited.is_empty() && !force {
        let names: Vec<String> = edited.iter().map(|rel| at.shown(&work.join(rel))).collect();
        let (command, lesson) = (command.to_string(), lesson.id.clone());
        return Err(Refusal::Edited { files: names, command, lesson }.into());
    }
    let mut kept = Vec::new();
    for rel in &edited {
        let mine = work.join(rel);
        // Moved, not copied: whatever is there now (a save since the comparison included) is kept.
        let backup = keep_copy(&mine)
            .map_err(|e| Error::io(format!("could not keep a copy of {}", at.shown(&mine)), e))?;
        kept.push(backup);
    }
    for rel in edited.iter().chain(&missing) {
        let mine = work.join(rel);
        match copy_in(&starter.join(rel), &mine) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let (file, command) = (at.shown(&mine), command.to_string());
                return Err(
                    Refusal::SavedMeanwhile { file, command, lesson: lesson.id.clone() }.into()
                );
            }
            Err(e) => return Err(Error::io(format!("could not write {}", at.shown(&mine)), e)),
        }
    }
    Ok(kept)
}

/// Whether the learner's work file differs from the starter (false when there is none). What is
/// not a regular file (a FIFO) counts as edited, so `put_starter` looks at it and says what it is.
pub(crate) fn edited(at: &Where, lesson: &Lesson) -> bool {
    let Ok(theirs) = files::read_data(&lesson.starter_file(&at.root), files::DATA_CAP) else {
        return false;
    };
    match files::read_regular(&lesson.work_file(&at.root), theirs.len() as u64) {
        Ok(RegularRead::Bytes(mine)) => mine != theirs,
        Ok(RegularRead::NotRegular(_) | RegularRead::TooBig(_)) => true,
        Ok(RegularRead::Nothing) | Err(_) => false,
    }
}

/// What `reset --undo` did: the backup it brought back, and where it kept the file it replaced.
pub(crate) struct Undone {
    pub restored: PathBuf,
    pub kept: Option<PathBuf>,
}

/// Bring the work file's last backup (from `reset` or `start --force`) back in its place. A work
/// file edited since is refused unless `force`, and then kept as a backup itself.
pub(crate) fn bring_back(at: &Where, lesson: &Lesson, force: bool) -> Result<Undone, Error> {
    let mine = lesson.work_file(&at.root);
    let work = lesson.work_dir(&at.root);
    let locked = files::lock_folder(&work);
    let _lock = locked.map_err(|e| Error::io(format!("could not lock {}", at.shown(&work)), e))?;
    let Some(last) = last_backup(&mine) else {
        return Err(CourseError::NoBackup { file: at.shown(&mine) }.into());
    };
    if edited(at, lesson) && !force {
        let (file, backup) = (at.shown(&mine), at.shown(&last));
        return Err(Refusal::ChangedSinceReset { file, backup, lesson: lesson.id.clone() }.into());
    }
    // Moved aside first and then looked at, so a save made meanwhile is kept, never lost.
    let kept = match std::fs::symlink_metadata(&mine) {
        Ok(_) => {
            let why = |e| Error::io(format!("could not keep a copy of {}", at.shown(&mine)), e);
            let moved = keep_copy(&mine).map_err(why)?;
            let starter = files::read_data(&lesson.starter_file(&at.root), files::DATA_CAP).ok();
            let plain = std::fs::symlink_metadata(&moved).is_ok_and(|m| m.is_file());
            match starter {
                // The starter is in starter/ too: this copy of it need not be kept.
                Some(bytes) if plain && files::holds(&moved, &bytes) => {
                    let _ = std::fs::remove_file(&moved);
                    None
                }
                _ => Some(moved),
            }
        }
        Err(_) => None,
    };
    match files::rename_noreplace(&last, &mine) {
        Ok(()) => Ok(Undone { restored: last, kept }),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(Refusal::SavedDuringUndo { file: at.shown(&mine), lesson: lesson.id.clone() }
                .into())
        }
        Err(e) => Err(Error::io(format!("could not bring back {}", at.shown(&last)), e)),
    }
}

/// The newest backup of `path` (`errors.backup-<UTC time>[-N].py` beside it), by its time, then N.
fn last_backup(path: &Path) -> Option<PathBuf> {
    let stem = path.file_stem()?.to_string_lossy().into_owned();
    let ext = path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    let prefix = format!("{stem}.backup-");
    let entries = std::fs::read_dir(path.parent()?).ok()?;
    let dated = entries.flatten().filter_map(|entry| {
        let name = entry.file_name().into_string().ok()?;
        let stamp = name.strip_prefix(&prefix)?.strip_suffix(&ext)?.to_string();
        // `…Z` is the first backup of that second, `…Z-2` the next: `-N` sorts by its number.
        let (time, n) = match stamp.rsplit_once("Z-") {
            Some((time, n)) => (time.to_string(), n.parse::<u32>().ok()?),
            None => (stamp.strip_suffix('Z')?.to_string(), 1),
        };
        entry.file_type().ok()?.is_file().then(|| ((time, n), entry.path()))
    });
    dated.max_by(|a, b| a.0.cmp(&b.0)).map(|(_, path)| path)
}

/// The starter's files, relative to its folder, sorted.
fn starter_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut found = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        let entries = std::fs::read_dir(dir.join(&rel))
            .map_err(|e| Corrupt::new(&dir.join(&rel), Flaw::Unreadable(e)))?;
        for entry in entries.flatten() {
            let path = rel.join(entry.file_name());
            match entry.file_type() {
                Ok(t) if t.is_dir() => pending.push(path),
                Ok(t) if t.is_file() => found.push(path),
                _ => {}
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Move the learner's file to `errors.backup-2026-11-30T07-37-45Z.py` (or `…Z-2.py`, and so on),
/// never over an existing file: the move itself refuses, so two runs in one second cannot pick
/// the same name.
fn keep_copy(path: &Path) -> std::io::Result<PathBuf> {
    keep_copy_as(path, backup_names(path))
}

fn keep_copy_as(path: &Path, names: impl Iterator<Item = PathBuf>) -> std::io::Result<PathBuf> {
    for candidate in names {
        match files::rename_noreplace(path, &candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free name for the copy"))
}

/// `errors.py` → `errors.backup-<UTC time>.py`, then `-2`, `-3`, … (at most 1000 names).
fn backup_names(path: &Path) -> impl Iterator<Item = PathBuf> + '_ {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        .to_string()
        .replace(':', "-");
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let ext = path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    (1..=1000).map(move |n| {
        let suffix = if n == 1 { String::new() } else { format!("-{n}") };
        path.with_file_name(format!("{stem}.backup-{stamp}{suffix}{ext}"))
    })
}

/// Put a copy of `from` at `to`, which must not exist: a file saved there meanwhile is never
/// replaced (`AlreadyExists`).
fn copy_in(from: &Path, to: &Path) -> std::io::Result<()> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let temp = to.with_file_name(format!(
        ".{}.tmp-{}",
        to.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(),
        std::process::id()
    ));
    // A copy cut short (the disk full, a file-size limit) leaves no part of itself behind.
    std::fs::copy(from, &temp).and_then(|_| files::rename_noreplace(&temp, to)).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

/// The starter's files that the work folder holds edited, and those it lacks; `Err` for one
/// that is not a regular file, which cannot be compared.
fn compared<'f>(
    at: &Where,
    lesson: &Lesson,
    files: &'f [PathBuf],
    command: &str,
) -> Result<(Vec<&'f PathBuf>, Vec<&'f PathBuf>), Error> {
    let (starter, work) = (lesson.starter_dir(&at.root), lesson.work_dir(&at.root));
    let mut edited = Vec::new();
    let mut missing = Vec::new();
    for rel in files {
        let mine = work.join(rel);
        let theirs = std::fs::read(starter.join(rel))
            .map_err(|e| Error::io(at.shown(&starter.join(rel)), e))?;
        // A file longer than the starter is not the starter: no need to read all of it.
        let cap = theirs.len() as u64;
        let found = files::read_regular(&mine, cap)
            .map_err(|e| Error::io(format!("could not read {}", at.shown(&mine)), e))?;
        match found {
            RegularRead::Nothing => missing.push(rel),
            RegularRead::Bytes(bytes) if bytes == theirs => {}
            RegularRead::Bytes(_) | RegularRead::TooBig(_) => edited.push(rel),
            RegularRead::NotRegular(what) => {
                let (file, command) = (at.shown(&mine), command.to_string());
                let lesson = lesson.id.clone();
                return Err(CourseError::CannotCompare { file, what, command, lesson }.into());
            }
        }
    }
    Ok((edited, missing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_never_replaces_a_file_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let mine = dir.path().join("errors.py");
        let taken = dir.path().join("errors.backup-x.py");
        std::fs::write(&mine, "edit").unwrap();
        std::fs::write(&taken, "earlier copy").unwrap();
        // The first name offered is taken (as by another run in the same second): the next is used.
        let names = [taken.clone(), dir.path().join("errors.backup-x-2.py")];
        let kept = keep_copy_as(&mine, names.into_iter()).unwrap();
        assert_eq!(kept, dir.path().join("errors.backup-x-2.py"));
        assert_eq!(std::fs::read_to_string(&taken).unwrap(), "earlier copy");
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "edit");
        assert!(!mine.exists());
    }

    #[test]
    fn the_last_backup_is_the_newest_by_time_then_by_its_number() {
        let dir = tempfile::tempdir().unwrap();
        let second = ["2026-12-04T19-35-34Z", "2026-12-04T19-35-34Z-2", "2026-12-04T19-35-34Z-10"];
        for stamp in second.iter().chain(&["2026-12-03T23-59-59Z-99"]) {
            std::fs::write(dir.path().join(format!("errors.backup-{stamp}.py")), "x").unwrap();
        }
        let last = last_backup(&dir.path().join("errors.py")).unwrap();
        assert_eq!(last, dir.path().join("errors.backup-2026-12-04T19-35-34Z-10.py"));
        assert!(last_backup(&dir.path().join("other.py")).is_none());
    }

    #[test]
    fn placing_never_replaces_a_file_saved_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("starter.py"), dir.path().join("errors.py"));
        std::fs::write(&from, "starter").unwrap();
        std::fs::write(&to, "saved meanwhile").unwrap();
        assert_eq!(copy_in(&from, &to).unwrap_err().kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&to).unwrap(), "saved meanwhile");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no temp file left");
    }
}
