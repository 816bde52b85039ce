//! `workshop grade`: for course operators, grade a class's files with `check`'s own grading, in
//! parallel, each sandboxed; one line per file on stdout, a summary on stderr.

use std::time::Instant;

use crate::cli::{GradeArgs, GradeFormat};
use crate::commands::Context;
use crate::error::{Error, FlagError, GradeError, EXIT_SUCCESS};
use crate::grade::discover::{discover, Discovery};
use crate::grade::isolation::isolate;
use crate::grade::partition::Partition;
use crate::grade::python::{find_python, reachable_temp};
use crate::grade::submission::{self, Submission};
use crate::grade::summary::{summary, wrapped, Summary};
use crate::lesson::{self, Lesson};
use crate::output;

pub(super) fn run(ctx: &Context, args: GradeArgs) -> Result<i32, Error> {
    let limit = args.timeout;
    let partition = args.partition.as_deref().map(Partition::parse).transpose()?;
    let jobs = match args.jobs {
        Some(0) => return Err(FlagError::NoJobs.into()),
        Some(n) => n,
        None => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    };
    let (lesson, paths) = lesson_and_paths(ctx, args.lesson.as_deref(), &args.args)?;
    // The world runs here, outside every sandbox, one process for the whole class.
    let lesson = lesson.opened()?;
    let found = discover(&ctx.cwd, &lesson, &paths, args.format)?;
    if found.files.is_empty() {
        return Err(nothing_to_grade(&found, &paths, &lesson));
    }
    let total_found = found.files.len();
    let Discovery { files, skipped } = found;
    let files: Vec<_> = match partition {
        Some(p) => {
            let range = p.range(total_found);
            files.into_iter().skip(range.start).take(range.len()).collect()
        }
        None => files,
    };
    let (key, key_given) = sample_key(partition)?;
    let mut python = find_python()?;
    reachable_temp()?;
    let isolation = isolate(&mut python, args.sandbox)?;
    if let Some(warning) = isolation.warning() {
        output::note(&wrapped(&warning));
    }
    let submissions: Vec<Submission> =
        files.into_iter().map(|(shown, path)| submission::read(&shown, path)).collect();

    let started = Instant::now();
    let jobs = jobs.min(submissions.len().max(1));
    let reports =
        crate::grade::pool::grade_all(&lesson, &submissions, &python, limit, jobs, args.format)?;
    // A world that broke is its author's error: no grade stands on it.
    if let Some(e) = lesson.world_error() {
        return Err(e);
    }
    let context = Summary {
        found: total_found,
        partition,
        took: started.elapsed(),
        isolation: &isolation,
        skipped: &skipped,
        key,
        key_given,
        detail: match args.format {
            GradeFormat::Html => "the page names each file's checks",
            _ => "each file's line on stdout names its checks",
        },
    };
    if args.format == GradeFormat::Html {
        super::pages::class(&lesson, &reports, &isolation.line(), &skipped)?;
    }
    output::note(summary(&reports, &context).trim_end());
    Ok(EXIT_SUCCESS)
}

/// The run's sample key, and whether `WORKSHOP_SEED` gave it. A shard without it draws a key of
/// its own: said before grading, once.
fn sample_key(partition: Option<Partition>) -> Result<(u64, bool), Error> {
    let key = crate::checks::sample_key::choose(true)?;
    let given = crate::checks::sample_key::given();
    if partition.is_some() && !given {
        output::note(&wrapped(
            "warning: --partition without WORKSHOP_SEED: this shard draws a sample key of its \
             own, so the shards' lines will not add up to one grade's. Give every shard the same \
             secret WORKSHOP_SEED (16 hexadecimal digits, such as `openssl rand -hex 8` kept as a \
             CI secret).",
        ));
    }
    Ok((key, given))
}

/// Nothing found to grade in the paths given: the operator's error.
fn nothing_to_grade(found: &Discovery, paths: &[String], lesson: &Lesson) -> Error {
    GradeError::NothingToGrade {
        paths: paths.to_vec(),
        skipped: found.skipped.len(),
        file: lesson.file.clone(),
    }
    .into()
}

/// `[LESSON] PATH...`: the first word names a lesson when more follow and it is no file or folder.
/// A word that is both is an error: which was meant cannot be known.
fn lesson_and_paths(
    ctx: &Context,
    named: Option<&str>,
    args: &[String],
) -> Result<(Lesson, Vec<String>), Error> {
    if let Some(id) = named {
        return Ok((ctx.lesson(Some(id))?, args.to_vec()));
    }
    let (first, rest) = args.split_first().ok_or(GradeError::NoPaths)?;
    let is_path = std::fs::symlink_metadata(ctx.cwd.join(first)).is_ok();
    let is_lesson = lesson::validate_id(first).is_ok() && lesson::resolve(&ctx.root, first).is_ok();
    if is_path && is_lesson {
        return Err(GradeError::LessonOrFolder { word: first.clone() }.into());
    }
    if !is_path && !rest.is_empty() {
        if !is_lesson {
            let known = lesson::known_ids(&ctx.root);
            return Err(GradeError::Neither { word: first.clone(), known }.into());
        }
        return Ok((ctx.lesson(Some(first))?, rest.to_vec()));
    }
    if is_lesson {
        return Err(GradeError::NoPathsAfter { lesson: first.clone() }.into());
    }
    Ok((ctx.lesson(None)?, args.to_vec()))
}
