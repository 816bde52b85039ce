//! A submission read before any runs, at most `SIZE_CAP` of it, so none can change another's source.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use super::unread::Unread;

/// The most of a submission that is read: a larger file is reported as too big, unread.
pub(crate) const SIZE_CAP: u64 = 1 << 20;

/// One file to grade, read before any submission runs, so none can change another's source.
pub(crate) struct Submission {
    /// The path as the operator gave it (a folder joined with the file's place in it).
    pub(crate) shown: String,
    /// The file's own name, kept for the copy that is graded.
    pub(crate) name: OsString,
    pub(crate) source: Result<Vec<u8>, Unread>,
}

/// Read a submission, at most `SIZE_CAP` of it: a larger one is reported as too big without
/// being read. Opened without blocking and checked again once open, so a file swapped for a
/// FIFO or a device after discovery is refused rather than waited on or read from.
pub(crate) fn read(shown: &str, path: Result<PathBuf, Unread>) -> Submission {
    let name = |path: &Path| {
        path.file_name().map(OsStr::to_os_string).unwrap_or_else(|| OsString::from("submission.py"))
    };
    let path = match path {
        Ok(path) => path,
        Err(why) => {
            return Submission {
                shown: shown.to_string(),
                name: OsString::from("submission.py"),
                source: Err(why),
            }
        }
    };
    Submission { shown: shown.to_string(), name: name(&path), source: read_capped(shown, &path) }
}

fn read_capped(shown: &str, path: &Path) -> Result<Vec<u8>, Unread> {
    use crate::files::Submitted as Read;
    let shown = shown.to_string();
    match crate::files::read_submission(path, SIZE_CAP) {
        Ok(Read::Bytes(source)) => Ok(source),
        Ok(Read::TooBig(bytes)) => Err(Unread::TooBig { shown, bytes }),
        Ok(Read::Link) => Err(Unread::Link { shown }),
        Ok(Read::HardLinked(names)) => Err(Unread::HardLinked { shown, names }),
        Ok(Read::NotRegular(what)) => Err(Unread::NotRegular { shown, what }),
        Ok(Read::Nothing) => Err(Unread::Missing { shown }),
        Err(source) => Err(Unread::Io { shown, source }),
    }
}
