//! The command line, parsed once into plain values. Decisions such as colour are made in
//! `commands::Context`, not here.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::render::styles::ColorChoice;

#[derive(Debug, Parser)]
#[command(
    name = "workshop",
    version,
    about = "Hands-on lessons about building reliable AI agents, offline, in a terminal.",
    after_help = "Start here:\n  ./workshop start structured-errors     copy the starter file into work/\n  ./workshop check structured-errors     grade your errors.py\n  ./workshop list                        lessons and your progress"
)]
pub struct Cli {
    /// The workshop folder (the one holding lessons/). Default: found upward from here.
    #[arg(long, global = true, env = "WORKSHOP_ROOT", value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// When to colour the output.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Use ASCII marks instead of ✓ and ✗.
    #[arg(long, global = true, env = "WORKSHOP_ASCII", value_parser = clap::builder::BoolishValueParser::new())]
    pub ascii: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Copy a lesson's starter files into work/<lesson>/ and say what to open.
    #[command(
        after_help = "Examples:\n  ./workshop start structured-errors\n  ./workshop start structured-errors --force   begin again; your version is kept as a copy"
    )]
    Start(StartArgs),
    /// Grade your file for a lesson, one line per check, the first failure explained.
    #[command(
        after_help = "Examples:\n  ./workshop check structured-errors\n  ./workshop check --file solutions/mine.py --format json\n\nExit status: 0 all checks pass, 1 some fail, 2 could not run (the file does not load, no Python, bad usage)."
    )]
    Check(CheckArgs),
    /// The lessons, with your progress in each.
    #[command(after_help = "Example:\n  ./workshop list")]
    List,
}

#[derive(Debug, Args)]
pub struct StartArgs {
    /// The lesson to start, such as structured-errors.
    pub lesson: String,
    /// Start again from the starter even if you changed the file. Your version is kept beside it.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The lesson to grade. Default: the only lesson, or the one you started.
    pub lesson: Option<String>,
    /// Grade this file instead of work/<lesson>/errors.py.
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// text for people, json for autograders.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Seconds each call of your code may take before it counts as stuck.
    #[arg(long, value_name = "SECS", default_value_t = 1.0)]
    pub timeout: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}
