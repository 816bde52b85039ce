//! Why a submission was not read, so no check ran on it: each reason with what its line says.

use crate::bridge::size_text;

use super::submission::SIZE_CAP;

/// Why a link is graded as an error and never read: it would grade (or quote) the bytes of
/// another name, a classmate's file or one of the grading user's own.
const LINK: &str = "is a link, not a file: submit the file itself";

/// How a file is named in Exercism's results: the interface wants `<solution-dir>/...` paths.
pub(crate) const SOLUTION_DIR: &str = "<solution-dir>";

/// A submission that was found but not read; its message is the file's line.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Unread {
    #[error("{shown} {LINK}.")]
    Link { shown: String },
    #[error("{shown} {LINK} (the same file has {names} names, by hard links).")]
    HardLinked { shown: String, names: u64 },
    #[error("{shown} is {}, more than the {} a submission may be, so it was not read and no check ran.", too_big(*.bytes).0, too_big(*.bytes).1)]
    TooBig { shown: String, bytes: u64 },
    #[error("could not read {shown}: it is {what}, not a regular file")]
    NotRegular { shown: String, what: &'static str },
    #[error("could not read {shown}: {}", std::io::Error::from_raw_os_error(libc::ENOENT))]
    Missing { shown: String },
    #[error("could not read {shown}: {source}")]
    Io { shown: String, source: std::io::Error },
    /// `--format exercism`: the solution folder has no work file at its top.
    #[error("{SOLUTION_DIR} has no {name}: the solution is graded from {name} at the top of the solution folder.")]
    NoWorkFile { name: String },
}

/// A size and the cap, in words: just over the cap, rounded sizes would read "1 MiB, more than
/// the 1 MiB", so both are then in bytes.
fn too_big(bytes: u64) -> (String, String) {
    match size_text(bytes) == size_text(SIZE_CAP) {
        true => (format!("{bytes} bytes"), format!("{SIZE_CAP} bytes")),
        false => (size_text(bytes), size_text(SIZE_CAP)),
    }
}
