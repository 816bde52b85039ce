//! Everything that turns results into text. Knows nothing about Python.

pub mod cards;
pub mod check;
pub mod exercism;
pub mod markdown;
pub mod quiz;
pub mod solution;
pub mod styles;
