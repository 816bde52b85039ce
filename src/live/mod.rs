//! The live model: asking the Messages API where no recording answers. `record --live` captures
//! a lesson's runs for its authors; `watch --live` asks at a request nobody recorded and keeps
//! the reply among the learner's own recordings. Replay stays strict and offline without it.

pub mod client;
#[cfg(feature = "live")]
mod http;
pub mod model;
#[cfg(not(feature = "live"))]
mod offline;
pub mod own;
pub mod retry;
pub mod secrets;

pub use client::{Failure, Settings};
#[cfg(feature = "live")]
pub use http::Client;
pub use model::{Layered, LiveModel};
#[cfg(not(feature = "live"))]
pub use offline::Client;
