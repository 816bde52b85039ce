//! `workshop`: hands-on lessons about building reliable AI agents, offline, in a terminal.
// Every write goes through `output`, so a closed or full stdout is an error, never a panic.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agent;
pub mod bridge;
pub mod checks;
pub mod cli;
pub mod commands;
pub mod context;
pub mod error;
pub mod files;
pub mod grading;
pub mod harness;
pub mod inert;
pub mod lesson;
pub mod lumen;
pub mod messages;
pub mod model;
pub mod output;
pub mod player;
pub mod progress;
pub mod pyrepr;
pub mod quiz;
pub mod recordings;
pub mod render;
pub mod replay;
pub mod replaying;
pub mod root;
pub mod sdk;
pub mod watcher;

use clap::Parser;

use error::Error;

/// Parse the command line, run the command, and return the exit code.
pub fn run() -> i32 {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { error::EXIT_COULD_NOT_RUN } else { error::EXIT_SUCCESS };
        }
    };
    match commands::dispatch(cli) {
        Ok(code) => code,
        // The reader closed the pipe: they have what they wanted, and there is no one to tell.
        Err(Error::Output(e)) if output::reader_left(&e) => error::EXIT_SUCCESS,
        Err(e) => {
            // Messages can quote the learner's code (an exception's text): shown, never sent.
            errln!("error: {}", inert::text(&e.to_string()));
            e.exit_code()
        }
    }
}
