//! An expectation as a manifest writes it, and the checks that make it an `Expect`: one kind,
//! its modifiers with it, a path that can be read, nested expectations themselves well formed.

use serde::Deserialize;
use serde_json::Value;

use super::{Expect, Length, Want};

/// An expectation as written: every kind and modifier is a key of its own, so any mix can be
/// read, and `Expect::try_from` says what is wrong with a mix that means nothing.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawExpect {
    #[serde(default)]
    path: String,
    #[serde(default)]
    equals: Option<Value>,
    #[serde(default)]
    any_order: bool,
    #[serde(default)]
    absent: bool,
    #[serde(default)]
    one_of: Option<Vec<Value>>,
    #[serde(default)]
    or_absent: bool,
    #[serde(default)]
    is_bool: bool,
    #[serde(default)]
    truthy: Option<bool>,
    #[serde(default)]
    only_keys: Option<Vec<String>>,
    #[serde(default)]
    contains: Option<Value>,
    #[serde(default)]
    mentions: Option<String>,
    #[serde(default)]
    quotes: Option<Value>,
    /// With `quotes`: what the learner may name although the raw text holds it.
    #[serde(default, rename = "except")]
    facts: Option<Vec<Value>>,
    /// With `as`: the names whose role is asked.
    #[serde(default)]
    names: Option<Value>,
    #[serde(default, rename = "as")]
    role: Option<String>,
    /// A property of the lesson's `[properties]`, by id.
    #[serde(default)]
    property: Option<String>,
    /// With `property`: where the failure's facts are (`"@args.1"`).
    #[serde(default, rename = "facts")]
    property_facts: Option<String>,
    #[serde(default)]
    len: Option<usize>,
    #[serde(default)]
    min_len: Option<usize>,
    #[serde(default)]
    max_len: Option<usize>,
    #[serde(default)]
    each: Option<Vec<RawExpect>>,
    #[serde(default)]
    any: Option<Vec<RawExpect>>,
    #[serde(default)]
    not: bool,
}

/// The words for the expectation kinds, in the order a message lists them.
const KINDS: &str = "equals, absent, one_of, is_bool, truthy, only_keys, contains, mentions, \
    quotes, names (with as), property, len (or min_len and max_len), each or any";

