//! Finding the files to grade: each path given, and the submissions in each folder, once each.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::cli::GradeFormat;
use crate::error::{Error, GradeError};
use crate::lesson::Lesson;
use crate::text::inert;

use super::unread::{Unread, SOLUTION_DIR};

/// A file found to grade: as shown, and where to read it (or why there is nothing to read).
pub(crate) type Candidate = (String, Result<PathBuf, Unread>);

/// What discovery found: the files to grade, and the entries that look like submissions but
/// are not regular files (FIFOs, devices, sockets, dangling links), skipped.
pub(crate) struct Discovery {
    pub(crate) files: Vec<Candidate>,
    pub(crate) skipped: Vec<(String, &'static str)>,
}

/// Every file to grade, as (the path as shown, the path to read), in one sorted order, each path
/// once however it was spelled (`g01`, `./g01`). Each name is graded as itself: a link in a
/// folder is a line of its own that says so, never the file it leads to, and two names never
/// merge. In a folder: the files named like the lesson's work file, else every `.py` file, found
/// recursively. With `--format exercism` each path is one solution: a folder gives its work
/// file, or a report that it is missing.
pub(crate) fn discover(
    cwd: &Path,
    lesson: &Lesson,
    paths: &[String],
    format: GradeFormat,
) -> Result<Discovery, Error> {
    let mut found: Vec<Candidate> = Vec::new();
    let mut skipped = Vec::new();
    for given in paths {
        let path = cwd.join(given);
        if let Some(file) = given_file(given, &path, format)? {
            found.push(file);
        } else if format == GradeFormat::Exercism {
            found.push(solution_file(&path, lesson));
        } else {
            in_folder(given, &path, lesson, &mut found, &mut skipped)?;
        }
    }
    found.sort_by(order);
    // The same path spelled twice (`g01` and `./g01/`) is one file; two names are two files,
    // whatever they lead to, so no name can take another's line.
    let mut seen = HashSet::new();
    found.retain(|(shown, path)| match path {
        Ok(path) => seen.insert(path.components().collect::<PathBuf>()),
        Err(_) => seen.insert(PathBuf::from(shown)),
    });
    skipped.sort();
    Ok(Discovery { files: found, skipped })
}

/// The order of the results: by the path as shown, then files read before files refused, then
/// by path or by reason.
fn order(a: &Candidate, b: &Candidate) -> Ordering {
    a.0.cmp(&b.0).then_with(|| match (&a.1, &b.1) {
        (Ok(a), Ok(b)) => a.cmp(b),
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Err(a), Err(b)) => a.to_string().cmp(&b.to_string()),
    })
}

/// A path given that is a file (or a link, graded as an error), `None` for a folder; anything
/// else is the operator's error.
fn given_file(given: &str, path: &Path, format: GradeFormat) -> Result<Option<Candidate>, Error> {
    let meta = std::fs::metadata(path);
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link && !meta.as_ref().is_ok_and(|m| m.is_dir()) {
        let shown = inert::name(Path::new(given));
        return Ok(Some((given.to_string(), Err(Unread::Link { shown }))));
    }
    if meta.as_ref().is_ok_and(|m| m.is_file()) {
        let shown = match format {
            GradeFormat::Exercism => {
                solution_path(path.file_name().map(Path::new).unwrap_or(Path::new(given)))
            }
            _ => given.to_string(),
        };
        return Ok(Some((shown, Ok(path.to_path_buf()))));
    }
    match (&meta, std::fs::symlink_metadata(path)) {
        (Ok(m), _) if m.is_dir() => Ok(None),
        (Ok(m), _) => {
            Err(GradeError::Special { given: given.to_string(), kind: special_kind(m) }.into())
        }
        (Err(_), Ok(_)) => Err(GradeError::DanglingLink { given: given.to_string() }.into()),
        (Err(_), Err(_)) => Err(GradeError::NoSuchPath { given: given.to_string() }.into()),
    }
}

