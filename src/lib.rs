//! `workshop`: hands-on lessons about building reliable AI agents, offline, in a terminal.

pub mod agent;
pub mod bridge;
pub mod checks;
pub mod cli;
pub mod commands;
pub mod error;
pub mod harness;
pub mod lesson;
pub mod live;
pub mod lumen;
pub mod messages;
pub mod model;
pub mod player;
pub mod progress;
pub mod pyrepr;
pub mod quiz;
pub mod recordings;
pub mod render;
pub mod replay;
pub mod root;
pub mod sdk;
pub mod watcher;

use clap::Parser;

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
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}
