//! The integration tests, one binary (as `just` does): one link instead of one per file, and one
//! way to write a test. Each module is one feature; `common` is the shared builder.

/// Two tests at a time per core, unless `RUST_TEST_THREADS` or `--test-threads` (which wins)
/// says otherwise. Most of a test's time is spent waiting: on the commands it runs, each a
/// workshop and a Python taking turns over pipes, or on a deadline, a signal or a browser. With
/// one test per core the cores were idle a quarter of the time (docs/benchmarks.md). Set before
/// `main`, where the harness reads it, while the process has one thread.
#[ctor::ctor(unsafe)]
fn two_tests_per_core() {
    if std::env::var_os("RUST_TEST_THREADS").is_none() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        std::env::set_var("RUST_TEST_THREADS", (2 * cores).to_string());
    }
}

mod bad_input;
mod bridge;
mod browser;
mod by_kind;
mod check;
mod check_watch;
mod claims;
mod common;
mod compare;
mod completions;
mod coordinator;
mod doctor;
mod edit;
mod exercism;
mod exercism_runner;
mod expectations;
mod features;
mod from_a_folder;
mod grade;
mod grade_links;
mod grade_root;
mod grade_trust;
mod hardening;
mod hint;
mod host_events;
mod hung;
mod inert;
mod init;
mod launcher;
mod lesson;
mod lesson10;
mod lesson4;
mod lesson6;
mod lesson7;
mod lesson8;
mod lesson9;
mod lesson_names;
mod list;
mod live;
mod manifest;
mod mcp_lesson;
mod mistakes;
mod narrow;
mod note;
mod open_runner;
mod outage_kinds;
mod output;
mod pages;
mod plain;
mod player;
mod progress;
mod properties;
mod quiz;
mod readme;
mod reaping;
mod received;
mod recordings;
mod reset;
mod root;
mod runner_cache;
mod sandbox;
mod shim;
mod signals;
mod solution;
mod start;
mod story;
mod teaching;
mod terminal_restore;
mod toy_lesson;
mod verdict_lines;
mod watch;
mod welcome;
mod world_reach;
mod worlds;
