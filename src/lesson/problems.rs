//! The problems found in a manifest while it loads, each placed at a line of it.

use crate::world::Problem;

/// The line of the first occurrence of `needle` in `text`, 1-based.
fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.find(needle).map(|at| text[..at].lines().count().max(1) + usize::from(text[..at].ends_with('\n')))
}

/// Problems found while loading, each to be placed at a line of the manifest.
#[derive(Default)]
pub(super) struct Problems {
    pub(super) found: Vec<Problem>,
}

impl Problems {
    pub(super) fn say(&mut self, near: impl Into<String>, why: impl Into<String>) {
        self.found.push(Problem::new(near, why));
    }

    pub(super) fn placed(self, text: &str) -> Vec<String> {
        self.found
            .into_iter()
            .map(|p| {
                let at = line_of(text, &p.near).map(|l| format!("line {l}: ")).unwrap_or_default();
                format!("{at}{}", p.why)
            })
            .collect()
    }
}
