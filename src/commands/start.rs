//! `workshop start`: copy the starter into work/, never losing the learner's edits.

use crate::cli::StartArgs;
use crate::commands::Context;
use crate::error::{Error, EXIT_SUCCESS};
use crate::lesson::Lesson;
use crate::outln;
use crate::progress::Progress;
use crate::workfiles;

pub fn run(ctx: &Context, args: StartArgs) -> Result<i32, Error> {
    let Some(id) = args.lesson.as_deref() else {
        return Err(Error::usage(format!("which lesson? The lessons here:\n{}", ctx.lesson_list()?)));
    };
    let lesson = Lesson::load(&ctx.root, id)?;
    let kept = workfiles::put_starter(ctx, &lesson, args.force, "start")?;
    if let Err(e) = Progress::update(&ctx.root, &lesson.id, |p| {
        p.started = true;
        p.started_at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok().map(|d| d.as_secs());
    }) {
        crate::errln!("warning: progress was not saved ({e}); your files are fine.");
    }
    let s = &ctx.styles;
    let head = format!("Started {} {} ({})", lesson.title, ctx.glyphs.dot, lesson.course);
    if head.chars().count() <= ctx.width {
        outln!(
            "{} {} {} ({})",
            s.paint(s.good, "Started"),
            s.paint(s.strong, &lesson.title),
            ctx.glyphs.dot,
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
    let steps = [
        ("read", format!("./workshop lesson {}", lesson.id), "what the lesson is about"),
        ("see", format!("./workshop watch {} --compare", lesson.id), "the starter's failure beside the fix"),
        ("edit", ctx.shown(&lesson.work_file(&ctx.root)), "your file"),
        ("check", format!("./workshop check {}", lesson.id), "until every check is green"),
    ];
    let wide = steps.iter().map(|(_, command, _)| command.chars().count()).max().unwrap_or(0);
    let longest = steps.iter().map(|(_, _, why)| why.chars().count()).max().unwrap_or(0);
    // Side by side when it fits; on a narrow terminal each command gets a line of its own.
    let beside = 2 + 3 + 7 + wide + 3 + longest <= ctx.width;
    for (i, (word, command, why)) in steps.iter().enumerate() {
        if beside {
            let pad = " ".repeat(wide - command.chars().count());
            outln!("  {}. {word:<6} {}{pad}   {}", i + 1, s.paint(s.code, command), s.paint(s.dim, why))?;
        } else {
            outln!("  {}. {word:<6} {}", i + 1, s.paint(s.dim, why))?;
            outln!("     {}", s.paint(s.code, command))?;
        }
    }
    if args.edit {
        let file = lesson.work_file(&ctx.root);
        crate::editor::open(&file, &ctx.shown(&file))?;
    }
    Ok(EXIT_SUCCESS)
}
