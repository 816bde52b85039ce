//! The problems found in a manifest while it loads, each placed at a line of it: by the path of
//! keys it is about, found with the TOML parser's spans (text that only mentions an id may come
//! much earlier than the entry that is wrong).

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::world::Problem;

/// One step of a path into the manifest: a key of a table, or an entry of an array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum PathStep {
    Key(String),
    Index(usize),
}

/// Where in the manifest a problem is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Near {
    /// A path of keys: the line of the deepest step the manifest has.
    Path(Vec<PathStep>),
    /// Text the manifest holds: the line of its first occurrence (the world's problems, which
    /// know the manifest's data but not its paths).
    Text(String),
}

impl Near {
    /// The path that starts at a top-level key.
    pub(super) fn key(key: &str) -> Near {
        Near::Path(vec![PathStep::Key(key.to_string())])
    }

    /// An entry of an array of tables (`[[tickets]]`) at a top-level key.
    pub(super) fn entry(key: &str, index: usize) -> Near {
        Near::key(key).at(index)
    }

    /// One key further down.
    pub(super) fn then(self, key: &str) -> Near {
        self.push(PathStep::Key(key.to_string()))
    }

    /// One entry further down.
    pub(super) fn at(self, index: usize) -> Near {
        self.push(PathStep::Index(index))
    }

    fn push(self, step: PathStep) -> Near {
        match self {
            Near::Path(mut steps) => {
                steps.push(step);
                Near::Path(steps)
            }
            text => text,
        }
    }
}

/// The line of the first occurrence of `needle` in `text`, 1-based.
fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.find(needle).map(|at| line_at(text, at))
}

/// The 1-based line of byte `at` of `text`.
fn line_at(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Where the deepest step of `path` that the document has starts, in bytes.
fn start_of(document: &Spanned<DeTable<'_>>, path: &[PathStep]) -> Option<usize> {
    let mut found = None;
    let mut value: Option<&DeValue<'_>> = None;
    for step in path {
        let next: &Spanned<DeValue<'_>> = match (step, value) {
            (PathStep::Key(key), None) => {
                let (name, v) = document.get_ref().get_key_value(key.as_str())?;
                found = Some(name.span().start);
                v
            }
            (PathStep::Key(key), Some(DeValue::Table(table))) => {
                let Some((name, v)) = table.get_key_value(key.as_str()) else { return found };
                found = Some(name.span().start);
                v
            }
            (PathStep::Index(i), Some(DeValue::Array(items))) => match items.get(*i) {
                Some(v) => v,
                None => return found,
            },
            _ => return found,
        };
        // A table under a key starts where the key does; an entry of an array starts itself.
        let table = matches!(next.get_ref(), DeValue::Table(_));
        let table_under_key = table && matches!(step, PathStep::Key(_));
        if !next.span().is_empty() && !table_under_key {
            found = Some(next.span().start);
        }
        value = Some(next.get_ref());
    }
    found
}

/// Problems found while loading, each to be placed at a line of the manifest.
#[derive(Default)]
pub(super) struct Problems {
    pub(super) found: Vec<(Near, String)>,
}

impl Problems {
    pub(super) fn say(&mut self, near: Near, why: impl Into<String>) {
        self.found.push((near, why.into()));
    }

    /// The world's problems, placed by the text each names.
    pub(super) fn from_world(found: Vec<Problem>) -> Problems {
        Problems { found: found.into_iter().map(|p| (Near::Text(p.near), p.why)).collect() }
    }

    pub(super) fn placed(self, text: &str) -> Vec<String> {
        let document = DeTable::parse(text).ok();
        self.found
            .into_iter()
            .map(|(near, why)| {
                let line = match &near {
                    Near::Text(needle) => line_of(text, needle),
                    Near::Path(path) => {
                        let start = document.as_ref().and_then(|d| start_of(d, path));
                        start.map(|at| line_at(text, at))
                    }
                };
                let at = line.map(|l| format!("line {l}: ")).unwrap_or_default();
                format!("{at}{why}")
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{Near, Problems};

    const MANIFEST: &str = "id = \"late\"\ntitle = \"t\"\n\n[[tickets]]\nid = \"early\"\n\n\
        [[tickets]]\nid = \"late\"\ntools = [\"a\", \"b\"]\n\n[hooks.build]\nfunction = \"f\"\n";

    fn line(near: Near) -> String {
        let mut problems = Problems::default();
        problems.say(near, "why");
        problems.placed(MANIFEST).remove(0)
    }

    #[test]
    fn a_problem_is_placed_at_its_own_entry_not_the_first_mention() {
        // "late" is the lesson's id on line 1 too; the ticket's own id is on line 8.
        assert_eq!(line(Near::entry("tickets", 1).then("id")), "line 8: why");
        assert_eq!(line(Near::entry("tickets", 0).then("id")), "line 5: why");
        assert_eq!(line(Near::entry("tickets", 1).then("tools").at(1)), "line 9: why");
        assert_eq!(line(Near::key("hooks").then("build").then("function")), "line 12: why");
        assert_eq!(line(Near::key("hooks").then("build")), "line 11: why");
    }

    #[test]
    fn a_key_the_manifest_lacks_is_placed_at_the_nearest_it_has() {
        assert_eq!(line(Near::entry("tickets", 1).then("predict")), "line 7: why");
        assert_eq!(line(Near::key("nowhere")), "why");
        assert_eq!(line(Near::Text("title =".into())), "line 2: why");
    }
}
