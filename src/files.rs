//! File operations that keep a learner's work safe: reading only regular files (a FIFO would
//! block forever, `/dev/zero` would never end), moving without ever replacing what is at the
//! destination, and a lock on a folder.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// What [`read_regular`] found at a path.
pub enum Found {
    Nothing,
    Bytes(Vec<u8>),
    /// Something that is not a regular file, in words ("a named pipe (FIFO)").
    NotRegular(&'static str),
}

/// A file type in words, for messages.
fn kind(t: std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a named pipe (FIFO)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_symlink() {
        "a symbolic link to nothing"
    } else {
        "not a regular file"
    }
}

/// The bytes of a regular file (or of a symbolic link to one). Anything else is named, not read:
/// the file is opened without blocking and checked on the open descriptor, so what is read is
/// what was checked.
pub fn read_regular(path: &Path) -> io::Result<Found> {
    let file = match std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path) {
        Ok(file) => file,
        Err(e) => {
            // A dangling link or a socket is there, though it cannot be opened.
            return match std::fs::symlink_metadata(path) {
                Ok(meta) => Ok(Found::NotRegular(kind(meta.file_type()))),
                Err(_) if e.kind() == io::ErrorKind::NotFound => Ok(Found::Nothing),
                Err(_) => Err(e),
            };
        }
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(Found::NotRegular(kind(meta.file_type())));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // Back to blocking reads: O_NONBLOCK was only for the open, and means nothing to a regular file.
    (&file).read_to_end(&mut bytes)?;
    Ok(Found::Bytes(bytes))
}

/// Move `from` to `to`, failing with `AlreadyExists` if `to` exists: never replaces anything.
/// One atomic step (renameat2 with RENAME_NOREPLACE) where the file system allows it; else a hard
/// link (which also refuses to replace) and an unlink.
pub fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other);
        let (cfrom, cto) = (c(from)?, c(to)?);
        // SAFETY: two NUL-terminated paths that live across the call.
        let done = unsafe {
            libc::renameat2(libc::AT_FDCWD, cfrom.as_ptr(), libc::AT_FDCWD, cto.as_ptr(), libc::RENAME_NOREPLACE)
        };
        if done == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        if !matches!(err.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)) {
            return Err(err);
        }
    }
    std::fs::hard_link(from, to)?;
    std::fs::remove_file(from)
}

/// An exclusive lock on a folder, held until dropped. Taking turns this way leaves no lock file
/// behind in the learner's folder.
pub struct FolderLock {
    _dir: File,
}

pub fn lock_folder(dir: &Path) -> io::Result<FolderLock> {
    let handle = File::open(dir)?;
    // SAFETY: flock(2) on a descriptor we own; the lock is released when it is closed.
    if unsafe { libc::flock(handle.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(FolderLock { _dir: handle })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rename_noreplace_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, "mine").unwrap();
        std::fs::write(&b, "kept").unwrap();
        let err = rename_noreplace(&a, &b).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "mine");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "kept");
        std::fs::remove_file(&b).unwrap();
        rename_noreplace(&a, &b).unwrap();
        assert!(!a.exists());
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "mine");
    }

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(matches!(read_regular(&link).unwrap(), Found::NotRegular("a character device")));
        assert!(matches!(read_regular(dir.path()).unwrap(), Found::NotRegular("a folder")));
        assert!(matches!(read_regular(&dir.path().join("none")).unwrap(), Found::Nothing));
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("none"), &dangling).unwrap();
        assert!(matches!(read_regular(&dangling).unwrap(), Found::NotRegular("a symbolic link to nothing")));
    }
}
