//! A property of a message (`[properties.<id>]` in a manifest): what a card may say of it, and
//! the expectations on its text that must hold for the card to say so. One property is read by
//! one piece of code wherever it is asked: a check's `property = "<id>"`, a replay kind's
//! `properties`, and the record of what the model read (`replay::received`). Its expectations
//! read the failure's facts as `@facts.<name>`, so the same words fit every failure.

use serde::Deserialize;
use serde_json::Value;

use super::matching::first_difference;
use super::path::at;
use super::{Expect, Expectations, Want};

/// The prefix a property's expectations read a fact with.
pub(crate) const FACT: &str = "@facts.";

/// One property of a message.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Property {
    /// Its key in `[properties]`, set as the lesson loads.
    #[serde(skip)]
    pub(crate) id: String,
    /// What a card says of a message that has it, after "it": `names {done} as restarted`,
    /// each `{name}` filled with that fact's value.
    pub(crate) says: String,
    /// Expectations on the message's text (its path ""), all of which must hold.
    pub(crate) when: Expectations,
}

impl Property {
    /// Every problem with the declaration, in words, for the manifest's loader.
    pub(crate) fn problems(&self) -> Vec<String> {
        let at = format!("property {}", self.id);
        let mut out = Vec::new();
        if self.when.is_empty() {
            out.push(format!("{at}: `when` is empty: say what a message with it holds"));
        }
        for why in self.when.malformed() {
            out.push(format!("{at}: in when: {why}"));
        }
        if self.says.trim().is_empty() {
            out.push(format!("{at}: `says` is empty: give the words a card says of it"));
        }
        let (required, _) = self.references();
        for name in placeholders(&self.says) {
            if !required.contains(&name) {
                let why = "no expectation of it reads that fact, so no card could claim it";
                out.push(format!(
                    "{at}: says names {{{name}}}, but {why}: read it as {FACT}{name}"
                ));
            }
        }
        if self.when.iter().any(Expect::asks_property) {
            let why = "a property's expectations cannot ask another property: list both";
            out.push(format!("{at}: {why} where they are used"));
        }
        if self.when.iter().any(Expect::reads_args) {
            let why = "reads @args, which only a check's call has: read a fact with @facts.NAME";
            out.push(format!("{at}: {why}"));
        }
        out
    }

    /// The facts its expectations need (every `@facts.` read but an `except`'s), and those
    /// they may do without (an `except`'s).
    pub(crate) fn references(&self) -> (Vec<String>, Vec<String>) {
        let (mut needed, mut optional) = (Vec::new(), Vec::new());
        for e in &self.when {
            e.references(&mut needed, &mut optional);
        }
        let name = |v: &Value| v.as_str().and_then(|s| s.strip_prefix(FACT)).map(String::from);
        let names = |list: Vec<Value>| {
            let mut out: Vec<String> = list.iter().filter_map(name).collect();
            out.dedup();
            out
        };
        (names(needed), names(optional))
    }

    /// Whether `text` has the property, with these facts: `Err` says why not in words (a fact
    /// it needs that the facts lack, or the first expectation that does not hold).
    pub(crate) fn test(&self, text: &Value, facts: &Value) -> Result<(), String> {
        if let Some(missing) = self.missing(facts) {
            return Err(format!("the failure's facts hold no '{missing}'"));
        }
        let filled: Vec<Expect> =
            self.when.iter().map(|e| e.map_values(&|v| fill(v, facts))).collect();
        first_difference(&filled, text, &[]).map_err(|d| d.verdict())
    }

    /// The first fact it needs that `facts` lacks: then it cannot be read on that failure.
    pub(crate) fn missing(&self, facts: &Value) -> Option<String> {
        let (needed, _) = self.references();
        needed.into_iter().find(|n| fact(facts, n).is_none())
    }

    /// What a card says of a message with the property and these facts.
    pub(crate) fn claim(&self, facts: &Value) -> String {
        let mut out = self.says.trim().to_string();
        for name in placeholders(&self.says) {
            let value = fact(facts, &name).map(words).unwrap_or_default();
            out = out.replace(&format!("{{{name}}}"), &value);
        }
        out
    }
}

/// For `property`, its `not` read in: `Ok` when it is met, else the verdict in words (the
/// property, what a card would say of it, and why it does or does not hold).
pub(super) fn asked(e: &Expect, value: Option<&Value>, args: &[Value]) -> Result<(), String> {
    let Want::Property { id, facts, property } = &e.want else { return Ok(()) };
    let Some(property) = property else {
        return Err(format!("the property '{id}' is not declared in the lesson"));
    };
    let facts = at(&Value::Null, args, facts).cloned().unwrap_or(Value::Null);
    let claim = property.claim(&facts);
    match (property.test(value.unwrap_or(&Value::Null), &facts), e.not) {
        (Ok(()), false) | (Err(_), true) => Ok(()),
        (Ok(()), true) => Err(format!("expected a message that does not hold {id}; it {claim}")),
        (Err(why), false) => Err(format!("expected a message that {claim} ({id}): {why}")),
    }
}

/// A fact by its dotted name (`input.namespace`); `None` when absent or null.
fn fact<'v>(facts: &'v Value, name: &str) -> Option<&'v Value> {
    at(facts, &[], name).filter(|v| !v.is_null())
}

/// A value an expectation names, with `@facts.<name>` read from the facts (an absent one reads
/// as an empty list: nothing to cut out of a quoted text, nothing named).
fn fill(value: &Value, facts: &Value) -> Value {
    match value.as_str().and_then(|s| s.strip_prefix(FACT)) {
        Some(name) => fact(facts, name).cloned().unwrap_or(Value::Array(Vec::new())),
        None => value.clone(),
    }
}

