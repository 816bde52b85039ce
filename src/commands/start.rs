//! `workshop start`: copy the starter into work/, never losing the learner's edits.

use crate::cli::StartArgs;
use crate::commands::Context;
use crate::course::progress::Progress;
use crate::course::starter;
use crate::error::{Error, LessonError, EXIT_SUCCESS};
use crate::lesson::Lesson;
use crate::outln;
use crate::render::steps::{self, Step};

/// Put the starter in place (see `starter::put_starter`) and note the lesson as the one started
/// last. Returns the backups made of the learner's edited files.
pub(crate) fn begin(
    ctx: &Context,
    lesson: &Lesson,
    force: bool,
) -> Result<Vec<std::path::PathBuf>, Error> {
    let kept = starter::put_starter(&ctx.at(), lesson, force, "start")?;
    mark_started(ctx, lesson);
    Ok(kept)
}

/// Note the lesson as the one started last, which commands that name none then mean.
pub(crate) fn mark_started(ctx: &Context, lesson: &Lesson) {
    if let Err(e) = Progress::update(&ctx.root, &lesson.id, |p| {
        p.started = true;
        p.started_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs());
    }) {
        crate::errln!("warning: progress was not saved ({e}); your files are fine.");
    }
}

pub(crate) fn run(ctx: &Context, args: StartArgs) -> Result<i32, Error> {
    let Some(id) = args.lesson.as_deref() else {
        return Err(LessonError::WhichLesson { listing: ctx.lesson_list()? }.into());
    };
    let lesson = ctx.lesson(Some(id))?;
    let kept = begin(ctx, &lesson, args.force)?;
    let s = &ctx.styles;
    let head = format!("Started {} ({})", lesson.title, lesson.course);
    if head.chars().count() <= ctx.width {
        outln!(
            "{} {} ({})",
            s.paint(s.good, "Started"),
            s.paint(s.strong, &lesson.title),
            lesson.course
        )?;
    } else {
        outln!("{} {}", s.paint(s.good, "Started"), s.paint(s.strong, &lesson.title))?;
        outln!("({})", lesson.course)?;
    }
    outln!()?;
    for backup in &kept {
        outln!("  kept     your previous version as {}", ctx.shown(backup))?;
    }
    let step = |word, command: String, why: &str| Step { word, command, why: why.to_string() };
    let steps = [
        step("read", format!("./workshop lesson {}", lesson.id), "what the lesson is about"),
        step(
            "see",
            format!("./workshop watch {} --compare", lesson.id),
            "the starter beside the fix; after your edits, yours",
        ),
        step("edit", ctx.shown(&lesson.work_file(&ctx.root)), "your file"),
        step("check", format!("./workshop check {}", lesson.id), "until every check is green"),
    ];
    crate::output::print(&steps::text(&steps, true, s, ctx.width))?;
    if args.edit {
        let file = lesson.work_file(&ctx.root);
        crate::terminal::editor::open(&file, &ctx.shown(&file))?;
    }
    Ok(EXIT_SUCCESS)
}
