//! Where a value differs from what was expected, in words: what was wanted there ("expected
//! ...", "must not be ..."), what was there, and for a text, the piece it quotes or the role it
//! names a name in.

use serde_json::Value;

use super::path::named;
use super::{Expect, Want, SHORTEST_PIECE};
use crate::text::pyrepr;

/// What the value at an expectation's path must be, in words that follow "expected" (or, for a
/// negated one, "must not be").
pub(super) fn wanted(e: &Expect, value: Option<&Value>, args: &[Value]) -> String {
    let missing = || "missing".to_string();
    let shown = |want: &Value| named(want, args).map(pyrepr::repr).unwrap_or_else(missing);
    match &e.want {
        Want::Equals { value: want, any_order: true } => format!("{} in any order", shown(want)),
        Want::Equals { value: want, any_order: false } => shown(want),
        Want::OneOf { options, or_absent } => {
            let mut words: Vec<String> = options.iter().map(pyrepr::repr).collect();
            if *or_absent {
                words.push("missing".into());
            }
            format!("one of {}", words.join(", "))
        }
        Want::Truthy(true) => "a yes (True)".into(),
        Want::Truthy(false) => "a no (False)".into(),
        Want::OnlyKeys(keys) => {
            let repr = |k: &String| pyrepr::repr(&Value::from(k.as_str()));
            let keys: Vec<String> = keys.iter().map(repr).collect();
            format!("an object with no keys but {}", keys.join(", "))
        }
        Want::Contains(want) => {
            let what = if value.is_some_and(Value::is_string) { "a string" } else { "a list" };
            format!("{what} containing {}", shown(want))
        }
        Want::Mentions(text) => {
            let text = pyrepr::repr(&Value::from(text.as_str()));
            format!("a value with {text} somewhere in its text")
        }
        Want::Quotes { raw, .. } => {
            let raw = named(raw, args).and_then(Value::as_str).unwrap_or_default();
            let raw = crate::text::shorten::shorten_text(raw, RAW_SHOWN);
            let raw = pyrepr::repr(&Value::from(raw));
            format!("{SHORTEST_PIECE} characters or more in a row of {raw}")
        }
        Want::Names { names, role, .. } => {
            let names = named(names, args).map(pyrepr::repr).unwrap_or_else(|| "missing".into());
            format!("each of {names} named as {role}")
        }
        Want::Property { id, .. } => format!("a message that holds {id}"),
        Want::Length(want) => want.words(),
        Want::Each(inner) => format!("a list where every element {}", clauses(inner, args)),
        Want::Any(inner) => format!("a list with an element that {}", clauses(inner, args)),
        Want::IsBool => "a real bool, True or False".into(),
        Want::Absent => "missing".into(),
    }
}

/// Nested expectations as one clause about an element: "has type 'tool_result' and is ...".
fn clauses(inner: &[Expect], args: &[Value]) -> String {
    let words: Vec<String> = inner
        .iter()
        .map(|e| {
            let not = if e.not { "not " } else { "" };
            let want = wanted(e, None, args);
            if e.path.is_empty() {
                format!("is {not}{want}")
            } else {
                format!("has {} {not}{want}", e.path)
            }
        })
        .collect();
    words.join(" and ")
}

/// Characters of a raw text shown in what a `quotes` wanted: enough to tell which text it is.
const RAW_SHOWN: usize = 40;

/// Characters of a quoted piece shown: the piece is the longest, so a whole trace can be one.
pub(super) const PIECE_SHOWN: usize = 80;

/// The first place where `got` differs from what was expected.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Difference {
    pub path: String,
    /// What was expected there, in words (for a negated expectation: what must not be there).
    pub want: String,
    /// `None`: the key is missing.
    pub got: Option<Value>,
    /// The expectation was negated, and what it names is what was there.
    pub negated: bool,
    /// What was wanted is a length (which a value has, rather than is).
    pub length: bool,
    /// For a negated `quotes`: the piece of the raw text that was there, word for word.
    pub quoted: Option<String>,
    /// For `names ... as` and `property`: the verdict in words (for a role, with the name and
    /// the clause that break it).
    pub roles: Option<String>,
}

impl Difference {
    pub(super) fn unmet(path: &str, want: String, got: Option<&Value>) -> Difference {
        let got = got.cloned();
        let path = path.to_string();
        Difference { path, want, got, negated: false, length: false, quoted: None, roles: None }
    }

    /// "expected …", or "must not be …" (or "must not have …" for a length) when negated.
    pub(crate) fn verdict(&self) -> String {
        if let Some(verdict) = &self.roles {
            return verdict.clone();
        }
        if let (true, Some(piece)) = (self.negated, &self.quoted) {
            let piece = crate::text::shorten::shorten_text(piece, PIECE_SHOWN);
            let piece = pyrepr::repr(&Value::from(piece));
            return format!("must not quote {}: it carries {piece}, word for word", self.want);
        }
        match (self.negated, self.length) {
            (false, _) => format!("expected {}", self.want),
            (true, false) => format!("must not be {}", self.want),
            (true, true) => format!("must not have {}", self.want),
        }
    }
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() { "the result" } else { &self.path };
        match &self.got {
            Some(v) => {
                let got = pyrepr::repr(&crate::text::shorten::shorten(v));
                write!(f, "{path}: {}, got {got}", self.verdict())
            }
            // A negated expectation that fails on a missing key needs no "got": missing is the
            // point.
            None if self.negated => write!(f, "{path}: {}", self.verdict()),
            None => write!(f, "{path}: {}, got missing", self.verdict()),
        }
    }
}
