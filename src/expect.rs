//! Expectations: what a lesson's check wants of a value. Each one names a place in the value by
//! a dotted path (`error.isRetryable`, `content.0.tool_use_id`, `@args.1.id` for a call's
//! argument) and says one thing about what is there. They are checked for shape when the lesson
//! loads, and matched here against what the learner's code returned or a run did.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::pyrepr::{self, truthy};

/// One expectation on a value at a path (empty for the value itself).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub equals: Option<Value>,
    /// With `equals` of a list: the same elements, as many times each, in any order.
    #[serde(default)]
    pub any_order: bool,
    /// The key must not be there.
    #[serde(default)]
    pub absent: bool,
    /// One of these values (or, with `or_absent`, no key at all).
    #[serde(default)]
    pub one_of: Option<Vec<Value>>,
    #[serde(default)]
    pub or_absent: bool,
    /// A real `True` or `False`, not a string or a number.
    #[serde(default)]
    pub is_bool: bool,
    /// As Python's `if` reads it.
    #[serde(default)]
    pub truthy: Option<bool>,
    /// The object has no keys but these.
    #[serde(default)]
    pub only_keys: Option<Vec<String>>,
    /// A string holding this text, or a list holding an element equal to this value.
    #[serde(default)]
    pub contains: Option<Value>,
    /// Text found anywhere in the value: in any string it holds, at any depth, keys included. With
    /// `not`, a check that no part of what was built carries the text, wherever it was put.
    #[serde(default)]
    pub mentions: Option<String>,
    /// The length of a list, a string (in characters) or an object (in keys), as Python's `len`.
    #[serde(default)]
    pub len: Option<usize>,
    #[serde(default)]
    pub min_len: Option<usize>,
    #[serde(default)]
    pub max_len: Option<usize>,
    /// A list whose every element meets all of these (their paths start at the element).
    #[serde(default)]
    pub each: Option<Vec<Expect>>,
    /// A list with at least one element that meets all of these.
    #[serde(default)]
    pub any: Option<Vec<Expect>>,
    /// The opposite: the expectation must not hold.
    #[serde(default)]
    pub not: bool,
}

/// The words for the expectation kinds, in the order a message lists them.
const KINDS: &str =
    "equals, absent, one_of, is_bool, truthy, only_keys, contains, mentions, len (or min_len and max_len), each or any";

impl Expect {
    /// Whether the expectation is well formed: one kind, its modifiers with it, a path that can
    /// be read, nested expectations that are themselves well formed.
    pub fn validate(&self) -> Result<(), String> {
        check_path(&self.path)?;
        let on = &self.path;
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
            sizes,
            self.each.is_some(),
            self.any.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err(format!("an expectation on '{on}' must say exactly one of {KINDS}"));
        }
        if self.or_absent && self.one_of.is_none() {
            return Err(format!("or_absent on '{on}' goes with one_of"));
        }
        let list_or_reference = match &self.equals {
            Some(Value::Array(_)) => true,
            Some(Value::String(s)) => s.starts_with('@'),
            _ => false,
        };
        if self.any_order && !list_or_reference {
            return Err(format!("any_order on '{on}' goes with equals of a list (or an \"@args.N\" that is one)"));
        }
        if self.len.is_some() && (self.min_len.is_some() || self.max_len.is_some()) {
            return Err(format!("'{on}' has len and min_len or max_len: give either an exact length or bounds"));
        }
        if let (Some(low), Some(high)) = (self.min_len, self.max_len) {
            if low > high {
                return Err(format!("'{on}' has min_len {low} above max_len {high}: no length fits"));
            }
        }
        for want in self.equals.iter().chain(&self.contains) {
            if let Some(reference) = want.as_str().filter(|s| s.starts_with('@')) {
                check_path(reference).map_err(|why| format!("the value of '{on}': {why}"))?;
            }
        }
        for (word, inner) in [("each", &self.each), ("any", &self.any)] {
            let Some(inner) = inner else { continue };
            if inner.is_empty() {
                return Err(format!("'{on}' has an empty {word}: give the expectations each element is held to"));
            }
            for e in inner {
                e.validate().map_err(|why| format!("in {word} of '{on}': {why}"))?;
            }
        }
        Ok(())
    }

    /// The expectation with every value it names passed through `f` (a lesson's `$sample`s).
    pub fn map_values(&self, f: &dyn Fn(&Value) -> Value) -> Expect {
        let mut e = self.clone();
        e.equals = e.equals.map(|v| f(&v));
        e.contains = e.contains.map(|v| f(&v));
        e.mentions = e.mentions.map(|t| f(&Value::from(t.as_str())).as_str().map_or(t, String::from));
        e.one_of = e.one_of.map(|vs| vs.iter().map(f).collect());
        let inner = |list: Option<Vec<Expect>>| list.map(|es| es.iter().map(|x| x.map_values(f)).collect());
        e.each = inner(e.each);
        e.any = inner(e.any);
        e
    }

    /// How long the value must be, in words, when the expectation is about a length.
    fn length_words(&self) -> Option<String> {
        Some(match (self.len, self.min_len, self.max_len) {
            (Some(n), _, _) => format!("a length of {n}"),
            (None, Some(low), Some(high)) => format!("a length from {low} to {high}"),
            (None, Some(low), None) => format!("a length of at least {low}"),
            (None, None, Some(high)) => format!("a length of at most {high}"),
            (None, None, None) => return None,
        })
    }
}

