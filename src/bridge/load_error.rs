//! Why a learner's file could not be loaded, and, apart, why Python itself would not run: the
//! interpreter, the reason and the remedy as fields, so no reader takes them from the message.

use std::ffi::OsStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadKind {
    NoPython,
    Syntax,
    Import,
    Exception,
    Missing,
    Exit,
    Timeout,
    Died,
    Unreadable,
    /// The answer channel carried a line the runner did not write.
    Garbled,
    /// The file's run upset the lesson's world (killed, stopped or flooded it).
    UpsetTheWorld,
    /// The process was stopped by a signal from outside (SIGSTOP) before it said it had loaded.
    HeldStopped,
}

/// The learner's file could not be loaded, so nothing in it can be called.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct LoadError {
    pub kind: LoadKind,
    /// What happened, naming the file and line where there is one.
    pub message: String,
    /// What the file printed while loading.
    pub output: String,
    /// With `LoadKind::NoPython` from the bridge: the same message in its parts.
    pub no_python: Option<Box<NoPython>>,
    /// The signal that killed the process while it started or loaded, when one did.
    pub signal: Option<i32>,
}

impl LoadError {
    /// A load that failed with nothing printed.
    pub(crate) fn new(kind: LoadKind, message: String) -> LoadError {
        LoadError { kind, message, output: String::new(), no_python: None, signal: None }
    }
}

impl From<NoPython> for LoadError {
    fn from(no_python: NoPython) -> LoadError {
        LoadError {
            no_python: Some(Box::new(no_python.clone())),
            ..LoadError::new(LoadKind::NoPython, no_python.to_string())
        }
    }
}

/// The interpreter could not be started, or is not a working Python 3.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("could not run Python 3 as {interpreter}: {reason}. {remedy}.")]
pub struct NoPython {
    /// The interpreter as named, with where the name came from: `python3 (looked up on PATH)`.
    pub interpreter: String,
    /// Why it would not run: `there is no such program`, `it exited with code 1: ...`.
    pub reason: String,
    /// What to do about it, as a sentence without its full stop.
    pub remedy: String,
}

impl NoPython {
    /// `python` would not run, for `reason`: the remedy is to install Python 3 or name one.
    pub(crate) fn new(python: &OsStr, reason: impl Into<String>) -> NoPython {
        let shown = python.to_string_lossy();
        let from_env = std::env::var_os("WORKSHOP_PYTHON").is_some_and(|p| p == python);
        let whence = match (from_env, shown.contains('/')) {
            (true, _) => " (from WORKSHOP_PYTHON)",
            (false, false) => " (looked up on PATH)",
            (false, true) => "",
        };
        NoPython {
            interpreter: format!("{shown}{whence}"),
            reason: reason.into(),
            remedy: "Install Python 3, or set WORKSHOP_PYTHON to a Python 3 interpreter".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_python_says_its_reason_and_remedy_in_one_message_and_keeps_them_apart() {
        let error = LoadError::from(NoPython::new(
            OsStr::new("/opt/py/bin/python3"),
            "there is no such program",
        ));
        assert_eq!(error.kind, LoadKind::NoPython);
        assert_eq!(
            error.message,
            "could not run Python 3 as /opt/py/bin/python3: there is no such program. Install Python 3, or set WORKSHOP_PYTHON to a Python 3 interpreter."
        );
        let parts = error.no_python.as_deref().map(|n| (n.interpreter.as_str(), n.reason.as_str()));
        assert_eq!(parts, Some(("/opt/py/bin/python3", "there is no such program")));
    }
}
