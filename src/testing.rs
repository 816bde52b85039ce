//! The few parts the integration tests (`tests/suite/`) drive directly rather than through the
//! binary: the player with a test backend, a command's context and styles, and the replay key.
//! Everything else is private to the crate; the binary is the product.

pub use crate::context::Context;
pub use crate::lesson::Runtime;
pub use crate::render::styles::{Glyphs, Styles};
pub use crate::text::canonical::{canonical, key};

/// Keep what this process caches (the runner's copy, the world's host, the sample key) in
/// `folder` instead of the user's cache folder: a test in its own process then writes nothing
/// there. The first folder given holds for the life of the process.
pub fn cache_in(folder: &std::path::Path) {
    let _ = crate::files::CACHE_INSTEAD.set(folder.to_path_buf());
}

/// The full-screen player of `watch`, as `tests/suite/player.rs` drives it.
pub mod player {
    pub use crate::terminal::player::ui::draw;
    pub use crate::terminal::player::{
        drive, App, Flow, LessonSource, Msg, Options, Source, Theme,
    };
}
