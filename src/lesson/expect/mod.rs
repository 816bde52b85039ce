//! The language a check uses to say what it wants of a value: expectations. Each one names a
//! place in the value by a dotted path (`error.isRetryable`, `content.0.tool_use_id`, `@args.1.id`
//! for a call's argument) and says one thing about what is there. A manifest's expectations are
//! read into well-formed ones as they load (`written`), matched against what the learner's code
//! returned or a run did (`matching`), and shown as the shape they describe (`shape`).

mod difference;
mod in_text;
mod matching;
mod path;
mod property;
mod roles;
mod shape;
mod verbatim;
mod written;

use std::collections::BTreeMap;
use std::ops::Deref;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

pub(crate) use matching::first_difference;
pub(crate) use property::Property;
pub(crate) use roles::{said, Wording};
pub(crate) use shape::expected_shape;
pub(crate) use verbatim::{quoted_piece, SHORTEST_PIECE};
pub(crate) use written::{Malformed, RawExpect};

/// One expectation on the value at a path (empty for the value itself). It is well formed: it
/// is only made from what a manifest wrote, once that was checked (`written`).
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "RawExpect")]
pub struct Expect {
    path: String,
    want: Want,
    /// The opposite: the expectation must not hold.
    not: bool,
}

/// What an expectation wants of the value at its path: one kind, with its modifiers.
#[derive(Debug, Clone)]
enum Want {
    /// Equal to this value (`"@args.N"`: to that argument of the call); with `any_order`, a list
    /// with the same elements, as many times each, in any order.
    Equals { value: Value, any_order: bool },
    /// The key must not be there.
    Absent,
    /// One of these values (or, with `or_absent`, no key at all).
    OneOf { options: Vec<Value>, or_absent: bool },
    /// A real `True` or `False`, not a string or a number.
    IsBool,
    /// As Python's `if` reads it.
    Truthy(bool),
    /// The object has no keys but these.
    OnlyKeys(Vec<String>),
    /// A string holding this text, or a list holding an element equal to this value.
    Contains(Value),
    /// Text found anywhere in the value: in any string it holds, at any depth, keys included. With
    /// `not`, a check that no part of what was built carries the text, wherever it was put.
    Mentions(String),
    /// A piece of this text (`SHORTEST_PIECE` characters or more, word for word) in any string
    /// of the value, keys included; each of `facts` (a text, or a list of texts) is cut out of
    /// both first, being what the learner is meant to name. With `not`, the promise that a
    /// failure's raw text stays out, masked or not.
    Quotes { raw: Value, facts: Vec<Value> },
    /// Each of these names (a text, a list of texts, or `"@args.N..."`) said in this role of a
    /// wording, somewhere in the value's text; with `not`, none of them is (`roles`). The
    /// wording that declares the role is found as the lesson loads (`Expect::word`).
    Names { names: Value, role: String, wording: Option<Arc<Wording>> },
    /// The lesson's property of that id holds of the value, read with the failure's facts found
    /// at `facts` (`"@args.1"`). The property is found as the lesson loads (`Expect::define`).
    Property { id: String, facts: String, property: Option<Arc<Property>> },
    /// The length of a list, a string (in characters) or an object (in keys), as Python's `len`.
    Length(Length),
    /// A list whose every element meets all of these (their paths start at the element).
    Each(Vec<Expect>),
    /// A list with at least one element that meets all of these.
    Any(Vec<Expect>),
}

/// The length a value must have: exact, or bounds (at least one of them).
#[derive(Debug, Clone, Copy)]
enum Length {
    Exact(usize),
    AtLeast(usize),
    AtMost(usize),
    Between(usize, usize),
}

impl Length {
    fn fits(self, n: usize) -> bool {
        match self {
            Length::Exact(want) => n == want,
            Length::AtLeast(low) => n >= low,
            Length::AtMost(high) => n <= high,
            Length::Between(low, high) => (low..=high).contains(&n),
        }
    }

    /// How long the value must be, in words.
    fn words(self) -> String {
        match self {
            Length::Exact(n) => format!("a length of {n}"),
            Length::Between(low, high) => format!("a length from {low} to {high}"),
            Length::AtLeast(low) => format!("a length of at least {low}"),
            Length::AtMost(high) => format!("a length of at most {high}"),
        }
    }
}

impl Expect {
    /// The expectation with every value it names passed through `f` (a lesson's `$sample`s).
    pub fn map_values(&self, f: &dyn Fn(&Value) -> Value) -> Expect {
        let inner = |list: &[Expect]| list.iter().map(|e| e.map_values(f)).collect();
        let want = match &self.want {
            Want::Equals { value, any_order } => {
                Want::Equals { value: f(value), any_order: *any_order }
            }
            Want::Contains(value) => Want::Contains(f(value)),
            Want::Mentions(text) => Want::Mentions(
                f(&Value::from(text.as_str())).as_str().map_or_else(|| text.clone(), String::from),
            ),
            Want::OneOf { options, or_absent } => {
                Want::OneOf { options: options.iter().map(f).collect(), or_absent: *or_absent }
            }
            Want::Quotes { raw, facts } => {
                let facts = facts.iter().map(f).collect();
                Want::Quotes { raw: f(raw), facts }
            }
            Want::Names { names, role, wording } => {
                Want::Names { names: f(names), role: role.clone(), wording: wording.clone() }
            }
            Want::Each(list) => Want::Each(inner(list)),
            Want::Any(list) => Want::Any(inner(list)),
            other => other.clone(),
        };
        Expect { path: self.path.clone(), want, not: self.not }
    }

