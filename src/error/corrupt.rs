//! Lesson data or recordings that are broken: the file (and line) to fix, and what is wrong.

use std::path::Path;

use super::Cause;

/// A file of the course that cannot be used as it is: `doctor` counts these as broken lessons.
#[derive(Debug, thiserror::Error)]
#[error("{path}{}: {flaw}", line.map(|n| format!(":{n}")).unwrap_or_default())]
pub struct Corrupt {
    /// The file as the message shows it (see [`Corrupt::relative_to`]).
    pub path: String,
    /// The line the flaw is on, when one is known.
    pub line: Option<usize>,
    #[source]
    pub flaw: Flaw,
}

impl Corrupt {
    /// A flaw in the file at `path`, shown as it is given.
    pub fn new(path: &Path, flaw: Flaw) -> Corrupt {
        Corrupt { path: path.display().to_string(), line: None, flaw }
    }

    /// A flaw on a line of a file already shown (a recording, named relative to the root).
    pub fn at(shown: &str, line: usize, flaw: Flaw) -> Corrupt {
        Corrupt { path: shown.to_string(), line: Some(line), flaw }
    }

    /// The path relative to the workshop root, when it is inside it.
    pub fn relative_to(mut self, root: &Path) -> Corrupt {
        if let Ok(inside) = Path::new(&self.path).strip_prefix(root) {
            self.path = inside.display().to_string();
        }
        self
    }
}

/// What is wrong with a file of the course.
#[derive(Debug, thiserror::Error)]
pub enum Flaw {
    #[error("cannot be read: {0}")]
    Unreadable(#[source] std::io::Error),
    /// A file a lesson names (a mistake's code) is not in its folder.
    #[error("is missing from the lesson: restore it with git checkout")]
    MissingFromLesson,
    #[error("has no files to copy: restore it with git checkout")]
    NoStarterFiles,
    /// `lesson.toml` does not parse; `at` is the line the parser points at.
    #[error(
        "is not a valid lesson manifest{}: {}. Fix it, or restore it with git checkout.",
        on_line(*at),
        source.message().trim()
    )]
    Manifest { at: Option<usize>, source: toml::de::Error },
    #[error("says its id is '{says}', but it lives in lessons/{folder}")]
    IdMismatch { says: String, folder: String },
    /// What the manifest's validation (or the world's check of it) found, each problem in the
    /// validator's own sentence with its line: a list of findings, one meaning.
    #[error("{}", .0.join("\n  "))]
    Problems(Vec<String>),
    #[error(
        "is not a valid course file: {}. Fix it, or restore it with git checkout.",
        .0.message().trim()
    )]
    CourseFile(#[source] toml::de::Error),
    /// A recording script that does not parse (its line is the `Corrupt`'s).
    #[error(
        "is not a valid script: {}. Fix it, or restore it with git checkout.",
        .0.message().trim().trim_end_matches('.').replace('\n', "; ")
    )]
    Script(#[source] toml::de::Error),
    #[error("is not a valid quiz{}: {}", on_line(*at), source.message())]
    Quiz { at: Option<usize>, source: toml::de::Error },
    /// A quiz that parses but breaks the quiz's rules (its error, in its own words).
    #[error("{0}")]
    QuizRules(#[source] Cause),
    #[error("names an unknown runtime '{name}': harness or sdk")]
    UnknownRuntime { name: String },
    /// A script's run names a code that is no file; `choices` are the code words of the lesson.
    #[error(
        "records the code '{code}', but the workshop has no file at that path (a script's paths \
         are from the workshop's root): a run's code is {choices}, or a Python file's path. \
         Restore the file, or take its runs out of the script."
    )]
    NoCodeFile { code: String, choices: String },
    #[error("has no [[checks]] entry for '{check}'")]
    NoCheckEntry { check: String },
    /// The lesson's world broke, in the world module's own account (it composes it from what
    /// the Python world answered): one meaning, a world's author's error.
    #[error("{0}")]
    World(String),
    /// A line of a recording, or the file, that cannot be replayed; whose file it is decides
    /// what the reader is told to do.
    #[error("{}", whose.why(problem.to_string(), problem.remedy()))]
    Recording { problem: Recording, whose: Whose },
    /// Two recorded turns answer words of the same kind differently (the first on `line`).
    #[error(
        "records another reply for words of the same kind as line {line}, so a replay could not \
         tell which to give. Give the lesson's kinds (own_words) a narrower `when`, or drop one \
         of the two runs from script.toml and record again."
    )]
    AnotherReply { line: usize },
}