/// A path's syntax: keys and list positions joined by single dots, and `@args.N` for the N-th
/// argument of the call. Whether a key is there, or a position is in range, is only known when
/// the value is.
fn check_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Ok(());
    }
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(format!(
            "the path '{path}' has an empty part: join keys and list positions with single dots, like content.0.tool_use_id"
        ));
    }
    if parts[0].starts_with('@') {
        let numbered = parts.get(1).is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
        if parts[0] != "@args" || !numbered {
            return Err(format!(
                "the path '{path}' starts with '@': only @args.N (N the argument's position, from 0) reads a call's argument"
            ));
        }
    }
    Ok(())
}

/// The value at a dotted path: a key of an object, or a position (from 0) in a list; `@args.N`
/// is the call's N-th argument.
fn at<'v>(got: &'v Value, args: &'v [Value], path: &str) -> Option<&'v Value> {
    if path.is_empty() {
        return Some(got);
    }
    if let Some(rest) = path.strip_prefix("@args.") {
        let (index, tail) = rest.split_once('.').unwrap_or((rest, ""));
        let arg = args.get(index.parse::<usize>().ok()?)?;
        return at(arg, &[], tail);
    }
    path.split('.').try_fold(got, |v, part| match v {
        Value::Object(map) => map.get(part),
        Value::Array(items) => items.get(part.parse::<usize>().ok()?),
        _ => None,
    })
}

/// The first expectation that does not hold.
pub(crate) fn first_difference(expect: &[Expect], got: &Value, args: &[Value]) -> Result<(), Box<Difference>> {
    for e in expect {
        let value = at(got, args, &e.path);
        match (holds(e, value, args), e.not) {
            (Ok(()), false) | (Err(_), true) => {}
            (Err(d), false) => return Err(d),
            (Ok(()), true) => {
                return Err(Box::new(Difference {
                    path: e.path.clone(),
                    want: wanted(e, value, args),
                    got: value.cloned(),
                    negated: true,
                }))
            }
        }
    }
    Ok(())
}

/// A value an expectation names: `"@args.N..."` is the call's argument, anything else itself.
fn named<'v>(want: &'v Value, args: &'v [Value]) -> Option<&'v Value> {
    match want.as_str() {
        Some(path) if path.starts_with('@') => at(&Value::Null, args, path),
        _ => Some(want),
    }
}

/// `path` with `tail` after it: a list position or a nested expectation's own path.
fn join(path: &str, tail: &str) -> String {
    match (path.is_empty(), tail.is_empty()) {
        (_, true) => path.to_string(),
        (true, false) => tail.to_string(),
        (false, false) => format!("{path}.{tail}"),
    }
}

/// The same elements, each as many times, in any order.
fn same_items(want: &[Value], got: &[Value]) -> bool {
    let mut left: Vec<&Value> = got.iter().collect();
    want.len() == got.len()
        && want.iter().all(|w| match left.iter().position(|g| *g == w) {
            Some(i) => {
                left.swap_remove(i);
                true
            }
            None => false,
        })
}

/// Python's `len`, for the values that have one.
fn length(value: &Value) -> Option<usize> {
    match value {
        Value::Array(items) => Some(items.len()),
        Value::String(text) => Some(text.chars().count()),
        Value::Object(map) => Some(map.len()),
        _ => None,
    }
}

/// Whether any string in `value` (keys too, at any depth) holds `text`.
fn mentioned(value: &Value, text: &str) -> bool {
    match value {
        Value::String(s) => s.contains(text),
        Value::Array(items) => items.iter().any(|v| mentioned(v, text)),
        Value::Object(map) => map.iter().any(|(k, v)| k.contains(text) || mentioned(v, text)),
        _ => false,
    }
}

