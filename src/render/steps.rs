//! Numbered or labelled steps, each a word, a command and why: beside each other when they fit
//! the width, else each command on a line of its own so it is never split and copies whole.

use crate::render::styles::Styles;

/// One step: a short word (`read`, `quiz`), the command, and what it gives.
pub(crate) struct Step {
    pub word: &'static str,
    pub command: String,
    pub why: String,
}

/// The steps as lines, numbered (`1. read ...`) when `numbered`, indented by two spaces.
pub(crate) fn text(steps: &[Step], numbered: bool, styles: &Styles, width: usize) -> String {
    let s = styles;
    let wide = steps.iter().map(|step| step.command.chars().count()).max().unwrap_or(0);
    let longest = steps.iter().map(|step| step.why.chars().count()).max().unwrap_or(0);
    let lead = |i: usize| if numbered { format!("{}. ", i + 1) } else { String::new() };
    let lead_width = if numbered { 3 } else { 0 };
    let beside = 2 + lead_width + 7 + wide + 3 + longest <= width;
    let mut out = String::new();
    for (i, step) in steps.iter().enumerate() {
        let word = format!("{:<6}", step.word);
        if beside {
            let pad = " ".repeat(wide - step.command.chars().count());
            out.push_str(&format!(
                "  {}{word} {}{pad}   {}\n",
                lead(i),
                s.paint(s.code, &step.command),
                s.paint(s.dim, &step.why)
            ));
        } else {
            // The why wraps under itself; the command keeps a line of its own, whole.
            let indent = " ".repeat(2 + lead_width + 7);
            let options = textwrap::Options::new(width.saturating_sub(indent.len()).max(20))
                .word_splitter(textwrap::WordSplitter::NoHyphenation);
            for (n, piece) in textwrap::wrap(&step.why, options).iter().enumerate() {
                let head = if n == 0 { format!("  {}{word} ", lead(i)) } else { indent.clone() };
                out.push_str(&format!("{head}{}\n", s.paint(s.dim, piece)));
            }
            // Under the why when it fits there; less indented on a terminal too narrow for that.
            let fits = indent.len() + step.command.chars().count() <= width;
            let under = if fits {
                indent.clone()
            } else {
                " ".repeat(if numbered { 2 + lead_width } else { 4 })
            };
            out.push_str(&format!("{under}{}\n", s.paint(s.code, &step.command)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps() -> Vec<Step> {
        vec![
            Step { word: "read", command: "./workshop lesson x".into(), why: "the text".into() },
            Step { word: "check", command: "./workshop check x".into(), why: "grade it".into() },
        ]
    }

    #[test]
    fn steps_go_side_by_side_when_they_fit() {
        let out = text(&steps(), true, &Styles::plain(), 80);
        assert_eq!(out, "  1. read   ./workshop lesson x   the text\n  2. check  ./workshop check x    grade it\n");
    }

    #[test]
    fn on_a_narrow_width_each_command_has_a_line_of_its_own() {
        let out = text(&steps(), false, &Styles::plain(), 30);
        assert_eq!(
            out,
            "  read   the text\n         ./workshop lesson x\n  check  grade it\n         ./workshop check x\n"
        );
        // Too narrow even for that: the command moves left rather than run off the edge.
        let out = text(&steps(), false, &Styles::plain(), 26);
        assert!(out.contains("\n    ./workshop lesson x\n"), "{out}");
    }
}
