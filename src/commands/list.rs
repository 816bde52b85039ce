//! `workshop list`: the lessons and how far the learner is in each, the next one marked.

use crate::commands::Context;
use crate::error::{Error, EXIT_SUCCESS};
use crate::next::{Course, Standing};
use crate::outln;
use crate::render::styles::Styles;

pub(crate) fn run(ctx: &Context) -> Result<i32, Error> {
    let course = Course::read(ctx)?;
    if course.lessons.is_empty() && course.broken.is_empty() {
        outln!("No lessons under {}.", ctx.shown(&ctx.root.join("lessons")))?;
        return Ok(EXIT_SUCCESS);
    }
    crate::output::print(&rows(&course, &ctx.styles, ctx.width))?;
    if let Some(before) = course.before_first() {
        outln!()?;
        for line in textwrap::wrap(&before, crate::render::plain_words(ctx.width)) {
            outln!("{}", ctx.styles.paint(ctx.styles.dim, line))?;
        }
    }
    if let Some(step) = course.next_step() {
        outln!("\n> marks the lesson to do next: {}", step.command)?;
    }
    Ok(EXIT_SUCCESS)
}

/// A row a lesson: number, id, title, standing, last quiz score; `>` before the next one.
/// Within `width` columns: a title too long for its column wraps inside it; where that column
/// would be too narrow to read, each lesson takes lines of its own: id, title, standing.
pub(crate) fn rows(course: &Course, s: &Styles, width: usize) -> String {
    let next = course.next_step().map(|step| step.lesson.id.clone());
    let broken = course.broken.iter().map(|(id, _)| id);
    let ids = course.lessons.iter().map(|(l, _, _)| &l.id).chain(broken);
    let id_width = ids.map(String::len).max().unwrap_or(0);
    let tail = |standing: &Standing, quiz: Option<(usize, usize)>| {
        standing.words().chars().count() + quiz.map_or(0, |(r, o)| format!("  quiz {r}/{o}").len())
    };
    let widest_tail = course.lessons.iter().map(|(_, st, e)| tail(st, e.quiz)).max().unwrap_or(0);
    // The mark, the number, the id and the gaps: `>  5  structured-errors  `.
    let lead = 1 + 3 + 2 + id_width + 2;
    let longest = course.lessons.iter().map(|(l, _, _)| l.title.chars().count()).max().unwrap_or(0);
    let beside = width.saturating_sub(lead + 2 + widest_tail);
    let title_width = beside.min(longest);
    let stacked = beside < MIN_TITLE.min(longest);
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
        let mark = if next.as_deref() == Some(lesson.id.as_str()) {
            s.paint(s.strong, ">")
        } else {
            " ".into()
        };
        if stacked {
            let head = format!("{mark}{:>3}  {}", lesson.number, lesson.id);
            // Under the id: the title, then the standing, each wrapped to what is left.
            let words = crate::render::plain_words(width.saturating_sub(STACKED));
            out.push_str(&format!("{head}\n"));
            for line in textwrap::wrap(&lesson.title, words.clone()) {
                out.push_str(&format!("{:STACKED$}{line}\n", ""));
            }
            out.push_str(&format!("{:STACKED$}{state}{quiz}\n", ""));
            continue;
        }
        let title = textwrap::wrap(&lesson.title, crate::render::plain_words(title_width));
        let first = title.first().map(|l| l.to_string()).unwrap_or_default();
        out.push_str(&format!(
            "{mark}{:>3}  {:<id_width$}  {first:<title_width$}  {state}{quiz}\n",
            lesson.number, lesson.id
        ));
        for line in title.iter().skip(1) {
            out.push_str(&format!("{:lead$}{line}\n", ""));
        }
    }
    let indent = if stacked { STACKED } else { lead };
    for (id, problem) in &course.broken {
        let head = format!("   {}  {id:<id_width$}", s.paint(s.bad, "!"));
        out.push_str(&broken_row(head, id, problem, (stacked, indent), s, width));
    }
    out
}

/// A lesson that does not load: `!` where its number would be, its first problem (beside the id,
/// or under it when stacked), and the command that says all that is wrong with it.
fn broken_row(
    head: String,
    id: &str,
    why: &str,
    at: BrokenLayout,
    s: &Styles,
    width: usize,
) -> String {
    let (stacked, indent) = at;
    let words = crate::render::plain_words(width.saturating_sub(indent).max(MIN_TITLE));
    let mut out = head;
    for (i, line) in textwrap::wrap(&format!("broken: {why}"), words).iter().enumerate() {
        let gap = if i == 0 && !stacked { "  ".to_string() } else { format!("\n{:indent$}", "") };
        out.push_str(&format!("{gap}{}", s.paint(s.bad, line)));
    }
    // The command whole on a line of its own when the words do not fit beside it.
    let next = format!("./workshop doctor {id}");
    let fits = indent + next.len() + " says what is wrong".len() <= width;
    let gap = if fits { " ".to_string() } else { format!("\n{:indent$}", "") };
    let command = s.paint(s.code, &next);
    out.push_str(&format!("\n{:indent$}{command}{gap}says what is wrong\n", ""));
    out
}

/// Where a broken lesson's text goes: whether the rows are stacked, and its indent.
type BrokenLayout = (bool, usize);

/// Where a stacked row's title and standing start: under the id.
const STACKED: usize = 6;

/// The narrowest title column worth reading beside the standing.
const MIN_TITLE: usize = 16;