    /// Give every `names ... as` in it (nested too) the wording that declares its role; each
    /// role no wording declares is returned, for the loader to refuse the lesson.
    pub(crate) fn word(&mut self, wordings: &[Arc<Wording>]) -> Vec<String> {
        match &mut self.want {
            Want::Names { role, wording, .. } => match wordings.iter().find(|w| w.has(role)) {
                Some(found) => {
                    *wording = Some(found.clone());
                    Vec::new()
                }
                None => vec![role.clone()],
            },
            Want::Each(list) | Want::Any(list) => {
                let missing = list.iter_mut().flat_map(|e| e.word(wordings));
                missing.collect()
            }
            _ => Vec::new(),
        }
    }

    /// Give every `property` in it (nested too) the lesson's property of that id; each id the
    /// lesson does not declare is returned, for the loader to refuse the lesson.
    pub(crate) fn define(&mut self, declared: &BTreeMap<String, Arc<Property>>) -> Vec<String> {
        match &mut self.want {
            Want::Property { id, property, .. } => match declared.get(id.as_str()) {
                Some(found) => {
                    *property = Some(found.clone());
                    Vec::new()
                }
                None => vec![id.clone()],
            },
            Want::Each(list) | Want::Any(list) => {
                list.iter_mut().flat_map(|e| e.define(declared)).collect()
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
impl Expect {
    /// An expectation made in a test, as its loader would have made it.
    fn on(path: &str, want: Want) -> Expect {
        Expect { path: path.into(), want, not: false }
    }

    fn negated(self) -> Expect {
        Expect { not: true, ..self }
    }
}

/// A list of expectations as a manifest writes it (`expect = [...]`), each read into an
/// `Expect`. One that is malformed is kept as why, for the loader to report with its check's
/// name and line and refuse the lesson: only well-formed expectations are ever matched.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(from = "Vec<RawExpect>")]
pub struct Expectations {
    read: Vec<Expect>,
    malformed: Vec<Malformed>,
}

impl From<Vec<RawExpect>> for Expectations {
    fn from(written: Vec<RawExpect>) -> Expectations {
        let mut list = Expectations::default();
        for raw in written {
            match Expect::try_from(raw) {
                Ok(e) => list.read.push(e),
                Err(why) => list.malformed.push(why),
            }
        }
        list
    }
}

impl Expectations {
    /// Whether the manifest wrote none, well formed or not.
    pub fn is_empty(&self) -> bool {
        self.read.is_empty() && self.malformed.is_empty()
    }

    /// Why each malformed one is, in the order they were written.
    pub(crate) fn malformed(&self) -> &[Malformed] {
        &self.malformed
    }

    /// `Expect::word` for each: the roles no wording declares.
    pub(crate) fn word(&mut self, wordings: &[Arc<Wording>]) -> Vec<String> {
        self.read.iter_mut().flat_map(|e| e.word(wordings)).collect()
    }

    /// `Expect::define` for each: the properties the lesson does not declare.
    pub(crate) fn define(&mut self, declared: &BTreeMap<String, Arc<Property>>) -> Vec<String> {
        self.read.iter_mut().flat_map(|e| e.define(declared)).collect()
    }
}

impl Deref for Expectations {
    type Target = [Expect];

    fn deref(&self) -> &[Expect] {
        &self.read
    }
}

impl<'a> IntoIterator for &'a Expectations {
    type Item = &'a Expect;
    type IntoIter = std::slice::Iter<'a, Expect>;

    fn into_iter(self) -> Self::IntoIter {
        self.read.iter()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::written::parse;

    #[test]
    fn values_are_mapped_everywhere_an_expectation_names_one() {
        let e = parse(
            r#"{ path = "a", any = [{ equals = "$x" }, { contains = "$x" }, { one_of = ["$x"] }, { each = [{ equals = "$x" }] }] }"#,
        );
        let mapped = e.map_values(&|v| if v == &json!("$x") { json!("filled") } else { v.clone() });
        let text = format!("{mapped:?}");
        assert!(!text.contains("$x") && text.matches("filled").count() == 4, "{text}");
    }

    #[test]
    fn a_list_keeps_why_each_malformed_expectation_is_and_matches_only_the_others() {
        #[derive(serde::Deserialize)]
        struct One {
            e: super::Expectations,
        }
        let list = toml::from_str::<One>(r#"e = [{ path = "a", equals = 1 }, { path = "b" }]"#)
            .map(|o| o.e);
        let list = list.unwrap_or_default();
        assert_eq!(list.len(), 1);
        assert!(!list.is_empty());
        assert_eq!(list.malformed().len(), 1);
        assert!(list.malformed()[0].to_string().contains("on 'b' must say exactly one of"));
    }

    #[test]
    fn one_expectation_read_on_its_own_is_refused_when_malformed() {
        #[derive(Debug, serde::Deserialize)]
        struct One {
            #[allow(dead_code)]
            e: super::Expect,
        }
        assert!(toml::from_str::<One>(r#"e = { path = "a", equals = 1 }"#).is_ok());
        let refused = toml::from_str::<One>(r#"e = { path = "a", len = 1, max_len = 2 }"#)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("'a' has len and min_len or max_len"), "{refused}");
    }
}
