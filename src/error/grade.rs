//! The submissions given to `grade`, when they cannot be graded.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum GradeError {
    /// Nothing to grade in `paths`; `skipped` files were no regular files; `file` is the
    /// lesson's work file name.
    #[error(
        "there is no file to grade in {}{}: give files, or folders holding {file} or .py files.",
        paths.join(", "),
        match skipped {
            0 => String::new(),
            n => format!(" ({n} skipped: not regular files)"),
        }
    )]
    NothingToGrade { paths: Vec<String>, skipped: usize, file: String },
    #[error("give the files or folders to grade.")]
    NoPaths,
    #[error(
        "'{word}' is both a lesson and a folder here, so which you mean is unclear. To grade the \
         folder, write it as a path (./{word}/); to name the lesson, use --lesson {word}."
    )]
    LessonOrFolder { word: String },
    /// `known` are the lessons' ids.
    #[error(
        "'{word}' is neither a lesson nor a file or folder here. Lessons: {}; then give the files \
         or folders to grade.",
        known.join(", ")
    )]
    Neither { word: String, known: Vec<String> },
    #[error(
        "give the files or folders to grade after the lesson, such as: ./workshop grade {lesson} \
         submissions/"
    )]
    NoPathsAfter { lesson: String },
    /// A path that is a FIFO, a socket or a device (`kind`, in words).
    #[error("{given} is {kind}, not a file or folder: give the submissions' files or folders.")]
    Special { given: String, kind: &'static str },
    #[error("{given} is a link to nothing: give the submissions' files or folders.")]
    DanglingLink { given: String },
    #[error("there is no file or folder at {given}: check the path.")]
    NoSuchPath { given: String },
    /// Run as root, the grader's user (`uid`) cannot enter `dir` on the way to `temp`.
    #[error(
        "grade runs as root, so each submission runs as the user nobody (uid {uid}), who cannot \
         enter {} to reach its copy in the temp folder {}: set TMPDIR to a folder every user may \
         enter, such as /tmp.",
        dir.display(),
        temp.display()
    )]
    TempClosed { uid: u32, dir: PathBuf, temp: PathBuf },
    #[error("the grading was stopped")]
    Stopped,
}
