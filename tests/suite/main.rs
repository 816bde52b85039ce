//! The integration tests, one binary (as `just` does): one link instead of one per file, and one
//! way to write a test. Each module is one feature; `common` is the shared builder.

mod bad_input;
mod bridge;
mod check;
mod check_watch;
mod common;
mod completions;
mod coordinator;
mod doctor;
mod edit;
mod features;
mod from_a_folder;
mod grade;
mod hardening;
mod hint;
mod inert;
mod lesson;
mod lesson6;
mod list;
mod live;
mod narrow;
mod output;
mod player;
mod progress;
mod quiz;
mod recordings;
mod reset;
mod root;
mod signals;
mod solution;
mod start;
mod story;
mod teaching;
mod terminal_restore;
mod toy_lesson;
mod watch;
