//! The live model: asking the Messages API where no recording answers. `record --live` captures
//! a lesson's runs for its authors; `watch --live` asks at a request nobody recorded and keeps
//! the reply among the learner's own recordings. Replay stays strict and offline without it.
//!
//! Without the `live` feature the HTTP side is not built, so the settings and retry rules it
//! reads go unused there; the rest (secret scan, kept turns, layered replay) is always in use.
#![cfg_attr(not(feature = "live"), allow(dead_code))]

pub mod client;
#[cfg(feature = "live")]
mod http;
pub mod model;
#[cfg(not(feature = "live"))]
mod offline;
pub mod own;
pub mod retry;

pub use client::{Failure, Settings};
#[cfg(feature = "live")]
pub use http::Client;
pub use model::{Layered, LiveModel};
#[cfg(not(feature = "live"))]
pub use offline::Client;
