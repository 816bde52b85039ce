//! Hints: the card that shows a check's steps, and how far each check's steps have gone.

pub(crate) mod card;
pub(crate) mod steps;
