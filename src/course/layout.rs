//! What a course folder is made of, read by `course::init` and by build.rs (through `#[path]`),
//! so the course the wheel carries and the one a clone's `init` copies are the same files.

/// The folders a course is made of, as `workshop init` writes them.
pub(crate) const PARTS: [&str; 4] = ["lessons", "starter", "recordings", "worlds"];

/// Python's compiled caches and hidden files (an editor's, a desktop's): no part of a course.
pub(crate) fn left_out(name: &str) -> bool {
    name == "__pycache__" || name.ends_with(".pyc") || name.starts_with('.')
}