/// Whether one expectation holds of the value at its path; if not, the first place where it
/// fails (deeper than its path for `only_keys` and `each`), what was wanted and what was there.
fn holds(e: &Expect, value: Option<&Value>, args: &[Value]) -> Result<(), Box<Difference>> {
    let miss = || Err(Box::new(Difference::unmet(&e.path, wanted(e, value, args), value)));
    if let Some(want) = &e.equals {
        let ok = match (named(want, args), value) {
            (Some(Value::Array(w)), Some(Value::Array(v))) if e.any_order => same_items(w, v),
            (Some(w), Some(v)) => !e.any_order && w == v,
            _ => false,
        };
        if !ok {
            return miss();
        }
    } else if e.absent {
        if value.is_some() {
            return miss();
        }
    } else if let Some(options) = &e.one_of {
        let ok = match value {
            Some(v) => options.contains(v),
            None => e.or_absent,
        };
        if !ok {
            return miss();
        }
    } else if e.is_bool {
        if !matches!(value, Some(Value::Bool(_))) {
            return miss();
        }
    } else if let Some(yes) = e.truthy {
        if value.map(truthy).unwrap_or(false) != yes {
            return miss();
        }
    } else if let Some(keys) = &e.only_keys {
        if let Some(extra) = value.and_then(Value::as_object).and_then(|o| o.keys().find(|k| !keys.contains(k))) {
            let got = value.and_then(|v| v.get(extra));
            return Err(Box::new(Difference::unmet(&join(&e.path, extra), "missing".into(), got)));
        }
    } else if let Some(want) = &e.contains {
        let ok = match (value, named(want, args)) {
            (Some(Value::String(text)), Some(Value::String(part))) => text.contains(part.as_str()),
            (Some(Value::Array(items)), Some(w)) => items.contains(w),
            _ => false,
        };
        if !ok {
            return miss();
        }
    } else if let Some(text) = &e.mentions {
        if !value.is_some_and(|v| mentioned(v, text)) {
            return miss();
        }
    } else if e.length_words().is_some() {
        let ok = value.and_then(length).is_some_and(|n| {
            e.len.is_none_or(|want| n == want)
                && e.min_len.is_none_or(|low| n >= low)
                && e.max_len.is_none_or(|high| n <= high)
        });
        if !ok {
            return miss();
        }
    } else if let Some(inner) = &e.each {
        let Some(Value::Array(items)) = value else { return miss() };
        for (i, item) in items.iter().enumerate() {
            if let Err(mut d) = first_difference(inner, item, args) {
                // A nested path that reads an argument names it as it is, not under the element.
                if !d.path.starts_with('@') {
                    d.path = join(&join(&e.path, &i.to_string()), &d.path);
                }
                return Err(d);
            }
        }
    } else if let Some(inner) = &e.any {
        let Some(Value::Array(items)) = value else { return miss() };
        if !items.iter().any(|item| first_difference(inner, item, args).is_ok()) {
            return miss();
        }
    }
    Ok(())
}

/// What the value at an expectation's path must be, in words that follow "expected" (or, for a
/// negated one, "must not be").
fn wanted(e: &Expect, value: Option<&Value>, args: &[Value]) -> String {
    if let Some(want) = &e.equals {
        let words = named(want, args).map(pyrepr::repr).unwrap_or_else(|| "missing".into());
        return if e.any_order { format!("{words} in any order") } else { words };
    }
    if let Some(options) = &e.one_of {
        let mut words: Vec<String> = options.iter().map(pyrepr::repr).collect();
        if e.or_absent {
            words.push("missing".into());
        }
        return format!("one of {}", words.join(", "));
    }
    if let Some(yes) = e.truthy {
        return if yes { "a yes (True)".into() } else { "a no (False)".into() };
    }
    if let Some(keys) = &e.only_keys {
        let keys: Vec<String> = keys.iter().map(|k| pyrepr::repr(&Value::from(k.as_str()))).collect();
        return format!("an object with no keys but {}", keys.join(", "));
    }
    if let Some(want) = &e.contains {
        let what = if value.is_some_and(Value::is_string) { "a string" } else { "a list" };
        return format!(
            "{what} containing {}",
            named(want, args).map(pyrepr::repr).unwrap_or_else(|| "missing".into())
        );
    }
    if let Some(text) = &e.mentions {
        return format!("a value with {} somewhere in its text", pyrepr::repr(&Value::from(text.as_str())));
    }
    if let Some(words) = e.length_words() {
        return words;
    }
    if let Some(inner) = &e.each {
        return format!("a list where every element {}", clauses(inner, args));
    }
    if let Some(inner) = &e.any {
        return format!("a list with an element that {}", clauses(inner, args));
    }
    if e.is_bool {
        return "a real bool, True or False".into();
    }
    "missing".into()
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

/// The last list position the expected shape shows; a later one is left out of it.
const SHOWN_POSITIONS: usize = 32;

/// The shape the expectations describe, as the report's `expected`: the values wanted at their
/// paths (lists for list positions), an `"@args.N"` as the argument it names. Negated
/// expectations and those that name no one value (lengths, `contains`, `each`, `any`, `absent`,
/// `is_bool`) are left out: the message says what they want. `None` when nothing is left.
pub(crate) fn expected_shape(expect: &[Expect], args: &[Value]) -> Option<Value> {
    let mut shape = Value::Object(Map::new());
    let mut named_any = false;
    for e in expect.iter().filter(|e| !e.not) {
        let want = match (&e.equals, &e.one_of, e.truthy) {
            (Some(v), _, _) => named(v, args).cloned().unwrap_or(Value::Null),
            // A value that may also be left out is no requirement: it is not shown as one.
            (None, Some(options), _) if !options.is_empty() && !e.or_absent => options[0].clone(),
            (None, _, Some(yes)) => Value::Bool(yes),
            _ => continue,
        };
        // A position far down a list would be shown as that many nulls before it: left out.
        let far = e.path.split('.').any(|part| part.parse::<usize>().is_ok_and(|i| i > SHOWN_POSITIONS));
        if e.path.starts_with('@') || far {
            continue;
        }
        named_any = true;
        if e.path.is_empty() {
            shape = want;
            continue;
        }
        let mut slot = &mut shape;
        for part in e.path.split('.') {
            slot = match part.parse::<usize>() {
                Ok(index) => {
                    if !slot.is_array() {
                        *slot = Value::Array(Vec::new());
                    }
                    let Value::Array(items) = slot else { break };
                    if items.len() <= index {
                        items.resize(index + 1, Value::Null);
                    }
                    &mut items[index]
                }
                Err(_) => {
                    if !slot.is_object() {
                        *slot = Value::Object(Map::new());
                    }
                    let Value::Object(map) = slot else { break };
                    map.entry(part.to_string()).or_insert(Value::Null)
                }
            };
        }
        *slot = want;
    }
    named_any.then_some(shape)
}

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
}