/// " (line N)" when the line is known.
fn on_line(at: Option<usize>) -> String {
    at.map(|n| format!(" (line {n})")).unwrap_or_default()
}

const RECORD_AGAIN: &str = "Restore the file with git checkout, or make it again with \
                            ./workshop record; do not edit recordings by hand";
const RESTORE: &str = "Restore the file with git checkout, or record it again.";

/// Why a recording, or one line of it, cannot be replayed.
#[derive(Debug, thiserror::Error)]
pub enum Recording {
    #[error("is not UTF-8 text (byte {column} of the line cannot be read)")]
    NotUtf8 { column: usize },
    #[error("cannot be read as a recording: {0}")]
    Unreadable(#[source] std::io::Error),
    /// `what` names the kind of credential found.
    #[error(
        "holds {what}: recordings must never carry credentials. Delete the line and record it \
         again; if the key is real, revoke it."
    )]
    Credentials { what: String },
    #[error("{}: {}", cut_or_invalid(.0), .0)]
    NotATurn(#[source] serde_json::Error),
    #[error(
        "its key does not match its request: the request was edited by hand. Record it again \
         with ./workshop record instead of editing it."
    )]
    KeyMismatch,
    #[error("the recorded request breaks the tool-use rules: {0}")]
    Request(#[source] Cause),
    #[error("the recorded response is not valid: {0}")]
    Response(#[source] Cause),
    /// The same request recorded twice, its first turn on `line` not a passing failure.
    #[error("records the same request as line {line} again")]
    SameRequest { line: usize },
}

/// A line that ends early is said to be cut off; any other, not a turn.
fn cut_or_invalid(e: &serde_json::Error) -> &'static str {
    if e.is_eof() {
        "is cut off (truncated)"
    } else {
        "is not a valid recorded turn"
    }
}

impl Recording {
    /// What to do about it, for the lesson's own recordings; `None` when the reason says it.
    fn remedy(&self) -> Option<&'static str> {
        match self {
            Recording::NotUtf8 { .. } | Recording::NotATurn(_) => Some(RESTORE),
            Recording::Unreadable(_) => Some(concat!(
                "Restore the file with git checkout, or make it again with ./workshop record; ",
                "do not edit recordings by hand."
            )),
            Recording::Request(_) | Recording::Response(_) => Some(RECORD_AGAIN),
            Recording::Credentials { .. }
            | Recording::KeyMismatch
            | Recording::SameRequest { .. } => None,
        }
    }
}

/// Whose a recording file is: that decides what a problem in it tells the reader to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whose {
    /// The lesson's own recordings, in git: restore the file, or record it again.
    Shipped,
    /// The learner's kept turns from `watch --live`: git cannot restore them and `record` does
    /// not make them, so the way out is to delete the file and ask again.
    Own,
}

impl Whose {
    /// A problem's words: what is wrong, then what to do about it.
    fn why(self, reason: String, remedy: Option<&str>) -> String {
        match (self, remedy) {
            (Whose::Shipped, Some(remedy)) => format!("{reason}. {remedy}"),
            (Whose::Shipped, None) => reason,
            (Whose::Own, _) => format!(
                "{}. This is your own kept recording (from watch --live): delete it, and run \
                 watch --live again to ask anew.",
                reason.trim_end_matches('.')
            ),
        }
    }
}