/// Why a written expectation means nothing; `on` is its path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Malformed {
    #[error(
        "the path '{0}' has an empty part: join keys and list positions with single dots, like content.0.tool_use_id"
    )]
    EmptyPart(String),
    #[error(
        "the path '{0}' starts with '@': only @args.N (N the argument's position, from 0) reads a call's argument"
    )]
    NotAnArgument(String),
    #[error("an expectation on '{0}' must say exactly one of {KINDS}")]
    NotOneKind(String),
    #[error("or_absent on '{0}' goes with one_of")]
    OrAbsentAlone(String),
    #[error("any_order on '{0}' goes with equals of a list (or an \"@args.N\" that is one)")]
    AnyOrderAlone(String),
    #[error("except on '{0}' goes with quotes: it names what the learner may say of the raw text")]
    ExceptAlone(String),
    #[error("names on '{0}' goes with as: the role, of a [[wording]], each name must be said in")]
    NamesAlone(String),
    #[error("as on '{0}' goes with names: the names said in that role")]
    AsAlone(String),
    #[error(
        "facts on '{0}' goes with property: where the failure's facts are, such as \"@args.1\""
    )]
    FactsAlone(String),
    #[error("facts on '{on}' must read a call's argument, such as \"@args.1\", not '{facts}'")]
    FactsNotAnArgument { on: String, facts: String },
    #[error("'{0}' has len and min_len or max_len: give either an exact length or bounds")]
    LenAndBounds(String),
    #[error("'{on}' has min_len {low} above max_len {high}: no length fits")]
    NoLengthFits { on: String, low: usize, high: usize },
    /// The value an `equals` or `contains` names is an argument reference that cannot be read.
    #[error("the value of '{on}': {why}")]
    Reference { on: String, why: Box<Malformed> },
    #[error("'{on}' has an empty {word}: give the expectations each element is held to")]
    EmptyList { on: String, word: &'static str },
    /// An expectation nested in `each` or `any` is itself malformed.
    #[error("in {word} of '{on}': {why}")]
    Nested { word: &'static str, on: String, why: Box<Malformed> },
}

impl TryFrom<RawExpect> for Expect {
    type Error = Malformed;

    fn try_from(raw: RawExpect) -> Result<Expect, Malformed> {
        raw.check_shape()?;
        let (path, not) = (raw.path.clone(), raw.not);
        let want = raw.want(&path)?;
        Ok(Expect { path, want, not })
    }
}

impl RawExpect {
    /// Everything but the nested expectations: one kind, its modifiers with it, paths that can
    /// be read.
    fn check_shape(&self) -> Result<(), Malformed> {
        check_path(&self.path)?;
        let on = || self.path.clone();
        let sizes = self.len.is_some() || self.min_len.is_some() || self.max_len.is_some();
        let kinds = [
            self.equals.is_some(),
            self.absent,
            self.one_of.is_some(),
            self.is_bool,
            self.truthy.is_some(),
            self.only_keys.is_some(),
            self.contains.is_some(),
            self.mentions.is_some(),
            self.quotes.is_some(),
            self.names.is_some(),
            self.property.is_some(),
            sizes,
            self.each.is_some(),
            self.any.is_some(),
        ];
        match (&self.names, &self.role) {
            (Some(_), None) => return Err(Malformed::NamesAlone(on())),
            (None, Some(_)) => return Err(Malformed::AsAlone(on())),
            _ => {}
        }
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err(Malformed::NotOneKind(on()));
        }
        if self.or_absent && self.one_of.is_none() {
            return Err(Malformed::OrAbsentAlone(on()));
        }
        let list_or_reference = match &self.equals {
            Some(Value::Array(_)) => true,
            Some(Value::String(s)) => s.starts_with('@'),
            _ => false,
        };
        if self.any_order && !list_or_reference {
            return Err(Malformed::AnyOrderAlone(on()));
        }
        if self.facts.is_some() && self.quotes.is_none() {
            return Err(Malformed::ExceptAlone(on()));
        }
        self.check_property()?;
        if self.len.is_some() && (self.min_len.is_some() || self.max_len.is_some()) {
            return Err(Malformed::LenAndBounds(on()));
        }
        if let (Some(low), Some(high)) = (self.min_len, self.max_len) {
            if low > high {
                return Err(Malformed::NoLengthFits { on: on(), low, high });
            }
        }
        let facts = self.facts.iter().flatten();
        let named = self.equals.iter().chain(&self.contains).chain(&self.quotes).chain(&self.names);
        for want in named.chain(facts) {
            if let Some(reference) = want.as_str().filter(|s| s.starts_with('@')) {
                check_path(reference)
                    .map_err(|why| Malformed::Reference { on: on(), why: Box::new(why) })?;
            }
        }
        Ok(())
    }

    /// `facts` goes with `property`, and reads a call's argument.
    fn check_property(&self) -> Result<(), Malformed> {
        let on = || self.path.clone();
        if self.property_facts.is_some() && self.property.is_none() {
            return Err(Malformed::FactsAlone(on()));
        }
        if let Some(facts) = &self.property_facts {
            check_path(facts)?;
            if !facts.starts_with("@args.") {
                return Err(Malformed::FactsNotAnArgument { on: on(), facts: facts.clone() });
            }
        }
        Ok(())
    }

    /// The one kind the shape checks found, its nested expectations read in turn.
    fn want(self, on: &str) -> Result<Want, Malformed> {
        let nested =
            |word: &'static str, inner: Vec<RawExpect>| -> Result<Vec<Expect>, Malformed> {
                if inner.is_empty() {
                    return Err(Malformed::EmptyList { on: on.to_string(), word });
                }
                let read = |e| {
                    Expect::try_from(e).map_err(|why| Malformed::Nested {
                        word,
                        on: on.to_string(),
                        why: Box::new(why),
                    })
                };
                inner.into_iter().map(read).collect()
            };
        let length = match (self.len, self.min_len, self.max_len) {
            (Some(n), _, _) => Some(Length::Exact(n)),
            (None, Some(low), Some(high)) => Some(Length::Between(low, high)),
            (None, Some(low), None) => Some(Length::AtLeast(low)),
            (None, None, Some(high)) => Some(Length::AtMost(high)),
            (None, None, None) => None,
        };
        Ok(if let Some(value) = self.equals {
            Want::Equals { value, any_order: self.any_order }
        } else if self.absent {
            Want::Absent
        } else if let Some(options) = self.one_of {
            Want::OneOf { options, or_absent: self.or_absent }
        } else if self.is_bool {
            Want::IsBool
        } else if let Some(yes) = self.truthy {
            Want::Truthy(yes)
        } else if let Some(keys) = self.only_keys {
            Want::OnlyKeys(keys)
        } else if let Some(value) = self.contains {
            Want::Contains(value)
        } else if let Some(text) = self.mentions {
            Want::Mentions(text)
        } else if let Some(raw) = self.quotes {
            Want::Quotes { raw, facts: self.facts.unwrap_or_default() }
        } else if let (Some(names), Some(role)) = (self.names, self.role) {
            Want::Names { names, role, wording: None }
        } else if let Some(id) = self.property {
            let facts = self.property_facts.unwrap_or_else(|| DEFAULT_FACTS.to_string());
            Want::Property { id, facts, property: None }
        } else if let Some(length) = length {
            Want::Length(length)
        } else if let Some(inner) = self.each {
            Want::Each(nested("each", inner)?)
        } else if let Some(inner) = self.any {
            Want::Any(nested("any", inner)?)
        } else {
            return Err(Malformed::NotOneKind(on.to_string()));
        })
    }
}