/// A fact in a card's words: a text as it is, a list joined with commas.
fn words(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(words).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// The `{name}`s of a card's words.
fn placeholders(says: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = says;
    while let Some(open) = rest.find('{') {
        let Some((name, after)) = rest[open + 1..].split_once('}') else { break };
        let name = name.trim();
        if !name.is_empty() && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
        rest = after;
    }
    out
}

impl Expect {
    /// Whether it (or one nested in it) asks a property.
    pub(crate) fn asks_property(&self) -> bool {
        match &self.want {
            Want::Property { .. } => true,
            Want::Each(list) | Want::Any(list) => list.iter().any(Expect::asks_property),
            _ => false,
        }
    }

    /// Whether it reads a call's argument (its path, or a value it names).
    fn reads_args(&self) -> bool {
        let (mut needed, mut optional) = (Vec::new(), Vec::new());
        self.references(&mut needed, &mut optional);
        let arg = |v: &Value| v.as_str().is_some_and(|s| s.starts_with("@args"));
        self.path.starts_with("@args") || needed.iter().chain(&optional).any(arg)
    }

    /// Whether it (or one nested in it) names a fact as `@facts.<name>`.
    pub(crate) fn reads_facts(&self) -> bool {
        let (mut needed, mut optional) = (Vec::new(), Vec::new());
        self.references(&mut needed, &mut optional);
        let fact = |v: &Value| v.as_str().is_some_and(|s| s.starts_with(FACT));
        self.path.starts_with(FACT) || needed.iter().chain(&optional).any(fact)
    }

    /// The values it names that a lesson fills in: those it needs, and an `except`'s.
    fn references(&self, needed: &mut Vec<Value>, optional: &mut Vec<Value>) {
        match &self.want {
            Want::Equals { value, .. } | Want::Contains(value) => needed.push(value.clone()),
            Want::Mentions(text) => needed.push(Value::from(text.as_str())),
            Want::OneOf { options, .. } => needed.extend(options.iter().cloned()),
            Want::Names { names, .. } => needed.push(names.clone()),
            Want::Quotes { raw, facts } => {
                needed.push(raw.clone());
                optional.extend(facts.iter().cloned());
            }
            Want::Each(list) | Want::Any(list) => {
                list.iter().for_each(|e| e.references(needed, optional));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::lesson::expect::Wording;

    fn property(toml_text: &str) -> Property {
        let mut p: Property = toml::from_str(toml_text).unwrap();
        p.id = "p".into();
        let wording: Wording = toml::from_str(
            r#"
id = "restart"
joins = ["and"]
roles = [
  { id = "left", words = ["not", "still", "old version"] },
  { id = "done", words = ["restarted", "already"] },
]
"#,
        )
        .unwrap();
        p.when.word(&[Arc::new(wording)]);
        p
    }

    #[test]
    fn a_property_reads_the_facts_it_is_given_and_says_why_it_does_not_hold() {
        let p = property(
            r#"
says = "names {done} as restarted"
when = [{ names = "@facts.done", as = "done" }]
"#,
        );
        assert!(p.problems().is_empty(), "{:?}", p.problems());
        let facts = json!({"done": ["c-1", "c-2"], "left": ["c-3"]});
        let right = json!("c-1 and c-2 restarted, c-3 not.");
        assert_eq!(p.test(&right, &facts), Ok(()));
        let swapped = json!("Already restarted: c-3. Still on the old version: c-1, c-2.");
        let why = p.test(&swapped, &facts).unwrap_err();
        assert!(why.contains("'c-1' named as done: it is named as left"), "{why}");
        assert_eq!(p.claim(&facts), "names c-1, c-2 as restarted");
        let none = p.test(&right, &json!({"left": ["c-3"]})).unwrap_err();
        assert_eq!(none, "the failure's facts hold no 'done'");
    }

    #[test]
    fn a_fact_a_quote_may_cut_out_need_not_be_there() {
        let p = property(
            r#"
says = "quotes nothing of the raw text"
when = [{ quotes = "@facts.raw", except = ["@facts.host"], not = true }]
"#,
        );
        let facts = json!({"raw": "Traceback (most recent call last): boom at db.internal"});
        assert_eq!(p.test(&json!("The lookup failed on its side."), &facts), Ok(()));
        let why = p.test(&json!("It said: most recent call last"), &facts).unwrap_err();
        assert!(why.contains("must not quote"), "{why}");
        assert_eq!(p.references(), (vec!["raw".to_string()], vec!["host".to_string()]));
    }

    #[test]
    fn a_claim_no_expectation_reads_and_an_argument_are_refused() {
        let p = property(
            r#"
says = "names {left} as left"
when = [{ contains = "@facts.done" }, { contains = "@args.1.done" }]
"#,
        );
        let problems = p.problems().join("\n");
        assert!(problems.contains("says names {left}, but no expectation"), "{problems}");
        assert!(problems.contains("reads @args"), "{problems}");
        let empty = property("says = \"\"\nwhen = []");
        assert_eq!(empty.problems().len(), 2, "{:?}", empty.problems());
    }

    #[test]
    fn a_cards_placeholders_are_read_in_order_once_each_up_to_an_unclosed_brace() {
        let said = placeholders("names {fact} and { value }, then {fact} again, {} and {left");
        assert_eq!(said, ["fact", "value"]);
        assert!(placeholders("no braces here").is_empty());
    }
}
