//! What the loop of `check --watch` reads from its one channel, and how a lesson's watch ends.

use std::time::Duration;

use crate::checks::Report;
use crate::error::Error;
use crate::saves::Change;

use super::keys::WatchKey;

/// How one lesson's watch ended.
pub(crate) enum Ended {
    Quit,
    /// Ctrl-C on a terminal.
    Interrupted,
    /// Go on to the lesson with this id.
    Next(String),
}

/// One thing that happened: a key, a save, a grading that ended, a resize, a tick.
pub(crate) enum WatchEvent {
    Key(WatchKey),
    File(Change),
    /// A grading ended: its report, or `None` when it was stopped before the end.
    Graded {
        run: u64,
        result: Option<Result<Report, Error>>,
        took: Duration,
    },
    Resize,
    Tick,
}
