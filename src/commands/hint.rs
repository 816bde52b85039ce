//! `workshop hint`: the next hint step for the first failing check (or the one named), from the
//! lesson's data. How far each check's hints have gone is kept in progress.

use std::fmt::Write as _;

use crate::checks::Status;
use crate::cli::HintArgs;
use crate::commands::Context;
use crate::error::{Error, EXIT_SUCCESS};
use crate::lesson::CheckSpec;
use crate::output;
use crate::progress::Progress;
use crate::render::styles::Styles;

/// Seconds each call of the learner's code may take while grading for a hint, as `check`'s default.
const GRADE_TIMEOUT_SECS: f64 = 1.0;

pub(super) fn run(ctx: &Context, args: HintArgs) -> Result<i32, Error> {
    let lesson = ctx.lesson(args.lesson.as_deref())?;
    if lesson.checks.iter().all(|c| c.hints.is_empty()) {
        return Err(Error::usage(format!("the lesson {} has no hints.", lesson.id)));
    }
    let (check, failing) = match args.check.as_deref() {
        Some(id) => {
            let Some(check) = lesson.check(id) else {
                let ids: Vec<&str> = lesson.checks.iter().map(|c| c.id.as_str()).collect();
                return Err(Error::usage(format!(
                    "there is no check '{id}' in {}. Checks: {}.",
                    lesson.id,
                    ids.join(", ")
                )));
            };
            (check, None)
        }
        None => {
            let file = ctx.learner_file(&lesson, None)?;
            let report = crate::grading::to_the_end(
                &ctx.place(),
                &lesson,
                &file,
                std::time::Duration::from_secs_f64(GRADE_TIMEOUT_SECS),
            )?;
            if report.status == Status::Error {
                return Err(Error::usage(format!(
                    "{} does not load, so no check could run: {}\nRun ./workshop check {} to see where, fix that first, then ask again.",
                    report.file,
                    report.message.lines().next().unwrap_or_default(),
                    lesson.id
                )));
            }
            let Some(first) = report.first_failure() else {
                output::line(&format!(
                    "All {} checks pass: no hint needed. Compare your file with the reference: ./workshop solution {}",
                    report.total, lesson.id
                ))?;
                return Ok(EXIT_SUCCESS);
            };
            let check = lesson.check(&first.id).ok_or_else(|| {
                Error::corrupt(&lesson.dir.join("lesson.toml"), format!("has no [[checks]] entry for '{}'", first.id))
            })?;
            (check, Some(first.message.clone()))
        }
    };
    if check.hints.is_empty() {
        output::line(&format!(
            "The check {} has no hints. ./workshop solution {} --reveal shows the reference.",
            check.id, lesson.id
        ))?;
        return Ok(EXIT_SUCCESS);
    }
    let (shown, newest) = next_step(ctx, &lesson.id, check);
    let again = match args.check.as_deref() {
        Some(id) => format!("./workshop hint {} --check {id}", lesson.id),
        None => format!("./workshop hint {}", lesson.id),
    };
    let card =
        Card { check, failing: failing.as_deref(), shown, newest, lesson: &lesson.id, again: Again::Command(&again) };
    output::print(&card.text(&ctx.styles, ctx.width))?;
    if args.edit {
        let file = ctx.learner_file(&lesson, None)?;
        crate::editor::open(&file, &ctx.shown(&file))?;
    }
    Ok(EXIT_SUCCESS)
}

/// Show one more hint step of `check` than before (kept in progress, so `hint` and `h` in
/// `check --watch` count together): how many steps to show, and the one that is new, if any.
pub(crate) fn next_step(ctx: &Context, lesson: &str, check: &CheckSpec) -> (usize, Option<usize>) {
    let seen = Progress::read(&ctx.root).lessons.get(lesson).and_then(|p| p.hint_steps.get(&check.id).copied());
    let seen = seen.unwrap_or(0).min(check.hints.len());
    let shown = (seen + 1).min(check.hints.len());
    if shown > seen {
        if let Err(e) = Progress::update(&ctx.root, lesson, |p| {
            p.hint_steps.insert(check.id.clone(), shown);
        }) {
            crate::errln!("warning: progress was not saved ({e}); the next hint will start here again.");
        }
    }
    (shown, (shown > seen).then_some(shown))
}

/// How the learner asks for the next step.
#[derive(Clone, Copy)]
pub(crate) enum Again<'a> {
    /// A command to run (`./workshop hint ...`).
    Command(&'a str),
    /// A key to press (`h` in `check --watch`).
    Key(char),
}