impl Difference {
    fn unmet(path: &str, want: String, got: Option<&Value>) -> Difference {
        Difference { path: path.to_string(), want, got: got.cloned(), negated: false }
    }

    /// "expected …", or "must not be …" (or "must not have …" for a length) when negated.
    pub(crate) fn verdict(&self) -> String {
        match (self.negated, self.want.starts_with("a length")) {
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
            Some(v) => write!(f, "{path}: {}, got {}", self.verdict(), pyrepr::repr(&crate::shorten::shorten(v))),
            // A negated expectation that fails on a missing key needs no "got": missing is the point.
            None if self.negated => write!(f, "{path}: {}", self.verdict()),
            None => write!(f, "{path}: {}, got missing", self.verdict()),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn eq(path: &str, v: Value) -> Expect {
        Expect { path: path.into(), equals: Some(v), ..Expect::default() }
    }

    fn parse(toml_text: &str) -> Expect {
        #[derive(Deserialize)]
        struct One {
            e: Expect,
        }
        toml::from_str::<One>(&format!("e = {toml_text}")).expect("a valid expectation").e
    }

    /// The message for the first unmet expectation, or "holds".
    fn verdict(expect: &str, got: Value) -> String {
        verdict_with(expect, got, &[])
    }

    fn verdict_with(expect: &str, got: Value, args: &[Value]) -> String {
        let e = parse(expect);
        assert_eq!(e.validate(), Ok(()), "{expect}");
        match first_difference(&[e], &got, args) {
            Ok(()) => "holds".into(),
            Err(d) => d.to_string(),
        }
    }

    #[test]
    fn the_first_unmet_expectation_is_named() {
        let d = first_difference(&[eq("error.isRetryable", json!(true))], &json!({"error": {"message": "x"}}), &[])
            .unwrap_err();
        assert_eq!(d.to_string(), "error.isRetryable: expected True, got missing");
        let d = first_difference(&[eq("isError", json!(true))], &json!({"isError": 1}), &[]).unwrap_err();
        assert_eq!(d.to_string(), "isError: expected True, got 1");
        let only = Expect { only_keys: Some(vec!["orders".into()]), ..Expect::default() };
        let d = first_difference(&[only], &json!({"orders": [], "isError": false}), &[]).unwrap_err();
        assert_eq!(d.to_string(), "isError: expected missing, got False");
        let d = first_difference(&[eq("a", json!(1))], &json!("text"), &[]).unwrap_err();
        assert_eq!(d.to_string(), "a: expected 1, got missing");
        let maybe =
            Expect { path: "isError".into(), one_of: Some(vec![json!(false)]), or_absent: true, ..Expect::default() };
        assert!(first_difference(std::slice::from_ref(&maybe), &json!({}), &[]).is_ok());
        assert!(first_difference(std::slice::from_ref(&maybe), &json!({"isError": false}), &[]).is_ok());
        assert!(first_difference(&[maybe], &json!({"isError": "false"}), &[]).is_err());
        let yes = Expect { truthy: Some(true), ..Expect::default() };
        assert!(first_difference(std::slice::from_ref(&yes), &json!("no"), &[]).is_ok());
        assert!(first_difference(&[yes], &json!(0), &[]).is_err());
        let real = Expect { path: "f".into(), is_bool: true, ..Expect::default() };
        assert!(first_difference(&[real], &json!({"f": "true"}), &[]).is_err());
        assert!(first_difference(&[eq("@args.0.c", json!("t"))], &json!(null), &[json!({"c": "t"})]).is_ok());
    }

    #[test]
    fn a_negated_expectation_and_an_argument_reference_recognise_a_renamed_category() {
        let args = [json!("transient"), json!("msg")];
        let renamed = Expect {
            path: "error.errorCategory".into(),
            equals: Some(json!("@args.0")),
            not: true,
            ..Expect::default()
        };
        let present = Expect { path: "error.errorCategory".into(), absent: true, not: true, ..Expect::default() };
        let when = [renamed, present];
        assert!(first_difference(&when, &json!({"error": {"errorCategory": "Transient"}}), &args).is_ok());
        assert!(first_difference(&when, &json!({"error": {"errorCategory": "transient"}}), &args).is_err());
        assert!(first_difference(&when, &json!({"error": {}}), &args).is_err());
        let d = first_difference(&when[..1], &json!({"error": {"errorCategory": "transient"}}), &args).unwrap_err();
        assert_eq!(d.to_string(), "error.errorCategory: must not be 'transient', got 'transient'");
        let d = first_difference(&when[1..], &json!({"error": {}}), &args).unwrap_err();
        assert_eq!(d.to_string(), "error.errorCategory: must not be missing");
    }

    #[test]
    fn every_kind_negated_says_must_not() {
        let got = json!({"tags": ["a", "b"], "note": "late again", "flag": true, "n": 0});
        for (expect, value, says) in [
            (
                r#"{ path = "flag", is_bool = true, not = true }"#,
                got.clone(),
                "flag: must not be a real bool, True or False, got True",
            ),
            (r#"{ path = "n", truthy = false, not = true }"#, got.clone(), "n: must not be a no (False), got 0"),
            (r#"{ path = "n", one_of = [0, 1], not = true }"#, got.clone(), "n: must not be one of 0, 1, got 0"),
            (
                r#"{ path = "note", contains = "late", not = true }"#,
                got.clone(),
                "note: must not be a string containing 'late', got 'late again'",
            ),
            (
                r#"{ path = "tags", contains = "a", not = true }"#,
                got.clone(),
                "tags: must not be a list containing 'a', got ['a', 'b']",
            ),
            (
                r#"{ path = "tags", len = 2, not = true }"#,
                got.clone(),
                "tags: must not have a length of 2, got ['a', 'b']",
            ),
            (
                r#"{ path = "tags", each = [{ truthy = true }], not = true }"#,
                got.clone(),
                "tags: must not be a list where every element is a yes (True), got ['a', 'b']",
            ),
            (
                r#"{ only_keys = ["tags", "note", "flag", "n"], not = true }"#,
                json!({"n": 1}),
                "the result: must not be an object with no keys but 'tags', 'note', 'flag', 'n', got {'n': 1}",
            ),
            (
                r#"{ path = "tags", equals = ["b", "a"], any_order = true, not = true }"#,
                got.clone(),
                "tags: must not be ['b', 'a'] in any order, got ['a', 'b']",
            ),
        ] {
            assert_eq!(verdict(expect, value), says, "{expect}");
        }
    }

    #[test]
    fn list_positions_read_lists_and_a_number_still_reads_an_object_key() {
        let got = json!({"content": [{"type": "text"}, {"type": "tool_result", "tool_use_id": "toolu_2"}], "by": {"0": "zero"}});
        assert_eq!(at(&got, &[], "content.1.tool_use_id"), Some(&json!("toolu_2")));
        assert_eq!(at(&got, &[], "content.2"), None);
        assert_eq!(at(&got, &[], "content.x"), None);
        assert_eq!(at(&got, &[], "content.-1"), None);
        assert_eq!(at(&got, &[], "by.0"), Some(&json!("zero")));
        let args = [json!([[{"id": "a"}, {"id": "b"}]])];
        assert_eq!(at(&Value::Null, &args, "@args.0.0.1.id"), Some(&json!("b")));
        assert_eq!(
            verdict(r#"{ path = "content.0.type", equals = "tool_result" }"#, got.clone()),
            "content.0.type: expected 'tool_result', got 'text'"
        );
        assert_eq!(
            verdict(r#"{ path = "content.5.type", equals = "tool_result" }"#, got),
            "content.5.type: expected 'tool_result', got missing"
        );
        let blocks = [json!([{"id": "toolu_1"}, {"id": "toolu_2"}])];
        let answer = json!({"content": [{"tool_use_id": "toolu_1"}, {"tool_use_id": "toolu_2"}]});
        assert_eq!(
            verdict_with(r#"{ path = "content.1.tool_use_id", equals = "@args.0.1.id" }"#, answer.clone(), &blocks),
            "holds"
        );
        assert_eq!(
            verdict_with(r#"{ path = "content.0.tool_use_id", equals = "@args.0.1.id" }"#, answer, &blocks),
            "content.0.tool_use_id: expected 'toolu_2', got 'toolu_1'"
        );
    }

    #[test]
    fn mentions_finds_text_at_any_depth_and_in_keys() {
        let got = json!({"content": [{"type": "tool_result", "content": [{"type": "text", "text": "see db.internal"}]}, {"secret-db.internal": 1}], "n": 5});
        assert_eq!(verdict(r#"{ path = "", mentions = "db.internal" }"#, got.clone()), "holds");
        assert_eq!(verdict(r#"{ path = "content.1", mentions = "secret" }"#, got.clone()), "holds");
        assert!(verdict(r#"{ path = "", mentions = "db.internal", not = true }"#, got.clone()).contains("must not be"));
        assert_eq!(
            verdict(r#"{ path = "n", mentions = "5" }"#, got),
            "n: expected a value with '5' somewhere in its text, got 5"
        );
    }

    #[test]
    fn contains_looks_for_text_in_a_string_and_an_equal_element_in_a_list() {
        let got = json!({"message": "Order 0871 is 239 days old", "ids": ["a", {"k": 1}], "n": 5});
        assert_eq!(verdict(r#"{ path = "message", contains = "239 days" }"#, got.clone()), "holds");
        assert_eq!(
            verdict(r#"{ path = "message", contains = "30 days" }"#, got.clone()),
            "message: expected a string containing '30 days', got 'Order 0871 is 239 days old'"
        );
        assert_eq!(verdict(r#"{ path = "ids", contains = { k = 1 } }"#, got.clone()), "holds");
        assert_eq!(
            verdict(r#"{ path = "ids", contains = "b" }"#, got.clone()),
            "ids: expected a list containing 'b', got ['a', {'k': 1}]"
        );
        // A list holds an element equal to the value, not a string with it inside.
        assert_eq!(
            verdict(r#"{ path = "ids", contains = "" }"#, got.clone()),
            "ids: expected a list containing '', got ['a', {'k': 1}]"
        );
        assert_eq!(verdict(r#"{ path = "n", contains = 5 }"#, got.clone()), "n: expected a list containing 5, got 5");
        assert_eq!(
            verdict(r#"{ path = "gone", contains = "x" }"#, got),
            "gone: expected a list containing 'x', got missing"
        );
        assert_eq!(
            verdict_with(
                r#"{ path = "m", contains = "@args.1" }"#,
                json!({"m": "It said: Late."}),
                &[json!(1), json!("Late.")]
            ),
            "holds"
        );
    }

    #[test]
    fn lengths_count_elements_characters_and_keys() {
        let got = json!({"list": [1, 2, 3], "text": "héllo", "map": {"a": 1}, "n": 3});
        assert_eq!(verdict(r#"{ path = "list", len = 3 }"#, got.clone()), "holds");
        assert_eq!(verdict(r#"{ path = "text", len = 5 }"#, got.clone()), "holds");
        assert_eq!(verdict(r#"{ path = "map", len = 1 }"#, got.clone()), "holds");
        assert_eq!(
            verdict(r#"{ path = "list", len = 2 }"#, got.clone()),
            "list: expected a length of 2, got [1, 2, 3]"
        );
        assert_eq!(verdict(r#"{ path = "n", len = 3 }"#, got.clone()), "n: expected a length of 3, got 3");
        assert_eq!(verdict(r#"{ path = "list", min_len = 1, max_len = 3 }"#, got.clone()), "holds");
        assert_eq!(
            verdict(r#"{ path = "list", min_len = 4 }"#, got.clone()),
            "list: expected a length of at least 4, got [1, 2, 3]"
        );
        assert_eq!(
            verdict(r#"{ path = "list", max_len = 2 }"#, got.clone()),
            "list: expected a length of at most 2, got [1, 2, 3]"
        );
        assert_eq!(
            verdict(r#"{ path = "list", min_len = 1, max_len = 2 }"#, got),
            "list: expected a length from 1 to 2, got [1, 2, 3]"
        );
    }

    #[test]
    fn each_names_the_first_element_that_fails_at_its_own_path() {
        let got = json!({"content": [{"type": "tool_result", "is_error": false}, {"type": "text"}]});
        assert_eq!(
            verdict(r#"{ path = "content", each = [{ path = "type", equals = "tool_result" }] }"#, got.clone()),
            "content.1.type: expected 'tool_result', got 'text'"
        );
        assert_eq!(verdict(r#"{ path = "content.0", each = [{ path = "type", equals = "tool_result" }] }"#, got.clone()),
            "content.0: expected a list where every element has type 'tool_result', got {'type': 'tool_result', 'is_error': False}");
        assert_eq!(
            verdict(r#"{ path = "content", each = [{ path = "type", one_of = ["tool_result", "text"] }] }"#, got),
            "holds"
        );
        assert_eq!(verdict(r#"{ each = [{ equals = 1 }] }"#, json!([])), "holds", "an empty list: every element holds");
        assert_eq!(verdict(r#"{ each = [{ equals = 1 }] }"#, json!([1, 2])), "1: expected 1, got 2");
        // Nested: a list of lists.
        assert_eq!(
            verdict(
                r#"{ path = "rows", each = [{ each = [{ is_bool = true }] }] }"#,
                json!({"rows": [[true], [false, 0]]})
            ),
            "rows.1.1: expected a real bool, True or False, got 0"
        );
        // A negated expectation inside each.
        assert_eq!(
            verdict(
                r#"{ path = "c", each = [{ path = "type", equals = "text", not = true }] }"#,
                json!({"c": [{"type": "text"}]})
            ),
            "c.0.type: must not be 'text', got 'text'"
        );
    }

    #[test]
    fn any_wants_one_element_meeting_all_its_expectations() {
        let got = json!({"content": [{"type": "text", "id": "b"}, {"type": "tool_result", "id": "a"}]});
        assert_eq!(
            verdict(
                r#"{ path = "content", any = [{ path = "type", equals = "tool_result" }, { path = "id", equals = "a" }] }"#,
                got.clone()
            ),
            "holds"
        );
        assert_eq!(verdict(r#"{ path = "content", any = [{ path = "type", equals = "tool_result" }, { path = "id", equals = "b" }] }"#, got.clone()),
            "content: expected a list with an element that has type 'tool_result' and has id 'b', got [{'type': 'text', 'id': 'b'}, {'type': 'tool_result', 'id': 'a'}]");
        assert_eq!(verdict(r#"{ path = "content", any = [{ path = "type", equals = "text", not = true }, { path = "type", equals = "tool_result", not = true }] }"#, got),
            "content: expected a list with an element that has type not 'text' and has type not 'tool_result', got [{'type': 'text', 'id': 'b'}, {'type': 'tool_result', 'id': 'a'}]");
        assert_eq!(
            verdict(r#"{ any = [{ equals = 1 }] }"#, json!([])),
            "the result: expected a list with an element that is 1, got []"
        );
        assert_eq!(
            verdict(r#"{ any = [{ equals = 1 }] }"#, json!({"a": 1})),
            "the result: expected a list with an element that is 1, got {'a': 1}"
        );
    }

    #[test]
    fn any_order_compares_a_list_as_a_bag() {
        let got = json!({"ids": ["b", "a", "a"]});
        assert_eq!(verdict(r#"{ path = "ids", equals = ["a", "a", "b"], any_order = true }"#, got.clone()), "holds");
        assert_eq!(
            verdict(r#"{ path = "ids", equals = ["a", "b", "b"], any_order = true }"#, got.clone()),
            "ids: expected ['a', 'b', 'b'] in any order, got ['b', 'a', 'a']"
        );
        assert_eq!(
            verdict(r#"{ path = "ids", equals = ["a", "b"], any_order = true }"#, got.clone()),
            "ids: expected ['a', 'b'] in any order, got ['b', 'a', 'a']"
        );
        // Without the modifier, order counts.
        assert_eq!(
            verdict(r#"{ path = "ids", equals = ["a", "a", "b"] }"#, got),
            "ids: expected ['a', 'a', 'b'], got ['b', 'a', 'a']"
        );
        assert_eq!(
            verdict_with(r#"{ equals = "@args.0", any_order = true }"#, json!([2, 1]), &[json!([1, 2])]),
            "holds"
        );
        assert_eq!(
            verdict_with(r#"{ equals = "@args.0", any_order = true }"#, json!(1), &[json!(1)]),
            "the result: expected 1 in any order, got 1"
        );
    }

    fn invalid(toml_text: &str) -> String {
        parse(toml_text).validate().expect_err(toml_text)
    }

    #[test]
    fn malformed_paths_and_shapes_are_refused_at_load() {
        assert!(invalid(r#"{ path = "a..b", equals = 1 }"#).contains("the path 'a..b' has an empty part"));
        assert!(invalid(r#"{ path = "a.", equals = 1 }"#).contains("empty part"));
        assert!(invalid(r#"{ path = ".a", equals = 1 }"#).contains("empty part"));
        assert!(invalid(r#"{ path = "@args", equals = 1 }"#).contains("only @args.N"));
        assert!(invalid(r#"{ path = "@args.x", equals = 1 }"#).contains("only @args.N"));
        assert!(invalid(r#"{ path = "@result.0", equals = 1 }"#).contains("only @args.N"));
        assert!(
            invalid(r#"{ path = "a", equals = "@args.first" }"#).contains("the value of 'a': the path '@args.first'")
        );
        assert!(invalid(r#"{ path = "a", contains = "@args..0" }"#).contains("empty part"));
        assert!(invalid(r#"{ path = "a" }"#).contains("must say exactly one of"));
        assert!(invalid(r#"{ path = "a", equals = 1, contains = 1 }"#).contains("exactly one of"));
        assert!(invalid(r#"{ path = "a", len = 1, each = [{ equals = 1 }] }"#).contains("exactly one of"));
        assert!(invalid(r#"{ path = "a", len = 1, min_len = 0 }"#).contains("either an exact length or bounds"));
        assert!(invalid(r#"{ path = "a", min_len = 3, max_len = 2 }"#).contains("min_len 3 above max_len 2"));
        assert!(invalid(r#"{ path = "a", equals = 1, any_order = true }"#)
            .contains("any_order on 'a' goes with equals of a list"));
        assert!(invalid(r#"{ path = "a", one_of = [[1]], any_order = true }"#).contains("any_order"));
        assert!(invalid(r#"{ path = "a", equals = "ab", any_order = true }"#).contains("any_order"));
        assert!(invalid(r#"{ path = "a", is_bool = true, or_absent = true }"#)
            .contains("or_absent on 'a' goes with one_of"));
        assert!(invalid(r#"{ path = "a", each = [] }"#).contains("'a' has an empty each"));
        assert_eq!(invalid(r#"{ path = "a", any = [{ path = "b", each = [{ path = "c..d", absent = true }] }] }"#),
            "in any of 'a': in each of 'b': the path 'c..d' has an empty part: join keys and list positions with single dots, like content.0.tool_use_id");
        for good in [
            r#"{ path = "content.0.tool_use_id", equals = "@args.0.1.id" }"#,
            r#"{ path = "@args.0.1.id", contains = "toolu" }"#,
            r#"{ path = "a", min_len = 1, max_len = 1 }"#,
            r#"{ path = "a", equals = "@args.0", any_order = true }"#,
            r#"{ path = "a", any = [{ path = "b", each = [{ truthy = true, not = true }] }] }"#,
        ] {
            assert_eq!(parse(good).validate(), Ok(()), "{good}");
        }
    }

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
    fn the_expected_shape_nests_its_paths_and_leaves_out_what_must_not_be() {
        let shape = expected_shape(&[eq("error.isRetryable", json!(false)), eq("isError", json!(true))], &[]);
        assert_eq!(shape, Some(json!({"error": {"isRetryable": false}, "isError": true})));
        let negated = Expect { not: true, ..eq("error.errorCategory", json!("Transient")) };
        let shape = expected_shape(&[negated, eq("isError", json!(true))], &[]);
        assert_eq!(shape, Some(json!({"isError": true})));
        let args = [json!([{"id": "toolu_1"}])];
        let wants = [
            eq("content.1.tool_use_id", json!("toolu_2")),
            eq("content.0.tool_use_id", json!("@args.0.0.id")),
            eq("content.0.type", json!("tool_result")),
            eq("role", json!("user")),
        ];
        let shape = expected_shape(&wants, &args);
        assert_eq!(
            shape,
            Some(
                json!({"content": [{"tool_use_id": "toolu_1", "type": "tool_result"}, {"tool_use_id": "toolu_2"}], "role": "user"})
            )
        );
        let counted = Expect { path: "content".into(), len: Some(2), ..Expect::default() };
        assert_eq!(expected_shape(&[counted], &[]), None, "nothing names a value: no shape to show");
        assert_eq!(expected_shape(&[eq("a.4000000000", json!(1))], &[]), None, "no list of four billion nulls");
        assert_eq!(expected_shape(&[eq("", json!({}))], &[]), Some(json!({})), "an empty object that is wanted");
    }

    #[test]
    fn the_expected_shape_shows_the_first_of_several_allowed_values_unless_leaving_it_out_is_allowed_too() {
        let options = Some(vec![json!("transient"), json!("validation")]);
        let either = Expect { path: "error.errorCategory".into(), one_of: options.clone(), ..Expect::default() };
        assert_eq!(expected_shape(&[either], &[]), Some(json!({"error": {"errorCategory": "transient"}})));
        let or_absent =
            Expect { path: "error.errorCategory".into(), one_of: options, or_absent: true, ..Expect::default() };
        assert_eq!(expected_shape(&[or_absent], &[]), None, "a value that may be left out is no requirement");
        let none = Expect { path: "error.errorCategory".into(), one_of: Some(Vec::new()), ..Expect::default() };
        assert_eq!(expected_shape(&[none], &[]), None, "no value to show");
    }
}
