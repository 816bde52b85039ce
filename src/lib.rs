//! `workshop`: hands-on lessons about building reliable AI agents, offline, in a terminal.
// Every write goes through `output`, so a closed or full stdout is an error, never a panic.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub(crate) mod bridge;
pub(crate) mod checks;
pub(crate) mod cli;
pub(crate) mod commands;
pub(crate) mod context;
pub(crate) mod course;
pub(crate) mod error;
pub(crate) mod files;
pub(crate) mod fnv;
pub(crate) mod grade;
pub(crate) mod hint;
pub(crate) mod lesson;
pub(crate) mod next;
pub(crate) mod on_save;
pub(crate) mod output;
pub(crate) mod render;
pub(crate) mod replay;
pub(crate) mod saves;
pub(crate) mod secrets;
pub(crate) mod terminal;
#[doc(hidden)]
pub mod testing;
pub(crate) mod text;
pub(crate) mod world;

use clap::Parser;

use error::Error;

/// Parse the command line, run the command, and return the exit code.
pub fn run() -> i32 {
    terminal::signals::let_writes_past_the_file_size_limit_fail();
    let cleanup = bridge::Cleanup::for_this_process();
    commands::warm_up_early(&std::env::args_os().collect::<Vec<_>>());
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { error::EXIT_COULD_NOT_RUN } else { error::EXIT_SUCCESS };
        }
    };
    terminal::signals::install();
    let result = commands::dispatch(cli);
    drop(cleanup);
    terminal::signals::hold_if_quitting();
    match result {
        Ok(code) => code,
        // The reader closed the pipe: they have what they wanted, and there is no one to tell.
        Err(Error::Output(e)) if error::reader_left(&e) => error::EXIT_SUCCESS,
        Err(e) => {
            // Messages can quote the learner's code (an exception's text): shown, never sent.
            let said = format!("error: {}", text::inert::text(&e.to_string()));
            match e {
                // The learner's file quoted (a line, an exception's text): as it is.
                Error::Load(_) => output::note_as_is(&said),
                _ => errln!("{said}"),
            }
            e.exit_code()
        }
    }
}
