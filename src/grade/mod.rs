//! Grading a class for `workshop grade`: finding and reading the submissions, isolating and
//! grading each on a pool of threads, and the lines and summary that report them.

pub(crate) mod bar;
pub(crate) mod discover;
pub(crate) mod isolation;
pub(crate) mod line;
pub(crate) mod one;
pub(crate) mod partition;
pub(crate) mod pool;
pub(crate) mod python;
pub(crate) mod submission;
pub(crate) mod summary;
pub(crate) mod unread;
