//! A hint card: the check, why it fails, the steps shown so far, and how to ask for the next.

use std::fmt::Write as _;

use crate::lesson::CheckSpec;
use crate::render::styles::Styles;

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
        let mut out = String::new();
        self.head(&mut out, styles, width);
        self.steps(&mut out, styles, width);
        self.next(&mut out, styles, width);
        out
    }

    /// The check's id and name, and why it fails now.
    fn head(&self, out: &mut String, styles: &Styles, width: usize) {
        let check = self.check;
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
            let _ = writeln!(
                out,
                "{} {}",
                styles.paint(styles.label, "Hint for"),
                styles.paint(styles.strong, &check.id)
            );
            wrap(out, &check.name, width, ("  ", "  "), styles.dim, styles);
        }
        if let Some(why) = self.failing.filter(|w| !w.is_empty()) {
            wrap(
                out,
                &format!("failing now: {}", crate::text::inert::text(why)),
                width,
                ("  ", "  "),
                styles.dim,
                styles,
            );
        }
        out.push('\n');
    }

    /// Steps 1..=shown, the newest marked.
    fn steps(&self, out: &mut String, styles: &Styles, width: usize) {
        let newest = self.newest;
        for (i, hint) in self.check.hints.iter().take(self.shown).enumerate() {
            let step = i + 1;
            let label = format!("{step}. ");
            let first =
                if newest == Some(step) { format!("> {label}") } else { format!("  {label}") };
            let rest = " ".repeat(first.len());
            let style = if newest == Some(step) { styles.strong } else { styles.dim };
            wrap(out, hint, width, (&first, &rest), style, styles);
        }
        out.push('\n');
    }

    /// What next: the next step's command or key, or the reference once the hints are spent.
    fn next(&self, out: &mut String, styles: &Styles, width: usize) {
        let Card { check, shown, newest, lesson, again, .. } = *self;
        let total = check.hints.len();
        // The command goes on a line of its own, so it is never split and copies whole.
        let remain = total.saturating_sub(shown);
        let reveal = format!("./workshop solution {lesson} --reveal");
        let (said, command) = if total == 1 {
            (
                format!("That is the only hint for {}. Still stuck? See the reference:", check.id),
                reveal,
            )
        } else if shown < total {
            let more = if remain == 1 {
                "1 more remains".to_string()
            } else {
                format!("{remain} more remain")
            };
            match again {
                Again::Command(command) => (
                    format!("Step {shown} of {total}; {more}. For the next one, ask again:"),
                    command.to_string(),
                ),
                Again::Key(key) => {
                    let said =
                        format!("Step {shown} of {total}; {more}. Press {key} for the next one.");
                    wrap(out, &said, width, ("", ""), owo_colors::Style::new(), styles);
                    return;
                }
            }
        } else if newest.is_some() {
            (format!("Step {shown} of {total}, the last one for this check. Still stuck? See the reference:"), reveal)
        } else {
            (format!("No more hints for this check: all {total} are above. Still stuck? See the reference:"), reveal)
        };
        wrap(out, &said, width, ("", ""), owo_colors::Style::new(), styles);
        let _ = writeln!(out, "  {command}");
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
            samples: Vec::new(),
        }
    }

    fn card(check: &CheckSpec, newest: Option<usize>) -> String {
        let card = Card {
            check,
            failing: None,
            shown: 2,
            newest,
            lesson: "l",
            again: Again::Command("again"),
        };
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
