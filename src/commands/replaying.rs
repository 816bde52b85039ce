//! What `watch`, `record` and `doctor` share: choosing the code under replay and running a
//! ticket through a runtime with it.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

use crate::agent::{self, Runtime};
use crate::bridge::{Bridge, BridgeConfig, LoadError, Stop};
use crate::commands::Context;
use crate::error::Error;
use crate::lesson::{Lesson, Ticket};
use crate::model::{Model, ReplayModel};
use crate::recordings::{self, Cassette};
use crate::replay::Replay;

/// Whose `fail` and `should_retry` the tools use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodeChoice {
    Starter,
    Structured,
    Yours,
    Path(PathBuf),
}

impl CodeChoice {
    /// `auto` (the default) is your file once you have started the lesson, else the reference fix.
    pub fn parse(ctx: &Context, lesson: &Lesson, text: &str) -> Result<CodeChoice, Error> {
        Ok(match text {
            "auto" if lesson.work_file(&ctx.root).is_file() => CodeChoice::Yours,
            "auto" => CodeChoice::Structured,
            "starter" => CodeChoice::Starter,
            "structured" => CodeChoice::Structured,
            "yours" => CodeChoice::Yours,
            path => {
                let full = ctx.cwd.join(path);
                if !full.is_file() {
                    return Err(Error::usage(format!(
                        "unknown code '{path}': choose starter, structured, yours (your work file), or the path of a Python file."
                    )));
                }
                CodeChoice::Path(full)
            }
        })
    }

    /// The name the header shows.
    pub fn label(&self, ctx: &Context) -> String {
        match self {
            CodeChoice::Starter => "starter".into(),
            CodeChoice::Structured => "structured".into(),
            CodeChoice::Yours => "yours".into(),
            CodeChoice::Path(path) => ctx.shown(path),
        }
    }

    /// The file holding the code, which must exist.
    pub fn file(&self, ctx: &Context, lesson: &Lesson) -> Result<PathBuf, Error> {
        let path = match self {
            CodeChoice::Starter => lesson.starter_file(&ctx.root),
            CodeChoice::Structured => lesson.solution_path(),
            CodeChoice::Yours => {
                let path = lesson.work_file(&ctx.root);
                if !path.is_file() {
                    return Err(Error::usage(format!(
                        "{} does not exist yet: run ./workshop start {} first, or pick --code starter or structured.",
                        ctx.shown(&path),
                        lesson.id
                    )));
                }
                path
            }
            CodeChoice::Path(path) => path.clone(),
        };
        if !path.is_file() {
            return Err(Error::corrupt(&path, "is missing from the lesson: restore it with git checkout"));
        }
        Ok(path)
    }
}

/// Start Python with a code file loaded.
pub fn open(ctx: &Context, lesson: &Lesson, file: &std::path::Path, limit: Duration) -> Result<Bridge, LoadError> {
    open_stoppable(ctx, lesson, file, limit, Stop::default())
}

/// As `open`, for a caller that may have to end Python from another thread (see `Stop`).
pub fn open_stoppable(
    ctx: &Context,
    lesson: &Lesson,
    file: &std::path::Path,
    limit: Duration,
    stop: Stop,
) -> Result<Bridge, LoadError> {
    let cfg = BridgeConfig {
        python: BridgeConfig::default_python(),
        file: file.to_path_buf(),
        shown_as: ctx.shown(file),
        functions: lesson.functions.clone(),
        timeout: limit,
        sandbox: None,
    };
    Bridge::start_stoppable(cfg, stop)
}

/// The recorded turns of a ticket in a runtime, validated.
pub fn cassette(ctx: &Context, lesson: &Lesson, runtime: Runtime, ticket: &Ticket) -> Result<Cassette, Error> {
    Cassette::load(&ctx.root, &recordings::file_for(&lesson.recordings_dir(&ctx.root), runtime.name(), &ticket.id))
}

/// Run a ticket with the model's turns from any model.
pub fn run_with(
    lesson: &Lesson,
    ticket: &Ticket,
    runtime: Runtime,
    label: &str,
    code: &mut Result<Bridge, LoadError>,
    model: &mut dyn Model,
) -> Replay {
    match code {
        Ok(bridge) => agent::run(lesson, ticket, runtime, label, bridge, model),
        Err(error) => agent::not_loaded(lesson, ticket, label, runtime, error),
    }
}

/// Replay a ticket from its recordings. Also returns the keys of the turns it used.
pub fn replay(
    ctx: &Context,
    lesson: &Lesson,
    ticket: &Ticket,
    runtime: Runtime,
    label: &str,
    code: &mut Result<Bridge, LoadError>,
    cassette: &Cassette,
) -> (Replay, HashSet<String>) {
    let mut model = ReplayModel::new(cassette, ctx.root.clone());
    let replay = run_with(lesson, ticket, runtime, label, code, &mut model);
    (replay, model.used)
}
