//! A fresh private folder for each submission, removed when it is graded and when the workshop quits.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::{as_root, GRADER};

/// Folders made for submissions that still exist: removed by `remove_folders` if the workshop
/// quits on a signal, when no destructor runs. `None` once they were removed: the workshop is
/// quitting, and no folder is made after (a grading thread may still be on its way to one).
static FOLDERS: Mutex<Option<Vec<PathBuf>>> = Mutex::new(Some(Vec::new()));

/// A fresh folder for one submission, readable by its owner only (0700), with an unpredictable
/// name; removed when dropped, and on SIGINT, SIGTERM and SIGHUP. As root, it belongs to
/// [`GRADER`], the user the submission runs as.
pub(crate) struct Folder {
    dir: tempfile::TempDir,
}

impl Folder {
    pub(crate) fn new() -> std::io::Result<Folder> {
        let folder = Folder::made("workshop-grade-", 0o700)?;
        folder.hand_over(folder.path())?;
        Ok(folder)
    }

    /// A fresh folder holding one file the submission will read (its own copy, see `write`),
    /// written before a quit can remove the folder: a removal that met the file half made would
    /// fail and leave the folder behind.
    pub(crate) fn holding(name: &OsStr, bytes: &[u8]) -> std::io::Result<(Folder, PathBuf)> {
        let mut folders = FOLDERS.lock().unwrap_or_else(|e| e.into_inner());
        let folder = Folder::made_in(&mut folders, "workshop-grade-", 0o700)?;
        let file = folder.hand_over(folder.path()).and_then(|()| folder.write(name, bytes));
        // The lock first: dropping the folder (on an error) takes it again.
        drop(folders);
        Ok((folder, file?))
    }

    /// A folder of the grading user's that every user may read and none other may write (0755),
    /// filled by `fill` before a quit can remove it (so a removal never meets a folder still
    /// being filled, and fails on what it had not seen), and removed as the others are: what
    /// bubblewrap shows every sandbox read-only (`View`). As root, bwrap runs as [`GRADER`], who
    /// must be able to read it, and must not own it.
    pub(super) fn shared<T>(
        fill: impl FnOnce(&Path) -> std::io::Result<T>,
    ) -> std::io::Result<(Folder, T)> {
        let mut folders = FOLDERS.lock().unwrap_or_else(|e| e.into_inner());
        let folder = Folder::made_in(&mut folders, "workshop-view-", 0o755)?;
        // Exactly, whatever the operator's umask took away at mkdir.
        let filled =
            std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o755))
                .and_then(|()| fill(folder.path()));
        // The lock first: dropping the folder (on an error) takes it again.
        drop(folders);
        Ok((folder, filled?))
    }

    fn made(prefix: &str, mode: u32) -> std::io::Result<Folder> {
        // Made under the lock, so a quit either comes first (and none is made) or removes it.
        Folder::made_in(&mut FOLDERS.lock().unwrap_or_else(|e| e.into_inner()), prefix, mode)
    }

    fn made_in(
        folders: &mut Option<Vec<PathBuf>>,
        prefix: &str,
        mode: u32,
    ) -> std::io::Result<Folder> {
        let Some(list) = folders.as_mut() else {
            return Err(std::io::Error::other("the workshop is quitting"));
        };
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .permissions(std::fs::Permissions::from_mode(mode))
            .tempdir()?;
        list.push(dir.path().to_path_buf());
        Ok(Folder { dir })
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Write a file the submission will read: its own copy, as root handed to [`GRADER`].
    pub(crate) fn write(&self, name: &OsStr, bytes: &[u8]) -> std::io::Result<PathBuf> {
        let path = self.path().join(name);
        std::fs::write(&path, bytes)?;
        self.hand_over(&path)?;
        Ok(path)
    }

    fn hand_over(&self, path: &Path) -> std::io::Result<()> {
        match as_root() {
            true => std::os::unix::fs::chown(path, Some(GRADER), Some(GRADER)),
            false => Ok(()),
        }
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let mut folders = FOLDERS.lock().unwrap_or_else(|e| e.into_inner());
        // Removed under the lock, before the list forgets it: a quit meanwhile waits for this, so
        // the workshop can never exit between the list letting go and the folder going.
        let _ = std::fs::remove_dir_all(self.dir.path());
        if let Some(list) = folders.as_mut() {
            list.retain(|f| f != self.dir.path());
        }
    }
}

/// The workshop is quitting on a signal: remove every submission's folder now, and make no more.
/// Called after the workers were killed, so nothing writes into them meanwhile.
pub(crate) fn remove_folders() {
    let folders = FOLDERS.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
    for folder in folders {
        let _ = std::fs::remove_dir_all(folder);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_private_and_goes_when_dropped() {
        let folder = Folder::new().unwrap();
        let path = folder.path().to_path_buf();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o700);
        let copy = folder.write(OsStr::new("errors.py"), b"x = 1").unwrap();
        assert_eq!(std::fs::read(&copy).unwrap(), b"x = 1");
        drop(folder);
        assert!(!path.exists(), "dropping removes it");
        // Removal on a quit (which also closes the list for good) is `grade_trust`'s signal tests.
    }

    /// A folder made with its file under the list's lock: when the file cannot be written, the
    /// error comes back and the folder goes (its drop takes the lock, which must be free by
    /// then: a wait on it would never end, so the call runs on a thread, given ten seconds).
    #[test]
    fn a_folder_whose_file_cannot_be_written_goes_and_says_why() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .spawn(move || {
                let made = Folder::holding(OsStr::new("no-such-folder/errors.py"), b"x = 1");
                let _ = tx.send(
                    made.map(|(folder, _)| folder.path().to_path_buf()).map_err(|e| e.kind()),
                );
            })
            .unwrap();
        let made = rx.recv_timeout(std::time::Duration::from_secs(10)).expect("it returned");
        assert_eq!(made, Err(std::io::ErrorKind::NotFound));
        let (folder, copy) = Folder::holding(OsStr::new("errors.py"), b"x = 1").unwrap();
        assert_eq!(std::fs::read(&copy).unwrap(), b"x = 1");
        assert!(copy.starts_with(folder.path()));
    }
}
