//! Where the submissions' Python comes from: the interpreter found once, and a temp folder the
//! grading user can reach.

use crate::bridge::sandbox::{self, Interpreter};
use crate::bridge::{BridgeConfig, LoadError, NoPython};
use crate::error::{Error, GradeError};

/// The interpreter, found once with the operator's environment (see `Interpreter`).
pub(crate) fn find_python() -> Result<Interpreter, Error> {
    let python = BridgeConfig::default_python();
    Interpreter::find(&python).map_err(|why| {
        let next = match sandbox::as_root() {
            true => format!(
                "grade runs as root, so every submission runs as the unprivileged user nobody (uid {}), who must be able to run it: set WORKSHOP_PYTHON to an interpreter outside root's home (such as /usr/bin/python3), or run grade as a grading user of its own (docs/operators.md)",
                sandbox::GRADER
            ),
            false => "Install Python 3, or set WORKSHOP_PYTHON to a Python 3 interpreter".into(),
        };
        let interpreter = python.to_string_lossy().into_owned();
        Error::Load(LoadError::from(NoPython { interpreter, reason: why.to_string(), remedy: next }))
    })
}

/// As root, each submission's folder is made in the temp folder and handed to the grading
/// user, who must be able to enter every folder above it: said before anything is graded.
pub(crate) fn reachable_temp() -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    if !sandbox::as_root() {
        return Ok(());
    }
    let temp = std::env::temp_dir();
    let closed = temp
        .ancestors()
        .find(|dir| std::fs::metadata(dir).is_ok_and(|m| m.permissions().mode() & 0o001 == 0));
    match closed {
        None => Ok(()),
        Some(dir) => {
            let temp = temp.to_path_buf();
            Err(GradeError::TempClosed { uid: sandbox::GRADER, dir: dir.to_path_buf(), temp }
                .into())
        }
    }
}