/// Where a check's `property` finds the failure's facts when it does not say: the second
/// argument, as a lesson's `message(kind, facts)` is called.
const DEFAULT_FACTS: &str = "@args.1";

/// A path's syntax: keys and list positions joined by single dots, and `@args.N` for the N-th
/// argument of the call. Whether a key is there, or a position is in range, is only known when
/// the value is.
fn check_path(path: &str) -> Result<(), Malformed> {
    if path.is_empty() {
        return Ok(());
    }
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(Malformed::EmptyPart(path.to_string()));
    }
    // A property's expectations read a fact by name (`@facts.until`).
    if parts[0] == "@facts" && parts.len() > 1 {
        return Ok(());
    }
    if parts[0].starts_with('@') {
        let numbered = parts.get(1).is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
        if parts[0] != "@args" || !numbered {
            return Err(Malformed::NotAnArgument(path.to_string()));
        }
    }
    Ok(())
}

/// An expectation written in TOML (`{ path = "a", equals = 1 }`), read as a manifest's is.
#[cfg(test)]
pub(super) fn read(toml_text: &str) -> Result<Expect, Malformed> {
    #[derive(Deserialize)]
    struct One {
        e: RawExpect,
    }
    let raw = toml::from_str::<One>(&format!("e = {toml_text}")).expect("an expectation's keys").e;
    Expect::try_from(raw)
}

/// A well-formed expectation written in TOML.
#[cfg(test)]
pub(super) fn parse(toml_text: &str) -> Expect {
    read(toml_text).expect("a well-formed expectation")
}

#[cfg(test)]
mod tests {
    use super::read;

    fn invalid(toml_text: &str) -> String {
        read(toml_text).expect_err(toml_text).to_string()
    }

