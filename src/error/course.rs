//! The workshop, the course's folders and the learner's work file, when they are not as a
//! command needs them. Paths are carried as the message shows them.

#[derive(Debug, thiserror::Error)]
pub enum CourseError {
    /// `--root` (or `WORKSHOP_ROOT`) names a folder with no lessons.
    #[error(
        "{dir} is not a workshop: it has no lessons/ folder. Point --root (or WORKSHOP_ROOT) at \
         the folder you cloned."
    )]
    NotAWorkshop { dir: String },
    #[error(
        "no workshop here: neither {cwd} nor a folder above it has lessons/. Run this inside the \
         cloned workshop, or pass --root DIR."
    )]
    NoWorkshopHere { cwd: String },
    #[error(
        "there are no lessons under {dir}, so doctor has nothing to examine. Run it in a \
         workshop folder (or give --root), or add a lesson first."
    )]
    NoLessons { dir: String },
    /// `init` asked to write inside one of the course's own folders (`part`).
    #[error(
        "{dest} is inside the course's own {part}/ folder, where it would be taken for course \
         data. Name a folder outside it, such as ./workshop init workshop-course."
    )]
    InitInside { dest: String, part: String },
    #[error(
        "this workshop program carries no course of its own (it was built from a clone), and no \
         folder here or above holds one (a folder with lessons/ in it). Run ./workshop init DIR \
         inside the cloned workshop, or install the wheel, which carries the course."
    )]
    NoCourse,
    /// The course to copy lacks one of its folders (`part`).
    #[error(
        "{root} has no {part}/ folder, so it holds no whole course to copy. Run init from a \
         complete clone of the workshop."
    )]
    Incomplete { root: String, part: String },
    #[error(
        "{path} has a name that is not UTF-8, which no lesson file has: rename or remove it, then \
         run init again."
    )]
    NotUtf8Name { path: String },
    #[error(
        "{dest} is there and is not a folder: name a new folder for the course, such as \
         ./workshop init workshop-course."
    )]
    InitNotAFolder { dest: String },
    /// The work file is something else than a regular file (`what`, in words: "a folder").
    /// `pick` is the solution's label when `--code` offers another way on.
    #[error(
        "{path} is {what}, not a file of code: put your code in a regular file there{}.",
        match pick {
            Some(label) => format!(", or pick --code starter or {label}"),
            None => format!(" (./workshop start {lesson} makes one where nothing is)"),
        }
    )]
    WorkNotRegular { path: String, what: &'static str, lesson: String, pick: Option<String> },
    /// No work file yet; `pick` as in [`CourseError::WorkNotRegular`].
    #[error(
        "{path} does not exist yet: run ./workshop start {lesson} first{}.",
        pick.as_ref().map(|l| format!(", or pick --code starter or {l}")).unwrap_or_default()
    )]
    WorkAbsent { path: String, lesson: String, pick: Option<String> },
    /// A file named by a flag (`--file`) is not there; `what` is what is there instead, if any.
    #[error(
        "there is {} at {path}: check the path given to {flag}.",
        match what {
            Some(what) => format!("{what}, not a file,"),
            None => "no file".into(),
        }
    )]
    NotAFile { path: String, what: Option<&'static str>, flag: String },
    /// The work file does not load; `first_line` is the first line of why.
    #[error(
        "{file} does not load, so no check could run: {first_line}\nRun ./workshop check {lesson} \
         to see where, fix that first, then ask again."
    )]
    DoesNotLoad { file: String, first_line: String, lesson: String },
    #[error(
        "there is no backup of {file} to bring back: reset keeps one when it replaces your edits."
    )]
    NoBackup { file: String },
    /// A work file that is no regular file (`what`), so `command` cannot compare it.
    #[error(
        "{file} is {what}, not a regular file, so {command} cannot tell whether it holds your \
         edits. Move it away (or delete it if it is not yours), then run ./workshop {command} \
         {lesson} again."
    )]
    CannotCompare { file: String, what: &'static str, command: String, lesson: String },
}
