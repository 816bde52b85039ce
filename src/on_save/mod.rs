//! `check --watch`'s machinery: grade once, then again on every save, until `q`.
//!
//! One event loop over one channel, as in the player: the file watcher, the key reader, a
//! ticker and each finished grading send a [`msg::WatchEvent`]. Grading runs on a worker
//! thread, so keys answer while the learner's code runs; a run that is no longer wanted (a newer
//! save, `r`) is told to stop before its next call, and the per-call deadline bounds the call in
//! progress.

pub(crate) mod clock;
pub(crate) mod keys;
pub(crate) mod msg;
pub(crate) mod note;
pub(crate) mod output;
pub(crate) mod screen;
pub(crate) mod session;