    #[test]
    fn malformed_paths_and_shapes_are_refused_at_load() {
        assert!(invalid(r#"{ path = "a..b", equals = 1 }"#)
            .contains("the path 'a..b' has an empty part"));
        assert!(invalid(r#"{ path = "a.", equals = 1 }"#).contains("empty part"));
        assert!(invalid(r#"{ path = ".a", equals = 1 }"#).contains("empty part"));
        assert!(invalid(r#"{ path = "@args", equals = 1 }"#).contains("only @args.N"));
        assert!(invalid(r#"{ path = "@args.x", equals = 1 }"#).contains("only @args.N"));
        assert!(invalid(r#"{ path = "@result.0", equals = 1 }"#).contains("only @args.N"));
        assert!(invalid(r#"{ path = "a", equals = "@args.first" }"#)
            .contains("the value of 'a': the path '@args.first'"));
        assert!(invalid(r#"{ path = "a", contains = "@args..0" }"#).contains("empty part"));
        assert!(invalid(r#"{ path = "a" }"#).contains("must say exactly one of"));
        assert!(invalid(r#"{ path = "a", equals = 1, contains = 1 }"#).contains("exactly one of"));
        assert!(invalid(r#"{ path = "a", len = 1, each = [{ equals = 1 }] }"#)
            .contains("exactly one of"));
        assert!(invalid(r#"{ path = "a", len = 1, min_len = 0 }"#)
            .contains("either an exact length or bounds"));
        assert!(invalid(r#"{ path = "a", min_len = 3, max_len = 2 }"#)
            .contains("min_len 3 above max_len 2"));
        assert!(invalid(r#"{ path = "a", equals = 1, any_order = true }"#)
            .contains("any_order on 'a' goes with equals of a list"));
        assert!(
            invalid(r#"{ path = "a", one_of = [[1]], any_order = true }"#).contains("any_order")
        );
        assert!(invalid(r#"{ path = "a", equals = "ab", any_order = true }"#).contains("any_order"));
        assert!(invalid(r#"{ path = "a", is_bool = true, or_absent = true }"#)
            .contains("or_absent on 'a' goes with one_of"));
        let alone = invalid(r#"{ path = "a", mentions = "x", except = ["y"] }"#);
        assert!(alone.contains("except on 'a' goes with quotes"), "{alone}");
        let broken = invalid(r#"{ quotes = "@args.1.raw", except = ["@args..x"] }"#);
        assert!(broken.contains("empty part"), "{broken}");
        assert!(invalid(r#"{ quotes = "x", contains = "x" }"#).contains("exactly one of"));
        assert!(invalid(r#"{ names = "@args.1.done" }"#).contains("names on '' goes with as"));
        assert!(invalid(r#"{ path = "a", as = "done" }"#).contains("as on 'a' goes with names"));
        assert!(invalid(r#"{ names = "@args..x", as = "done" }"#).contains("empty part"));
        let two = invalid(r#"{ names = "x", as = "done", contains = "x" }"#);
        assert!(two.contains("exactly one of"), "{two}");
        assert!(invalid(r#"{ path = "a", facts = "@args.1", contains = "x" }"#)
            .contains("facts on 'a' goes with property"));
        assert!(invalid(r#"{ property = "p", facts = "raw" }"#).contains("must read a call's"));
        assert!(invalid(r#"{ property = "p", len = 2 }"#).contains("exactly one of"));
        assert!(invalid(r#"{ path = "a", each = [] }"#).contains("'a' has an empty each"));
        assert_eq!(invalid(r#"{ path = "a", any = [{ path = "b", each = [{ path = "c..d", absent = true }] }] }"#),
            "in any of 'a': in each of 'b': the path 'c..d' has an empty part: join keys and list positions with single dots, like content.0.tool_use_id");
        for good in [
            r#"{ path = "content.0.tool_use_id", equals = "@args.0.1.id" }"#,
            r#"{ path = "@args.0.1.id", contains = "toolu" }"#,
            r#"{ path = "a", min_len = 1, max_len = 1 }"#,
            r#"{ path = "a", equals = "@args.0", any_order = true }"#,
            r#"{ path = "a", any = [{ path = "b", each = [{ truthy = true, not = true }] }] }"#,
            r#"{ quotes = "@args.1.raw", except = ["@args.1.value", "15:30"], not = true }"#,
            r#"{ names = "@args.1.left", as = "done", not = true }"#,
            r#"{ path = "content", names = ["checkout-1", "checkout-2"], as = "done" }"#,
            r#"{ property = "names-done" }"#,
            r#"{ property = "names-done", facts = "@args.0", not = true }"#,
            r#"{ contains = "@facts.until" }"#,
        ] {
            assert!(read(good).is_ok(), "{good}");
        }
    }
}
