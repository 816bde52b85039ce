//! The commands. Each is thin: resolve its input, call the lesson machinery, render, pick an exit code.

pub mod check;
mod check_watch;
mod completions;
mod doctor;
mod hint;
mod lesson_text;
mod list;
pub mod own_replay;
mod quiz;
mod record;
mod record_live;
pub mod replaying;
mod solution;
mod start;
pub mod watch;

use std::path::{Path, PathBuf};

use crate::cli::{Cli, Command};
use crate::error::Error;
use crate::lesson::{self, Lesson};
use crate::progress::Progress;
use crate::render::styles::{self, Glyphs, Styles};

/// What every command needs, decided once.
pub struct Context {
    pub root: PathBuf,
    pub cwd: PathBuf,
    pub styles: Styles,
    pub glyphs: Glyphs,
    pub width: usize,
}

impl Context {
    /// A path for messages: relative to the root when inside it.
    pub fn shown(&self, path: &Path) -> String {
        crate::root::shown(&self.root, path)
    }

    /// The lesson named, or the one to assume when none is: the only lesson, or the only one started.
    pub fn lesson(&self, id: Option<&str>) -> Result<Lesson, Error> {
        if let Some(id) = id {
            return Lesson::load(&self.root, id);
        }
        let known = lesson::known_ids(&self.root);
        if known.len() == 1 {
            return Lesson::load(&self.root, &known[0]);
        }
        let progress = Progress::read(&self.root);
        let started: Vec<&String> =
            known.iter().filter(|id| progress.lessons.get(*id).is_some_and(|p| p.started)).collect();
        if let [only] = started.as_slice() {
            return Lesson::load(&self.root, only);
        }
        Err(Error::usage(format!("name a lesson: one of {}.", known.join(", "))))
    }
}

pub fn dispatch(cli: Cli) -> Result<i32, Error> {
    let cwd = std::env::current_dir().map_err(|e| Error::io("cannot read the current folder", e))?;
    let root = crate::root::find(cli.root.as_deref(), &cwd)?;
    let ctx = Context {
        root,
        cwd,
        styles: Styles::for_stdout(cli.color),
        glyphs: Glyphs::detect(cli.ascii),
        width: styles::width(),
    };
    let result = match cli.command {
        Command::Start(args) => start::run(&ctx, args),
        Command::Check(args) => check::run(&ctx, args),
        Command::List => list::run(&ctx),
        Command::Watch(args) => watch::run(&ctx, args),
        Command::Doctor(args) => doctor::run(&ctx, args),
        Command::Record(args) => record::run(&ctx, args),
        Command::Lesson(args) => lesson_text::run(&ctx, args),
        Command::Quiz(args) => quiz::run(&ctx, args),
        Command::Hint(args) => hint::run(&ctx, args),
        Command::Solution(args) => solution::run(&ctx, args),
        Command::Completions(args) => completions::run(&ctx, args),
    };
    result.map_err(|e| e.relative_to(&ctx.root))
}
