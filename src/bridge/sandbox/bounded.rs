//! A program run with a deadline, its output kept in temporary files.

use std::io::{Read, Seek};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What a program printed and how it ended, run with a deadline; `Err` when it would not start
/// or did not end in time (then it is killed).
pub(super) fn run_bounded(mut command: Command, limit: Duration) -> Result<(ExitStatus, String, String), String> {
    let out = tempfile::tempfile().map_err(|e| format!("could not make a temporary file ({e})"))?;
    let err = tempfile::tempfile().map_err(|e| format!("could not make a temporary file ({e})"))?;
    command
        .stdin(Stdio::null())
        .stdout(out.try_clone().map_err(|e| e.to_string())?)
        .stderr(err.try_clone().map_err(|e| e.to_string())?);
    let mut child = command.spawn().map_err(|e| e.to_string())?;
    let until = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("it did not answer within {} s", limit.as_secs()));
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
