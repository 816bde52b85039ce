//! `workshop list`: the lessons and how far the learner is in each.

use crate::commands::Context;
use crate::error::{Error, EXIT_SUCCESS};
use crate::lesson::{self, Lesson};
use crate::outln;
use crate::progress::Progress;

pub fn run(ctx: &Context) -> Result<i32, Error> {
    let progress = Progress::read(&ctx.root);
    let s = &ctx.styles;
    let ids = lesson::known_ids(&ctx.root);
    if ids.is_empty() {
        outln!("No lessons under {}.", ctx.shown(&ctx.root.join("lessons")))?;
        return Ok(EXIT_SUCCESS);
    }
    let mut lessons: Vec<Lesson> = ids.iter().map(|id| Lesson::load(&ctx.root, id)).collect::<Result<_, _>>()?;
    lessons.sort_by_key(|l| l.number);
    let id_width = lessons.iter().map(|l| l.id.len()).max().unwrap_or(0);
    let title_width = lessons.iter().map(|l| l.title.len()).max().unwrap_or(0);
    for lesson in &lessons {
        let entry = progress.lessons.get(&lesson.id).cloned().unwrap_or_default();
        let started = entry.started || lesson.work_file(&ctx.root).exists();
        let state = match (entry.passed, entry.total) {
            (Some(p), Some(t)) if p == t && t > 0 => s.paint(s.good, "done"),
            (Some(p), Some(t)) => s.paint(s.warn, format!("{p} of {t} checks")),
            _ if started => s.paint(s.warn, "started, not checked yet"),
            _ => s.paint(s.dim, "not started"),
        };
        let quiz = match entry.quiz {
            Some((right, of)) => format!("  {}", s.paint(s.dim, format!("quiz {right}/{of}"))),
            None => String::new(),
        };
        outln!("{:>3}  {:<id_width$}  {:<title_width$}  {state}{quiz}", lesson.number, lesson.id, lesson.title)?;
    }
    Ok(EXIT_SUCCESS)
}