/// What one `hint` shows: the check, why it fails (when graded), steps 1..=shown, and what next.
pub(crate) struct Card<'a> {
    pub check: &'a CheckSpec,
    pub failing: Option<&'a str>,
    pub shown: usize,
    /// The step revealed by this very request, if any: marked, so the reader finds it.
    pub newest: Option<usize>,
    pub lesson: &'a str,
    pub again: Again<'a>,
}

impl Card<'_> {
    pub(crate) fn text(&self, styles: &Styles, width: usize) -> String {
        let Card { check, failing, shown, newest, lesson, again } = *self;
        let mut out = String::new();
        let head = format!("Hint for {}", check.id);
        if head.chars().count() + 2 + check.name.chars().count() <= width {
            let _ = writeln!(
                out,
                "{} {}  {}",
                styles.paint(styles.label, "Hint for"),
                styles.paint(styles.strong, &check.id),
                styles.paint(styles.dim, &check.name)
            );
        } else {
            // Narrow: the check's name goes under its id, wrapped.
            let _ =
                writeln!(out, "{} {}", styles.paint(styles.label, "Hint for"), styles.paint(styles.strong, &check.id));
            wrap(&mut out, &check.name, width, ("  ", "  "), styles.dim, styles);
        }
        if let Some(why) = failing.filter(|w| !w.is_empty()) {
            wrap(
                &mut out,
                &format!("failing now: {}", crate::inert::text(why)),
                width,
                ("  ", "  "),
                styles.dim,
                styles,
            );
        }
        out.push('\n');
        for (i, hint) in check.hints.iter().take(shown).enumerate() {
            let step = i + 1;
            let label = format!("{step}. ");
            let first = if newest == Some(step) { format!("> {label}") } else { format!("  {label}") };
            let rest = " ".repeat(first.len());
            let style = if newest == Some(step) { styles.strong } else { styles.dim };
            wrap(&mut out, hint, width, (&first, &rest), style, styles);
        }
        out.push('\n');
        let total = check.hints.len();
        // The command goes on a line of its own, so it is never split and copies whole.
        let remain = total.saturating_sub(shown);
        let (said, command) = if total == 1 {
            (
                format!("That is the only hint for {}. Still stuck? See the reference:", check.id),
                format!("./workshop solution {lesson} --reveal"),
            )
        } else if shown < total {
            let more = if remain == 1 { "1 more remains".to_string() } else { format!("{remain} more remain") };
            match again {
                Again::Command(command) => {
                    (format!("Step {shown} of {total}; {more}. For the next one, ask again:"), command.to_string())
                }
                Again::Key(key) => {
                    wrap(
                        &mut out,
                        &format!("Step {shown} of {total}; {more}. Press {key} for the next one."),
                        width,
                        ("", ""),
                        owo_colors::Style::new(),
                        styles,
                    );
                    return out;
                }
            }
        } else {
            let reveal = format!("./workshop solution {lesson} --reveal");
            if newest.is_some() {
                (
                    format!("Step {shown} of {total}, the last one for this check. Still stuck? See the reference:"),
                    reveal,
                )
            } else {
                (
                    format!("No more hints for this check: all {total} are above. Still stuck? See the reference:"),
                    reveal,
                )
            }
        };
        wrap(&mut out, &said, width, ("", ""), owo_colors::Style::new(), styles);
        let _ = writeln!(out, "  {command}");
        out
    }
}

/// Wrap `text` to `width` with the indents of (the first line, the others), painted in `style`.
fn wrap(
    out: &mut String,
    text: &str,
    width: usize,
    (first, rest): (&str, &str),
    style: owo_colors::Style,
    styles: &Styles,
) {
    let options = textwrap::Options::new(width)
        .initial_indent(first)
        .subsequent_indent(rest)
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
        .break_words(false);
    for line in textwrap::wrap(text, options) {
        let _ = writeln!(out, "{}", styles.paint(style, line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check() -> CheckSpec {
        CheckSpec {
            id: "c".into(),
            name: "a check".into(),
            hints: vec!["first".into(), "second".into()],
            call: None,
            cases: Vec::new(),
            ticket: None,
            expect: Default::default(),
            guidance: Vec::new(),
            task: None,
        }
    }

    fn card(check: &CheckSpec, newest: Option<usize>) -> String {
        let card = Card { check, failing: None, shown: 2, newest, lesson: "l", again: Again::Command("again") };
        card.text(&Styles::plain(), 80)
    }

    #[test]
    fn the_newest_step_is_marked() {
        let out = card(&check(), Some(2));
        assert!(out.contains("  1. first\n> 2. second\n"), "{out}");
        assert!(out.contains("the last one"), "{out}");
    }

    #[test]
    fn past_the_last_step_nothing_is_new() {
        let out = card(&check(), None);
        assert!(!out.contains("> "), "{out}");
        assert!(out.contains("No more hints"), "{out}");
    }
}
