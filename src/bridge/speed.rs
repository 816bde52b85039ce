//! The one switch between the fast path and the plain one. What exists only to save time (a
//! Python warmed up before it is needed, threads and Pythons kept to chosen cores, questions asked
//! of the world before they are due) is skipped when `WORKSHOP_PLAIN` is set to anything but `0`
//! or nothing. A run means the same either way, which tests/suite/plain.rs shows by running the
//! same commands both ways; docs/benchmarks.md has what each part saves.

use std::sync::OnceLock;

/// Whether the plain path was asked for (`WORKSHOP_PLAIN`), read once.
pub(crate) fn plain() -> bool {
    static PLAIN: OnceLock<bool> = OnceLock::new();
    *PLAIN.get_or_init(|| {
        std::env::var_os("WORKSHOP_PLAIN").is_some_and(|v| !v.is_empty() && v != "0")
    })
}
