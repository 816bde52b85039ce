//! `workshop check`: grade the learner's file and say what to do next.

use std::time::Duration;

use crate::bridge::{Bridge, BridgeConfig, LoadKind};
use crate::checks::{self, Report, Status};
use crate::cli::{CheckArgs, CheckFormat};
use crate::commands::Context;
use crate::error::{Error, EXIT_COULD_NOT_RUN, EXIT_FAILED, EXIT_SUCCESS};
use crate::lesson::Lesson;
use crate::progress::Progress;
use crate::render;

/// The learner's file for a lesson, or the one given with `--file`, checked to exist.
pub fn learner_file(
    ctx: &Context,
    lesson: &Lesson,
    given: Option<&std::path::Path>,
) -> Result<std::path::PathBuf, Error> {
    match given {
        Some(path) => {
            let path = ctx.cwd.join(path);
            if !path.is_file() {
                return Err(Error::usage(format!(
                    "there is no file at {}: check the path given to --file.",
                    path.display()
                )));
            }
            Ok(path)
        }
        None => {
            let path = lesson.work_file(&ctx.root);
            if !path.is_file() {
                return Err(Error::usage(format!(
                    "{} does not exist yet: run ./workshop start {} first.",
                    ctx.shown(&path),
                    lesson.id
                )));
            }
            Ok(path)
        }
    }
}

/// `--timeout`, validated.
pub fn timeout(secs: f64) -> Result<Duration, Error> {
    if !(secs.is_finite() && secs > 0.0 && secs <= 600.0) {
        return Err(Error::usage(format!(
            "--timeout {secs} is out of range: give seconds above 0 and at most 600, such as 1 or 2.5."
        )));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Grade a file: load it through the bridge and run every check.
pub fn grade(ctx: &Context, lesson: &Lesson, file: &std::path::Path, limit: Duration) -> Result<Report, Error> {
    let cfg = BridgeConfig {
        python: BridgeConfig::default_python(),
        file: file.to_path_buf(),
        shown_as: ctx.shown(file),
        functions: lesson.functions.clone(),
        timeout: limit,
        sandbox: None,
    };
    grade_with(lesson, cfg)
}

/// Grade with the bridge set up as given (the interpreter, the name the report uses, a sandbox):
/// the one grading of `check`, which `grade` runs for every file of a class.
pub fn grade_with(lesson: &Lesson, cfg: BridgeConfig) -> Result<Report, Error> {
    let shown = cfg.shown_as.clone();
    match Bridge::start(cfg) {
        Ok(mut bridge) => {
            let results = checks::run_all(lesson, &mut bridge);
            Ok(Report::graded(lesson, shown, results))
        }
        Err(e) if e.kind == LoadKind::NoPython => Err(Error::Load(e)),
        Err(e) => Ok(Report::not_loaded(lesson, shown, &e)),
    }
}

/// Record a grade in progress when it is of the learner's own work file, however it was named
/// (`--file`, `..`), and the file loaded.
pub fn save_progress(ctx: &Context, lesson: &Lesson, file: &std::path::Path, report: &Report) -> std::io::Result<()> {
    let same = |a: &std::path::Path, b: &std::path::Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    if !same(file, &lesson.work_file(&ctx.root)) || report.status == Status::Error {
        return Ok(());
    }
    Progress::update(&ctx.root, &lesson.id, |p| {
        p.started = true;
        p.passed = Some(report.passed);
        p.total = Some(report.total);
        p.green |= report.status == Status::Pass;
    })
}

pub fn run(ctx: &Context, args: CheckArgs) -> Result<i32, Error> {
    if args.watch {
        return super::check_watch::run(ctx, args);
    }
    let lesson = ctx.lesson(args.lesson.as_deref())?;
    let limit = timeout(args.timeout)?;
    let file = learner_file(ctx, &lesson, args.file.as_deref())?;
    let report = match grade(ctx, &lesson, &file, limit) {
        // An autograder reads stdout: even with no Python it gets a report it can parse.
        Err(Error::Load(e)) if args.format != CheckFormat::Text => {
            eprintln!("error: {e}");
            Report::not_loaded(&lesson, ctx.shown(&file), &e)
        }
        other => other?,
    };
    match args.format {
        CheckFormat::Text => print!("{}", render::check::text(&report, &ctx.styles, ctx.glyphs, ctx.width)),
        CheckFormat::Json => println!("{}", render::check::json(&report)),
        CheckFormat::Exercism => println!("{}", render::exercism::results(&report, &lesson)),
    }
    if let Err(e) = save_progress(ctx, &lesson, &file, &report) {
        eprintln!("warning: progress was not saved ({e}); the grade above stands.");
    }
    Ok(match report.status {
        Status::Pass => EXIT_SUCCESS,
        Status::Fail => EXIT_FAILED,
        Status::Error => EXIT_COULD_NOT_RUN,
    })
}
