//! `workshop`: hands-on lessons about building reliable AI agents, offline, in a terminal.
// Every write goes through `output`, so a closed or full stdout is an error, never a panic.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub(crate) mod bridge;
pub(crate) mod canonical;
pub(crate) mod checks;
pub(crate) mod cli;
pub(crate) mod commands;
pub mod context;
pub(crate) mod editor;
pub(crate) mod error;
pub mod events;
pub(crate) mod expect;
pub(crate) mod files;
pub(crate) mod fnv;
pub(crate) mod grade;
pub(crate) mod grading;
pub(crate) mod hint;
pub(crate) mod inert;
pub(crate) mod kinds;
pub(crate) mod lesson;
pub(crate) mod live;
pub(crate) mod messages;
pub(crate) mod model;
pub(crate) mod next;
pub(crate) mod on_save;
pub(crate) mod output;
pub mod player;
pub(crate) mod progress;
pub(crate) mod pyrepr;
pub(crate) mod quiz;
pub mod recordings;
pub mod render;
pub(crate) mod replay;
pub(crate) mod root;
pub(crate) mod runtime;
pub(crate) mod sample_key;
pub(crate) mod secrets;
pub(crate) mod shorten;
pub(crate) mod signals;
pub(crate) mod story;
pub(crate) mod watcher;
pub(crate) mod work_file;
pub(crate) mod workfiles;
pub(crate) mod world;

pub use lesson::Runtime;

use clap::Parser;

use error::Error;

/// Parse the command line, run the command, and return the exit code.
pub fn run() -> i32 {
    signals::let_writes_past_the_file_size_limit_fail();
    let cleanup = bridge::Cleanup::for_this_process();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { error::EXIT_COULD_NOT_RUN } else { error::EXIT_SUCCESS };
        }
    };
    signals::install();
    let result = commands::dispatch(cli);
    drop(cleanup);
    signals::hold_if_quitting();
    match result {
        Ok(code) => code,
        // The reader closed the pipe: they have what they wanted, and there is no one to tell.
        Err(Error::Output(e)) if error::reader_left(&e) => error::EXIT_SUCCESS,
        Err(e) => {
            // Messages can quote the learner's code (an exception's text): shown, never sent.
            errln!("error: {}", inert::text(&e.to_string()));
            e.exit_code()
        }
    }
}
