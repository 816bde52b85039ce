//! `./workshop` with no command: what this is, the lessons with the learner's progress, and the
//! one command to run next. Exit 0: it is where a new learner begins, not a usage error.

use crate::commands::Context;
use crate::error::{Error, EXIT_SUCCESS};
use crate::next::Course;
use crate::{outln, output};

/// What the tool is, in the learner's words: shown above the lessons.
const ABOUT: &str = "Hands-on lessons about building reliable AI agents, offline, in a terminal. In each lesson you edit one small Python file until its checks are green, then replay recorded agent runs to see what your change does to a real conversation.";

pub(super) fn run(ctx: &Context) -> Result<i32, Error> {
    let s = &ctx.styles;
    outln!("{}", s.paint(s.strong, "workshop"))?;
    for line in textwrap::wrap(ABOUT, crate::render::plain_words(ctx.width)) {
        outln!("{line}")?;
    }
    outln!()?;
    let course = Course::read(ctx)?;
    if course.lessons.is_empty() && course.broken.is_empty() {
        outln!("There are no lessons under {} yet.", ctx.shown(&ctx.root.join("lessons")))?;
        outln!("\n./workshop --help lists every command.")?;
        return Ok(EXIT_SUCCESS);
    }
    output::print(&crate::commands::list::rows(&course, s, ctx.width))?;
    outln!()?;
    if let Some(before) = course.before_first() {
        for line in textwrap::wrap(&before, crate::render::plain_words(ctx.width)) {
            outln!("{}", s.paint(s.dim, line))?;
        }
        outln!()?;
    }
    match course.next_step() {
        Some(step) => {
            let why = if step.starts {
                format!("starts lesson {}, {}", step.lesson.number, step.lesson.title)
            } else {
                format!("grades your file for lesson {}, where you left it", step.lesson.number)
            };
            if 6 + step.command.chars().count() + 3 + why.chars().count() <= ctx.width {
                outln!("Next: {}   {}", s.paint(s.code, &step.command), s.paint(s.dim, why))?;
            } else {
                outln!("Next: {}", s.paint(s.code, &step.command))?;
                outln!("      {}", s.paint(s.dim, why))?;
            }
        }
        None if course.lessons.is_empty() => {
            let doctor = s.paint(s.code, "./workshop doctor");
            outln!("No lesson here loads: {doctor} says what is wrong.")?;
        }
        None if !course.broken.is_empty() => {
            let doctor = s.paint(s.code, "./workshop doctor");
            let done = "Every lesson that loads is done;";
            outln!("{done} {doctor} says what is wrong with the others.")?;
        }
        None => {
            let last = course.lessons.last().map(|(l, _, _)| l.id.as_str()).unwrap_or_default();
            outln!(
                "Every lesson is done. Replay one with {}, or test yourself with ./workshop quiz <lesson>.",
                s.paint(s.code, format!("./workshop watch {last}"))
            )?;
        }
    }
    outln!("{}", s.paint(s.dim, "Every command: ./workshop --help"))?;
    Ok(EXIT_SUCCESS)
}