/// `--format exercism`: a solution folder gives its work file, or a report that it is missing.
fn solution_file(path: &Path, lesson: &Lesson) -> Candidate {
    let file = path.join(&lesson.file);
    let shown = solution_path(Path::new(&lesson.file));
    let meta = std::fs::symlink_metadata(&file);
    if meta.as_ref().is_ok_and(|m| m.file_type().is_symlink()) {
        (shown.clone(), Err(Unread::Link { shown }))
    } else if meta.is_ok_and(|m| m.is_file()) {
        (shown, Ok(file))
    } else {
        (shown, Err(Unread::NoWorkFile { name: lesson.file.clone() }))
    }
}

/// The submissions in a folder: the files named like the lesson's work file, else every `.py`.
fn in_folder(
    given: &str,
    path: &Path,
    lesson: &Lesson,
    found: &mut Vec<Candidate>,
    skipped: &mut Vec<(String, &'static str)>,
) -> Result<(), Error> {
    let mut inside = Walk::default();
    walk(path, Path::new(""), &mut inside)?;
    let named = |rel: &PathBuf| rel.file_name() == Some(OsStr::new(&lesson.file));
    let python = |rel: &PathBuf| rel.extension() == Some(OsStr::new("py"));
    let any_named = inside.files.iter().chain(&inside.links).any(named);
    let chosen = |rel: &&PathBuf| if any_named { named(rel) } else { python(rel) };
    let shown = |rel: &Path| inert::name(&Path::new(given).join(rel));
    found.extend(inside.files.iter().filter(chosen).map(|rel| (shown(rel), Ok(path.join(rel)))));
    found.extend(
        inside
            .links
            .iter()
            .filter(chosen)
            .map(|rel| (shown(rel), Err(Unread::Link { shown: shown(rel) }))),
    );
    skipped.extend(
        inside
            .special
            .into_iter()
            .filter(|(rel, _)| named(rel) || python(rel))
            .map(|(rel, what)| (shown(&rel), what)),
    );
    Ok(())
}

/// `<solution-dir>/errors.py`.
fn solution_path(rel: &Path) -> String {
    Path::new(SOLUTION_DIR).join(rel).to_string_lossy().into_owned()
}

/// What a file that is neither a regular file nor a folder is, in words.
fn special_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

/// The entries under a folder: regular files, symbolic links (never followed), and the rest
/// that was skipped.
#[derive(Default)]
struct Walk {
    files: Vec<PathBuf>,
    links: Vec<PathBuf>,
    special: Vec<(PathBuf, &'static str)>,
}

/// The files under `dir` (relative to the folder given), skipping hidden folders and bytecode.
/// No symbolic link is followed: a link to a folder is no submission, and a loop of them cannot
/// trap the walk; a link to a file is listed as a link.
fn walk(dir: &Path, rel: &Path, out: &mut Walk) -> Result<(), Error> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        Error::io(format!("cannot read the folder {}; check its permissions", dir.display()), e)
    })?;
    for entry in entries {
        let entry =
            entry.map_err(|e| Error::io(format!("cannot read the folder {}", dir.display()), e))?;
        let name = entry.file_name();
        let file_type = entry
            .file_type()
            .map_err(|e| Error::io(format!("cannot read {}", entry.path().display()), e))?;
        if file_type.is_dir() {
            let hidden = name.to_str().is_some_and(|n| n.starts_with('.') || n == "__pycache__");
            if !hidden {
                walk(&entry.path(), &rel.join(&name), out)?;
            }
            continue;
        }
        match std::fs::metadata(entry.path()) {
            // A link to a folder is no submission (see above).
            Ok(meta) if file_type.is_symlink() && meta.is_dir() => {}
            _ if file_type.is_symlink() => out.links.push(rel.join(&name)),
            Ok(meta) if meta.is_file() => out.files.push(rel.join(&name)),
            Ok(meta) => out.special.push((rel.join(&name), special_kind(&meta))),
            Err(_) => out.special.push((rel.join(&name), "gone while it was listed")),
        }
    }
    Ok(())
}
