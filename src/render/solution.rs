//! The reference solution as a unified diff against the learner's file, labelled so nobody
//! wonders which side is whose.

use std::fmt::Write as _;

use similar::{ChangeTag, TextDiff};

use crate::render::styles::Styles;

/// Lines of context around each change: enough to find the place in the file.
const CONTEXT: usize = 3;

/// A unified diff from `yours` to `reference`, headed `--- <yours_label>` / `+++ <reference_label>`.
pub fn unified(yours: &str, reference: &str, yours_label: &str, reference_label: &str, styles: &Styles) -> String {
    let diff = TextDiff::from_lines(yours, reference);
    let mut out = String::new();
    let _ = writeln!(out, "{}", styles.paint(styles.bad, format!("--- {yours_label}")));
    let _ = writeln!(out, "{}", styles.paint(styles.good, format!("+++ {reference_label}")));
    for hunk in diff.unified_diff().context_radius(CONTEXT).iter_hunks() {
        let _ = writeln!(out, "{}", styles.paint(styles.label, hunk.header()));
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
                let _ = writeln!(out, "{}", styles.paint(styles.dim, "\\ No newline at end of file"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_is_labelled_and_unified() {
        let out = unified("a\nb\nc\n", "a\nB\nc\n", "yours: x.py", "reference: y.py", &Styles::plain());
        assert_eq!(out, "--- yours: x.py\n+++ reference: y.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    }
}
