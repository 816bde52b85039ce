//! The reference solution as a unified diff against the learner's file, labelled so nobody
//! wonders which side is whose. What is no code is left out of both sides: the module's opening
//! docstring (each file says what it is in its own words) and the starter's `TODO(workshop)`
//! notes, which a learner often keeps. Hunk headers still give the lines' numbers in the files.

use std::collections::HashSet;
use std::fmt::Write as _;

use similar::{ChangeTag, TextDiff};

use crate::render::styles::Styles;

/// Lines of context around each change: enough to find the place in the file.
const CONTEXT: usize = 3;

/// The mark that opens one of the starter's notes to the learner.
const TODO: &str = "# TODO(workshop)";

/// A file's lines that take part in the diff, each with its number in the file (1-based).
struct DiffLines {
    text: String,
    numbers: Vec<usize>,
}

/// The comment lines of the starter's notes to the learner: each `TODO(workshop)` line and the
/// comment lines that continue it at its indent, trimmed.
pub(crate) fn notes_of(starter: &str) -> HashSet<String> {
    let lines: Vec<&str> = starter.lines().collect();
    let mut notes = HashSet::new();
    let mut i = 0;
    while i < lines.len() {
        let indent = lines[i].len() - lines[i].trim_start().len();
        if !lines[i].trim_start().starts_with(TODO) {
            i += 1;
            continue;
        }
        notes.insert(lines[i].trim().to_string());
        i += 1;
        while let Some(next) = lines.get(i) {
            let at = next.len() - next.trim_start().len();
            if at != indent
                || !next.trim_start().starts_with('#')
                || next.trim_start().starts_with(TODO)
            {
                break;
            }
            notes.insert(next.trim().to_string());
            i += 1;
        }
    }
    notes
}

/// `text` without its opening docstring and without the starter's notes.
fn kept(text: &str, notes: &HashSet<String>) -> DiffLines {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut skip = vec![false; lines.len()];
    // The opening docstring: the first line that is not blank or a comment, if it opens one.
    if let Some(start) =
        lines.iter().position(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
    {
        let first = lines[start].trim();
        if let Some(quote) = ["\"\"\"", "'''"].into_iter().find(|q| first.starts_with(q)) {
            let closes_here = first.len() >= 6 && first[3..].contains(quote);
            let end = if closes_here {
                Some(start)
            } else {
                (start + 1..lines.len()).find(|&i| lines[i].contains(quote))
            };
            if let Some(end) = end {
                skip[start..=end].iter_mut().for_each(|s| *s = true);
                // And the blank lines after it, so the code does not start with a gap.
                let mut after = end + 1;
                while after < lines.len() && lines[after].trim().is_empty() {
                    skip[after] = true;
                    after += 1;
                }
            }
        }
    }
    // The starter's notes, line by line, wherever the learner left them.
    for (n, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with('#') && notes.contains(line.trim()) {
            skip[n] = true;
        }
    }
    let mut out = DiffLines { text: String::new(), numbers: Vec::new() };
    for (n, line) in lines.iter().enumerate() {
        if !skip[n] {
            out.text.push_str(line);
            out.numbers.push(n + 1);
        }
    }
    out
}

/// `-12,4`: where a hunk starts in the file, and how many of its lines are shown.
fn range(numbers: &[usize], range: std::ops::Range<usize>) -> String {
    let start =
        numbers.get(range.start).copied().unwrap_or_else(|| numbers.last().map_or(0, |n| n + 1));
    format!("{start},{}", range.len())
}

/// The two sides of the diff, and the starter's notes (`notes_of`) to leave out of them.
pub(crate) struct Sides<'a> {
    pub yours: &'a str,
    pub reference: &'a str,
    pub notes: &'a HashSet<String>,
}

/// A unified diff from `yours` to `reference`, headed `--- <yours_label>` / `+++ <reference_label>`.
pub(crate) fn unified(
    sides: &Sides<'_>,
    yours_label: &str,
    reference_label: &str,
    styles: &Styles,
) -> String {
    let (mine, theirs) = (kept(sides.yours, sides.notes), kept(sides.reference, sides.notes));
    let diff = TextDiff::from_lines(&mine.text, &theirs.text);
    let mut out = String::new();
    let _ = writeln!(out, "{}", styles.paint(styles.bad, format!("--- {yours_label}")));
    let _ = writeln!(out, "{}", styles.paint(styles.good, format!("+++ {reference_label}")));
    for hunk in diff.unified_diff().context_radius(CONTEXT).iter_hunks() {
        let ops = hunk.ops();
        let (old, new) = match (ops.first(), ops.last()) {
            (Some(first), Some(last)) => (
                first.old_range().start..last.old_range().end,
                first.new_range().start..last.new_range().end,
            ),
            _ => continue,
        };
        let header =
            format!("@@ -{} +{} @@", range(&mine.numbers, old), range(&theirs.numbers, new));
        let _ = writeln!(out, "{}", styles.paint(styles.label, header));
        for change in hunk.iter_changes() {
            let (sign, style) = match change.tag() {
                ChangeTag::Delete => ('-', styles.bad),
                ChangeTag::Insert => ('+', styles.good),
                ChangeTag::Equal => (' ', styles.dim),
            };
            let line = change.to_string_lossy();
            let line = line.strip_suffix('\n').unwrap_or(&line);
            let _ = writeln!(out, "{}", styles.paint(style, format!("{sign}{line}")));
            if change.missing_newline() {
                let _ =
                    writeln!(out, "{}", styles.paint(styles.dim, "\\ No newline at end of file"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(yours: &str, reference: &str, starter: &str) -> String {
        let notes = notes_of(starter);
        unified(
            &Sides { yours, reference, notes: &notes },
            "yours: x.py",
            "reference: y.py",
            &Styles::plain(),
        )
    }

    #[test]
    fn the_diff_is_labelled_and_unified() {
        let out = diff("a\nb\nc\n", "a\nB\nc\n", "");
        assert_eq!(out, "--- yours: x.py\n+++ reference: y.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    }

    #[test]
    fn docstrings_at_the_top_and_the_starters_notes_are_left_out_with_the_lines_still_counted() {
        let yours = "\"\"\"Your file.\n\nMore words.\n\"\"\"\n\nimport x\n\n\ndef f():\n    # TODO(workshop): do it\n    # properly.\n    # A note of mine.\n    return 2\n";
        let reference = "\"\"\"The reference.\"\"\"\n\nimport x\n\n\ndef f():\n    # A note of mine.\n    return 1\n";
        let starter = "def f():\n    # TODO(workshop): do it\n    # properly.\n    return 0\n";
        let out = diff(yours, reference, starter);
        assert!(
            !out.contains("TODO") && !out.contains("properly") && !out.contains("Your file"),
            "{out}"
        );
        assert!(!out.contains("The reference"), "{out}");
        assert!(out.contains("\n-    return 2\n+    return 1\n"), "{out}");
        // The learner's own note stays; the header counts lines as they are in the files.
        assert!(out.contains("\n     # A note of mine.\n"), "{out}");
        assert!(out.contains("@@ -8,4 +5,4 @@"), "{out}");
    }
}
