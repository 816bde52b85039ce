//! The terminal as a place to act: the full-screen player of `watch`, quitting on a signal with
//! the terminal put back, and opening the learner's editor.

pub(crate) mod editor;
pub(crate) mod player;
pub(crate) mod signals;
