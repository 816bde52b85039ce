//! `workshop init [DIR]`: a course folder to work in (see `course::init`). It runs before any
//! workshop root is found: the folder it writes is the root of the commands that follow.

use std::path::{Component, Path, PathBuf};

use crate::cli::InitArgs;
use crate::course::init::{self, CourseSource};
use crate::error::{CourseError, Error, EXIT_SUCCESS};
use crate::outln;
use crate::text::inert;

pub(super) fn run(given_root: Option<&Path>, args: &InitArgs, cwd: &Path) -> Result<i32, Error> {
    let dest = lexical(&cwd.join(&args.dir));
    let shown = inert::path(&args.dir);
    if let Some(refused) = init::refusal(&dest, &shown)? {
        return Err(refused);
    }
    let source = match init::carried() {
        Some(carried) => carried,
        None => {
            let root = crate::course::root::find(given_root, cwd).map_err(|_| no_course())?;
            CourseSource::Folder(root)
        }
    };
    if let CourseSource::Folder(root) = &source {
        let inside = |part: &&str| dest.starts_with(lexical(&root.join(part)));
        if let Some(part) = init::PARTS.into_iter().find(inside) {
            let (dest, part) = (shown.to_string(), part.to_string());
            return Err(CourseError::InitInside { dest, part }.into());
        }
    }
    let course = init::files(&source)?;
    let (mut lessons, mut first) = (0, None);
    let written = init::write(&dest, &shown, &course, |dest| {
        let (listed, _broken) = crate::lesson::all_in_order(dest);
        lessons = listed.len();
        first = listed.first().map(|l| l.id.clone());
        first.clone().unwrap_or_else(|| "<lesson>".to_string())
    })?;
    outln!("Wrote a course of {lessons} lessons into {shown} ({written} files).")?;
    outln!("Its README.md says what is where.")?;
    outln!("Next:")?;
    outln!("  cd {shown}")?;
    outln!("  {} start {}", command_word(&source), first.as_deref().unwrap_or("<lesson>"))?;
    Ok(EXIT_SUCCESS)
}

/// How the learner runs the workshop from inside the new folder: the name they typed when it
/// came from PATH, else a clone's launcher (which finds the course folder from where it is
/// run), else this program's own path.
fn command_word(source: &CourseSource) -> String {
    if let Some(name) = super::typed_name() {
        return name;
    }
    if let CourseSource::Folder(root) = source {
        let launcher = root.join("workshop");
        if launcher.is_file() {
            return inert::path(&launcher);
        }
    }
    std::env::current_exe().map_or_else(|_| "workshop".to_string(), |exe| inert::path(&exe))
}

/// `path` with its `.` and `..` parts worked out from the text alone (the folder may not be there
/// yet), so a folder named through `..` is still seen inside the course it is in.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn no_course() -> Error {
    CourseError::NoCourse.into()
}
