//! The few parts the integration tests (`tests/suite/`) drive directly rather than through the
//! binary: the player with a test backend, a command's context and styles, and the replay key.
//! Everything else is private to the crate; the binary is the product.

pub use crate::context::Context;
pub use crate::lesson::Runtime;
pub use crate::render::styles::{Glyphs, Styles};
pub use crate::text::canonical::{canonical, key};

/// The full-screen player of `watch`, as `tests/suite/player.rs` drives it.
pub mod player {
    pub use crate::terminal::player::ui::draw;
    pub use crate::terminal::player::{drive, App, Flow, LessonSource, Msg, Options, Source, Theme};
}
