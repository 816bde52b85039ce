//! The live model: asking the Messages API where no recording answers. `record --live` captures
//! a lesson's runs for its authors; `watch --live` asks at a request nobody recorded and keeps
//! the reply among the learner's own recordings. Replay stays strict and offline without it.
//!
//! Without the `live` feature the HTTP side is not built, so the settings and retry rules it
//! reads go unused there; the rest (secret scan, kept turns, layered replay) is always in use.
#![cfg_attr(not(feature = "live"), allow(dead_code))]

pub(crate) mod client;
#[cfg(feature = "live")]
mod http;
pub(crate) mod layered;
#[cfg(not(feature = "live"))]
mod offline;
pub(crate) mod own;
pub(crate) mod retry;

pub(crate) use client::{NoReply, Settings};
#[cfg(feature = "live")]
pub(crate) use http::Client;
pub(crate) use layered::{Layered, LiveModel};
#[cfg(not(feature = "live"))]
pub(crate) use offline::Client;
