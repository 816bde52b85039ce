//! What to run and how: the interpreter, the learner's file, the deadline, the sandbox, and the
//! environment and limits every learner process gets.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use super::{sandbox, shim};

/// The environment variables the learner's Python gets (and everything it starts): what it needs
/// to find programs, decode text and tell the time, its home and temporary folder, and a pyenv
/// shim's choice of interpreter. Everything else (API keys, tokens, `PYTHON*`) stays with the
/// workshop.
pub(super) fn passed_on(name: &str) -> bool {
    matches!(
        name,
        "PATH" | "LANG" | "LANGUAGE" | "TZ" | "HOME" | "TMPDIR" | "PYENV_VERSION" | "PYENV_ROOT"
    ) || name.starts_with("LC_")
}

/// How much of the learner's output one call keeps.
pub(crate) const OUTPUT_CAP: usize = 8 * 1024;

/// The largest answer one call may give, as JSON. A bigger value is reported with its size.
pub(crate) const ANSWER_LIMIT: usize = 8 * 1024 * 1024;

/// Loading gets the call deadline plus this, for the interpreter's own start-up on a busy machine.
pub(super) const STARTUP_ALLOWANCE: Duration = Duration::from_secs(2);

/// What to run and how.
#[derive(Clone, Debug)]
pub(crate) struct BridgeConfig {
    pub python: OsString,
    /// The learner's file, as the process opens it.
    pub file: PathBuf,
    /// The file as messages name it (usually relative to the workshop root).
    pub shown_as: String,
    /// Functions the file must define.
    pub functions: Vec<String>,
    pub timeout: Duration,
    /// For untrusted files: a scrubbed environment, a fresh folder and resource limits.
    pub sandbox: Option<sandbox::Sandbox>,
    /// The file is the lesson's world's host, not a learner's: it may load into the spare forked
    /// for it at the start of the command (see `warm`), never into the learner's.
    pub world: bool,
}

impl BridgeConfig {
    /// The interpreter: `WORKSHOP_PYTHON`, else `python3` from PATH.
    pub(crate) fn default_python() -> OsString {
        std::env::var_os("WORKSHOP_PYTHON")
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| OsString::from("python3"))
    }

    /// The interpreter a learner's file runs with: [`default_python`](Self::default_python),
    /// started directly rather than through a version manager's shim (see `shim`), once per
    /// command.
    pub(crate) fn learner_python() -> OsString {
        static BEHIND: OnceLock<OsString> = OnceLock::new();
        BEHIND.get_or_init(|| shim::behind(&BridgeConfig::default_python())).clone()
    }

    pub(super) fn timeout_text(&self) -> String {
        seconds(self.timeout)
    }
}

/// `1 s`, `0.5 s`: a duration as the learner reads it.
pub(crate) fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}
