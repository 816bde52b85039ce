//! What a call of a learner's function came to, and why a file could not be loaded.

use serde_json::Value;

use super::{size_text, ANSWER_LIMIT};

/// Where in the learner's file something happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Location {
    /// The file as messages name it.
    pub file: String,
    pub line: u32,
    pub function: Option<String>,
    pub code: String,
}

/// How one call of a learner's function ended.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Outcome {
    Returned(Value),
    /// It raised; the message is `Type: text`.
    Raised {
        message: String,
        location: Option<Location>,
    },
    /// It returned something JSON cannot carry (a set, an object, a lone surrogate).
    NotJson {
        message: String,
    },
    /// `sys.exit`, `os._exit`, or the process died under it.
    Exited {
        message: String,
    },
    TimedOut {
        limit: String,
        /// It sat stopped by a signal (SIGSTOP, SIGTSTP) when the deadline came: held from
        /// outside, not looping.
        stopped: bool,
    },
    /// An earlier call killed the process and a fresh one would not load.
    Unavailable {
        message: String,
    },
    /// It returned a value whose JSON is over `ANSWER_LIMIT` bytes.
    TooBig {
        bytes: u64,
    },
    /// The answer channel carried a line that is not the answer to this call (a forged or
    /// out-of-order line): nothing more from that process is trusted.
    Garbled {
        message: String,
    },
}

impl Outcome {
    /// One line for a failed call; `None` when it returned.
    pub(crate) fn problem(&self) -> Option<String> {
        match self {
            Outcome::Returned(_) => None,
            Outcome::Raised { message, location } => Some(match location {
                Some(at) => format!("raised {message} ({}, line {}: {})", at.file, at.line, at.code),
                None => format!("raised {message}"),
            }),
            Outcome::NotJson { message } => Some(format!("returned a value that is not JSON: {message}")),
            Outcome::Exited { message } => Some(message.clone()),
            Outcome::TimedOut { limit, stopped: false } => {
                Some(format!("did not return within {limit}: an infinite loop?"))
            }
            Outcome::TimedOut { stopped: true, .. } => {
                Some("could not return: its process was stopped by a signal (SIGSTOP) from outside".into())
            }
            Outcome::TooBig { bytes } => Some(format!(
                "returned a value of {} as JSON, more than the {} a call may return: return something smaller",
                size_text(*bytes),
                size_text(ANSWER_LIMIT as u64)
            )),
            Outcome::Unavailable { message } | Outcome::Garbled { message } => Some(message.clone()),
        }
    }
}

/// One call: its outcome and what the learner printed meanwhile.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Call {
    pub outcome: Outcome,
    pub output: String,
    /// Bytes of output past the cap, not kept.
    pub dropped: u64,
}

impl Call {
    /// The printed output with a note when some was cut.
    pub(crate) fn shown_output(&self) -> String {
        with_dropped(self.output.clone(), self.dropped)
    }
}

pub(super) fn with_dropped(output: String, dropped: u64) -> String {
    if dropped == 0 {
        output
    } else {
        format!("{}\n… {dropped} more bytes not shown", output.trim_end())
    }
}

/// A line on the answer channel that is not the awaited answer, as the learner reads it.
pub(super) fn garbled(file: &str, when: &str, line: &str) -> String {
    let mut shown: String = line.chars().take(80).collect();
    if shown.len() < line.len() {
        shown.push('…');
    }
    format!(
        "{file}: a line that is not the workshop runner's answer came {when} ({shown}). Something in the file writes to a descriptor it did not open, or a forked process wrote as the runner; nothing from that Python process is trusted, so this is no grade."
    )
}

pub(super) fn stopped_message() -> String {
    "stopped: the workshop is quitting".into()
}
