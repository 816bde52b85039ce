//! `workshop lesson`: the lesson's text, rendered from `lessons/<id>/lesson.md`, through a pager
//! when it is longer than the screen.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::cli::LessonArgs;
use crate::commands::Context;
use crate::error::{Corrupt, Error, Flaw, LessonError, EXIT_SUCCESS};
use crate::output;
use crate::render::markdown;

pub(super) fn run(ctx: &Context, args: LessonArgs) -> Result<i32, Error> {
    let lesson = ctx.lesson(args.lesson.as_deref())?;
    let path = lesson.dir.join("lesson.md");
    if !path.is_file() {
        return Err(
            LessonError::NoText { lesson: lesson.id.clone(), path: ctx.shown(&path) }.into()
        );
    }
    let source = crate::files::read_data_text(&path, crate::files::DATA_CAP)
        .map_err(|e| Corrupt::new(&path, Flaw::Unreadable(e)))?;
    let text = markdown::render(&source, &ctx.styles, ctx.width);
    if args.no_pager || !ctx.stdout_terminal || !needs_pager(&text) || !page(&text) {
        output::print(&text)?;
    }
    Ok(EXIT_SUCCESS)
}

/// Only a terminal reader gets a pager, and only for text that would scroll off the screen.
fn needs_pager(text: &str) -> bool {
    match crossterm::terminal::size() {
        Ok((_, height)) => text.lines().count() >= usize::from(height),
        Err(_) => false,
    }
}

/// The pager a reader asked for: `$PAGER`, or `less -R` (which keeps colours). `None` when
/// `$PAGER` is set to nothing or to `cat`, the usual ways of saying "no pager".
fn pager_command(var: Option<String>) -> Option<String> {
    match var {
        Some(p) if p.trim().is_empty() || p.trim() == "cat" => None,
        Some(p) => Some(p),
        None => Some("less -R".to_string()),
    }
}

/// Show the text through the pager. False when the pager could not start, so the caller prints
/// instead; once it has started, its exit (the reader pressing q early) is not an error.
fn page(text: &str) -> bool {
    let Some(pager) = pager_command(std::env::var("PAGER").ok()) else { return false };
    // Through the shell, as git does, so a $PAGER with arguments or quotes works as written.
    let child =
        Command::new("sh").arg("-c").arg(format!("exec {pager}")).stdin(Stdio::piped()).spawn();
    let Ok(mut child) = child else { return false };
    if let Some(mut stdin) = child.stdin.take() {
        // A reader who quits early closes the pipe: that ends the write, and is fine.
        let _ = stdin.write_all(text.as_bytes());
    }
    match child.wait() {
        // 127 and 126: the shell could not find or run the pager, so nothing was shown.
        Ok(status) => !matches!(status.code(), Some(126 | 127)),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_or_cat_pager_means_none() {
        assert_eq!(pager_command(Some(String::new())), None);
        assert_eq!(pager_command(Some("cat".into())), None);
        assert_eq!(pager_command(Some("more -s".into())).as_deref(), Some("more -s"));
        assert_eq!(pager_command(None).as_deref(), Some("less -R"));
    }
}
