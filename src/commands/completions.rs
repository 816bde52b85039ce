//! `workshop completions`: a shell completion script, generated from the command line definition.

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::{Cli, CompletionsArgs};
use crate::commands::Context;
use crate::error::{Error, EXIT_SUCCESS};

/// The shells we generate for, as they are named on the command line.
const SHELLS: [(&str, Shell); 3] = [("bash", Shell::Bash), ("zsh", Shell::Zsh), ("fish", Shell::Fish)];

pub fn run(_ctx: &Context, args: CompletionsArgs) -> Result<i32, Error> {
    let shell = shell(&args.shell)?;
    let mut command = Cli::command();
    // Into memory first: clap_complete panics when its writer fails, and a closed pipe is not a panic.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "workshop", &mut script);
    crate::output::bytes(&script)?;
    Ok(EXIT_SUCCESS)
}

fn shell(name: &str) -> Result<Shell, Error> {
    let wanted = name.trim().to_ascii_lowercase();
    SHELLS.iter().find(|(n, _)| *n == wanted).map(|(_, s)| *s).ok_or_else(|| {
        let names: Vec<&str> = SHELLS.iter().map(|(n, _)| *n).collect();
        Error::usage(format!("no completions for the shell '{name}': choose one of {}.", names.join(", ")))
    })
}
