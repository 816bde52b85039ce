//! Everything that turns results into text. Knows nothing about Python.

pub mod check;
pub mod styles;
