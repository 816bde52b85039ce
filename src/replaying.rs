//! What `watch`, `record` and `doctor` share: choosing the code under replay and running a
//! ticket through a runtime with it.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

use crate::bridge::{Bridge, LoadError, Stop};
use crate::context::Context;
use crate::error::Error;
use crate::events::Replay;
use crate::lesson::Runtime;
use crate::lesson::{Lesson, Ticket};
use crate::model::{Model, ReplayModel};
use crate::recordings::{self, Cassette};
use crate::runtime as agent;

/// `--code` as typed: a word, or the path of a Python file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodeArg {
    /// Yours once you have started the lesson, else the reference fix.
    Auto,
    Starter,
    Yours,
    /// The reference fix under its lesson's label (`structured`), or `solution`; else a path.
    Named(String),
}

impl CodeArg {
    pub fn parse(text: &str) -> CodeArg {
        match text {
            "auto" => CodeArg::Auto,
            "starter" => CodeArg::Starter,
            "yours" => CodeArg::Yours,
            other => CodeArg::Named(other.to_string()),
        }
    }
}

/// Whose functions the tools use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodeChoice {
    Starter,
    Solution,
    Yours,
    Path(PathBuf),
}

impl CodeChoice {
    /// Resolve `--code` for a lesson.
    pub fn resolve(ctx: &Context, lesson: &Lesson, arg: &CodeArg) -> Result<CodeChoice, Error> {
        Ok(match arg {
            CodeArg::Auto if lesson.work_file(&ctx.root).is_file() => CodeChoice::Yours,
            CodeArg::Auto => CodeChoice::Solution,
            CodeArg::Starter => CodeChoice::Starter,
            CodeArg::Yours => CodeChoice::Yours,
            CodeArg::Named(name) if *name == lesson.solution_label || name == "solution" => CodeChoice::Solution,
            // A path, found as `check --file` finds it.
            CodeArg::Named(path) => match ctx.given_file(std::path::Path::new(path), "--code") {
                Ok(full) => CodeChoice::Path(full),
                // A word that is no path at all is more likely a mistyped choice.
                Err(_) if !path.contains(['/', '.']) => {
                    return Err(Error::usage(format!(
                    "unknown code '{path}': choose starter, {}, yours (your work file), or the path of a Python file.",
                    lesson.solution_label
                )))
                }
                Err(e) => return Err(e),
            },
        })
    }

    /// A code a recording script names: starter, the fix's label, or a file's path from the
    /// lesson root (a mistake file), wherever the command runs from.
    pub fn scripted(ctx: &Context, lesson: &Lesson, code: &str) -> CodeChoice {
        match code {
            "starter" => CodeChoice::Starter,
            _ if code == lesson.solution_label || code == "solution" => CodeChoice::Solution,
            path => CodeChoice::Path(ctx.root.join(path)),
        }
    }

    /// The name the header shows.
    pub fn label(&self, ctx: &Context, lesson: &Lesson) -> String {
        match self {
            CodeChoice::Starter => "starter".into(),
            CodeChoice::Solution => lesson.solution_label.clone(),
            CodeChoice::Yours => "yours".into(),
            CodeChoice::Path(path) => ctx.shown(path),
        }
    }

    /// The file holding the code, which must exist.
    pub fn file(&self, ctx: &Context, lesson: &Lesson) -> Result<PathBuf, Error> {
        let path = match self {
            CodeChoice::Starter => lesson.starter_file(&ctx.root),
            CodeChoice::Solution => lesson.solution_path(),
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

/// The tickets to replay in a runtime: the one named, or all that run there.
pub fn tickets<'l>(lesson: &'l Lesson, id: Option<&str>, runtime: Runtime) -> Result<Vec<&'l Ticket>, Error> {
    let Some(id) = id else {
        return Ok(lesson.tickets_for(runtime.name()));
    };
    let ticket = lesson.ticket(id).ok_or_else(|| {
        let ids: Vec<&str> = lesson.tickets.iter().map(|t| t.id.as_str()).collect();
        Error::usage(format!("there is no ticket '{id}' in {}: choose one of {}.", lesson.id, ids.join(", ")))
    })?;
    if !ticket.runs_in(runtime.name()) {
        return Err(Error::usage(format!(
            "the ticket {id} runs only in the {} runtime: add --runtime {}.",
            ticket.runtimes.join(" or "),
            ticket.runtimes.first().map(String::as_str).unwrap_or("harness")
        )));
    }
    Ok(vec![ticket])
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
    crate::grading::open(lesson, file, &ctx.shown(file), limit, stop)
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
