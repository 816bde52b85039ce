//! A program run with a deadline, its output kept in temporary files.

use std::io::{Read, Seek};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Why a program run with a deadline gave no answer; said as the reason after "it would not run".
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunError {
    #[error("could not make a temporary file ({0})")]
    TempFile(std::io::Error),
    /// It could not be started (or its output could not be given to it).
    #[error("{0}")]
    Start(std::io::Error),
    /// It ran past the deadline and was killed.
    #[error("it did not answer within {} s", .0.as_secs())]
    TimedOut(Duration),
}

/// What a program printed and how it ended, run with a deadline; `Err` when it would not start
/// or did not end in time (then it is killed).
pub(super) fn run_bounded(
    mut command: Command,
    limit: Duration,
) -> Result<(ExitStatus, String, String), RunError> {
    let out = tempfile::tempfile().map_err(RunError::TempFile)?;
    let err = tempfile::tempfile().map_err(RunError::TempFile)?;
    command
        .stdin(Stdio::null())
        .stdout(out.try_clone().map_err(RunError::Start)?)
        .stderr(err.try_clone().map_err(RunError::Start)?);
    let mut child = command.spawn().map_err(RunError::Start)?;
    let until = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(RunError::TimedOut(limit));
            }
        }
    };
    let text = |mut file: std::fs::File| {
        let mut bytes = Vec::new();
        let _ = file.rewind().and_then(|()| file.take(1 << 20).read_to_end(&mut bytes));
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Ok((status, text(out), text(err)))
}
