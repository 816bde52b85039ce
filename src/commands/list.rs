//! `workshop list`: the lessons and how far the learner is in each, the next one marked.

use crate::commands::Context;
use crate::error::{Error, EXIT_SUCCESS};
use crate::next::{Course, Standing};
use crate::outln;
use crate::render::styles::Styles;

pub(crate) fn run(ctx: &Context) -> Result<i32, Error> {
    let course = Course::read(ctx)?;
    if course.lessons.is_empty() {
        outln!("No lessons under {}.", ctx.shown(&ctx.root.join("lessons")))?;
        return Ok(EXIT_SUCCESS);
    }
    crate::output::print(&rows(&course, &ctx.styles, ctx.width))?;
    if let Some(step) = course.next_step() {
        outln!("\n> marks the lesson to do next: {}", step.command)?;
    }
    Ok(EXIT_SUCCESS)
}

/// One line a lesson: number, id, title, standing, last quiz score; `>` before the next one.
/// Within `width` columns: titles too long for what is left of a line end in `…`, so a row is
/// never broken by the terminal in the middle of a word.
pub(crate) fn rows(course: &Course, s: &Styles, width: usize) -> String {
    let next = course.next_step().map(|step| step.lesson.id.clone());
    let id_width = course.lessons.iter().map(|(l, _, _)| l.id.len()).max().unwrap_or(0);
    let tail = |standing: &Standing, quiz: Option<(usize, usize)>| {
        standing.words().chars().count() + quiz.map_or(0, |(r, o)| format!("  quiz {r}/{o}").len())
    };
    let widest_tail = course.lessons.iter().map(|(_, st, e)| tail(st, e.quiz)).max().unwrap_or(0);
    // The mark, the number, the id and the gaps: `>  5  structured-errors  `.
    let room = width.saturating_sub(1 + 3 + 2 + id_width + 2 + 2 + widest_tail).max(16);
    let longest = course.lessons.iter().map(|(l, _, _)| l.title.chars().count()).max().unwrap_or(0);
    let title_width = longest.min(room);
    let mut out = String::new();
    for (lesson, standing, entry) in &course.lessons {
        let words = standing.words();
        let state = match standing {
            Standing::Done => s.paint(s.good, words),
            Standing::NotStarted => s.paint(s.dim, words),
            _ => s.paint(s.warn, words),
        };
        let quiz = match entry.quiz {
            Some((right, of)) => format!("  {}", s.paint(s.dim, format!("quiz {right}/{of}"))),
            None => String::new(),
        };
        let mark = if next.as_deref() == Some(lesson.id.as_str()) { s.paint(s.strong, ">") } else { " ".into() };
        let title = match lesson.title.chars().count() > title_width {
            true => format!("{}…", lesson.title.chars().take(title_width - 1).collect::<String>()),
            false => format!("{:<title_width$}", lesson.title),
        };
        out.push_str(&format!("{mark}{:>3}  {:<id_width$}  {title}  {state}{quiz}\n", lesson.number, lesson.id));
    }
    out
}
