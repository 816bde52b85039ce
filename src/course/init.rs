//! A new course folder (`workshop init`): the course's folders, an empty work/ and a README for
//! the learner, written from the course the binary carries (the wheel's build, see build.rs) or
//! from a workshop folder (a clone). It writes only into a new or empty folder, so it never
//! replaces a file: a learner's edits in a course they already have stay as they are.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{CourseError, Error, Refusal};
use crate::text::inert;

use super::layout::left_out;
pub(crate) use super::layout::PARTS;

/// The course compiled into the binary: each file's path under the course and its bytes.
#[cfg(feature = "course")]
const CARRIED: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/course.rs"));
#[cfg(not(feature = "course"))]
const CARRIED: &[(&str, &[u8])] = &[];

/// The learner's README, with `{first}` (the first lesson) and `{version}` filled in.
const README: &str = include_str!("course_readme.md");

/// Where a new course's files come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CourseSource {
    /// The course compiled into this binary.
    Carried,
    /// The course folders of a workshop on disk (a clone).
    Folder(PathBuf),
}

/// The course this binary carries, when it was built with one.
pub(crate) fn carried() -> Option<CourseSource> {
    (!CARRIED.is_empty()).then_some(CourseSource::Carried)
}

/// A file of the course: its path under the course folder (with `/`) and its bytes.
type File = (String, Vec<u8>);

/// Every file of the course at `source`.
pub(crate) fn files(source: &CourseSource) -> Result<Vec<File>, Error> {
    match source {
        CourseSource::Carried => {
            let owned = |(rel, bytes): &(&str, &[u8])| (rel.to_string(), bytes.to_vec());
            Ok(CARRIED.iter().map(owned).collect())
        }
        CourseSource::Folder(root) => {
            let mut files = Vec::new();
            for part in PARTS {
                let dir = root.join(part);
                if !dir.is_dir() {
                    let (root, part) = (inert::path(root), part.to_string());
                    return Err(CourseError::Incomplete { root, part }.into());
                }
                collect(root, &dir, &mut files)?;
            }
            files.sort();
            Ok(files)
        }
    }
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<File>) -> Result<(), Error> {
    let unread = |e| Error::io(format!("could not read {}", inert::path(dir)), e);
    for entry in std::fs::read_dir(dir).map_err(unread)? {
        let path = entry.map_err(unread)?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            return Err(CourseError::NotUtf8Name { path: inert::path(&path) }.into());
        };
        if left_out(name) {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, files)?;
        } else if path.is_file() {
            let bytes = crate::files::read_data(&path, crate::files::DATA_CAP)
                .map_err(|e| Error::io(format!("could not read {}", inert::path(&path)), e))?;
            let rel: Vec<String> = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            files.push((rel.join("/"), bytes));
        }
    }
    Ok(())
}

/// Why a folder cannot take a new course, in a sentence that says what to do instead; `None`
/// when it can (it is not there, or it is an empty folder). `shown` is the folder as the
/// learner named it.
pub(crate) fn refusal(dest: &Path, shown: &str) -> Result<Option<Error>, Error> {
    let meta = match std::fs::symlink_metadata(dest) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(format!("could not look at {shown}"), e)),
    };
    if !meta.is_dir() && !std::fs::metadata(dest).is_ok_and(|m| m.is_dir()) {
        return Ok(Some(CourseError::InitNotAFolder { dest: shown.to_string() }.into()));
    }
    if dest.join("lessons").is_dir() {
        return Ok(Some(Refusal::CourseThere { dest: shown.to_string() }.into()));
    }
    let unread = |e| Error::io(format!("could not read {shown}"), e);
    let mut entries = std::fs::read_dir(dest).map_err(unread)?;
    if entries.next().is_some() {
        return Ok(Some(Refusal::NotEmpty { dest: shown.to_string() }.into()));
    }
    Ok(None)
}

/// Write the course into `dest` (checked with `refusal` first): every file made new, never one
/// replaced; `first` names the first lesson for the README. On a failure what was written is
/// taken away again, so no half course is left. Returns the number of files written.
pub(crate) fn write(
    dest: &Path,
    shown: &str,
    course: &[File],
    first: impl FnOnce(&Path) -> String,
) -> Result<usize, Error> {
    let existed = dest.is_dir();
    std::fs::create_dir_all(dest).map_err(|e| Error::io(format!("could not make {shown}"), e))?;
    let written = course.iter().try_for_each(|(rel, bytes)| put(dest, rel, bytes)).and_then(|()| {
        // The README names the first lesson, read from the lessons just written.
        let version = env!("CARGO_PKG_VERSION");
        let readme = README.replace("{first}", &first(dest)).replace("{version}", version);
        put(dest, "work/.gitkeep", b"")?;
        put(dest, "README.md", readme.as_bytes())
    });
    if let Err(e) = written {
        if existed {
            for top in PARTS.iter().chain(&["work", "README.md"]) {
                let path = dest.join(top);
                let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
            }
        } else {
            let _ = std::fs::remove_dir_all(dest);
        }
        let what = format!("could not write the course into {shown} (none of it is left there)");
        return Err(Error::io(what, e));
    }
    Ok(course.len() + 2)
}

/// One new file at `dest/rel`: refused if anything is there already.
fn put(dest: &Path, rel: &str, bytes: &[u8]) -> std::io::Result<()> {
    let path = dest.join(rel);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&path)?;
    file.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_and_hidden_files_are_no_part_of_a_course() {
        for name in ["__pycache__", "host.cpython-311.pyc", ".DS_Store", ".lesson.md.swp"] {
            assert!(left_out(name), "{name}");
        }
        for name in ["lesson.toml", "mine.py", "turns.jsonl", "README.md"] {
            assert!(!left_out(name), "{name}");
        }
    }
}
