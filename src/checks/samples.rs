//! A check's samples: the lesson's sample messages for one file's run, the fields the world
//! draws for them from the file's seed, and the ids a case names drawn afresh.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::lesson::Lesson;
use crate::replay::runtime::harness::Backoff;

/// The lesson's sample messages for one run, with the fields the world draws (an id, say)
/// drawn once from the seed and shared: every message, and every `$<field>` in a case's other
/// arguments and expectations, names the same thing.
pub(crate) struct Samples {
    values: HashMap<String, String>,
    /// Each id a case names a call by (`case_ids`), and the one drawn for this file instead.
    ids: HashMap<String, String>,
    pub(super) seed: u64,
}

impl Samples {
    /// Ask the lesson's world, while it loads, for the fields `draw` will ask it for with this
    /// seed, so their answer is ready when the checks begin.
    pub(super) fn draw_ahead(lesson: &Lesson, seed: u64) {
        let mut rng = Backoff::from_seed(seed);
        lesson.draw_ahead(crate::world::python::units(&mut |n| rng.below(n)));
    }

    pub(crate) fn draw(lesson: &Lesson, seed: u64) -> Samples {
        let mut rng = Backoff::from_seed(seed);
        let setting = lesson.setting();
        let drawn = setting.draw_fields(&mut |n| rng.below(n));
        let mut values: HashMap<String, String> = drawn.iter().cloned().collect();
        for (name, sample) in &lesson.samples {
            // What the sample gives itself wins over what was drawn.
            let mut fields: Vec<(String, String)> =
                drawn.iter().filter(|(k, _)| !sample.fields.contains_key(k)).cloned().collect();
            fields.extend(sample.fields.clone());
            let template = setting.message(&sample.message).unwrap_or("");
            values.insert(name.clone(), crate::world::fill(template, &fields));
        }
        Samples { values, ids: drawn_ids(lesson, seed), seed }
    }

    /// A case's arguments with every `$name` replaced by its sample, and every `{ none = true }`
    /// by `None` (TOML has no null).
    pub(super) fn resolve(&self, value: &Value) -> Value {
        match value {
            Value::Object(map) if is_none(map) => Value::Null,
            Value::Object(map) if number_of(map).is_some() => self.number(map),
            Value::String(s) => match s.strip_prefix('$').and_then(|name| self.values.get(name)) {
                Some(text) => Value::from(text.as_str()),
                None => Value::from(self.ids.get(s).unwrap_or(s).as_str()),
            },
            Value::Array(items) => Value::Array(items.iter().map(|v| self.resolve(v)).collect()),
            Value::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), self.resolve(v))).collect())
            }
            other => other.clone(),
        }
    }
}

impl Samples {
    /// `{ number = "$field" }` as the number the field's drawn text spells (`"7"` is 7, `"2.5"`
    /// is 2.5); a text that spells none stays text, which no check's solution then passes, so
    /// `doctor` finds it.
    fn number(&self, map: &serde_json::Map<String, Value>) -> Value {
        let name = number_of(map).unwrap_or_default();
        let Some(text) = name.strip_prefix('$').and_then(|n| self.values.get(n)) else {
            return Value::from(name);
        };
        if let Ok(whole) = text.trim().parse::<i64>() {
            return Value::from(whole);
        }
        match text.trim().parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
            Some(n) => Value::Number(n),
            None => Value::from(text.as_str()),
        }
    }
}

/// The field of `{ number = "$field" }`, which stands for a drawn field read as a number.
fn number_of(map: &serde_json::Map<String, Value>) -> Option<&str> {
    match (map.len(), map.get("number")) {
        (1, Some(Value::String(name))) => Some(name),
        _ => None,
    }
}

/// `{ none = true }`, which stands for `None` in a case.
fn is_none(map: &serde_json::Map<String, Value>) -> bool {
    map.len() == 1 && map.get("none") == Some(&Value::Bool(true))
}

/// The ids written in the cases' arguments that start with one of the lesson's `case_ids`, each
/// with one drawn for this file in the shape the runner gives its own ids (a replay's): a file
/// cannot tell a check's call from a replay's by its id, nor behave only for the ids it knows.
fn drawn_ids(lesson: &Lesson, seed: u64) -> HashMap<String, String> {
    fn begins<'p>(id: &str, prefixes: &'p [String]) -> Option<&'p str> {
        prefixes.iter().map(String::as_str).find(|p| id.starts_with(p))
    }
    fn walk(value: &Value, prefixes: &[String], out: &mut Vec<String>) {
        match value {
            Value::String(s) if begins(s, prefixes).is_some() => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|v| walk(v, prefixes, out)),
            Value::Object(map) => map.values().for_each(|v| walk(v, prefixes, out)),
            _ => {}
        }
    }
    let mut written = Vec::new();
    let args = lesson.checks.iter().flat_map(|c| &c.cases).flat_map(|case| &case.args);
    args.for_each(|a| walk(a, &lesson.case_ids, &mut written));
    written
        .into_iter()
        .map(|id| {
            let prefix = begins(&id, &lesson.case_ids).unwrap_or_default();
            let drawn = drawn_id(prefix, &json!(["case", seed, id]));
            (id, drawn)
        })
        .collect()
}

/// An id of the runner's shape (as `recordings::api_id` makes them), after `prefix`.
fn drawn_id(prefix: &str, seed: &Value) -> String {
    let digest = crate::replay::recordings::key(seed);
    let tail: String = digest.trim_start_matches("v1:").chars().take(24).collect();
    format!("{prefix}01{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(pairs: &[(&str, &str)]) -> Samples {
        let values = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Samples { values, ids: HashMap::new(), seed: 0 }
    }

    #[test]
    fn a_number_of_a_drawn_field_is_the_number_its_text_spells() {
        let s = drawn(&[("wait", "7"), ("half", "2.5"), ("id", "0412"), ("word", "soon")]);
        let case = json!([
            { "number": "$wait" },
            { "number": "$half" },
            { "number": "$id" },
            "$wait",
            { "number": "$word" },
            { "number": "$unknown" },
            { "number": "$wait", "other": 1 },
        ]);
        assert_eq!(
            s.resolve(&case),
            json!([7, 2.5, 412, "7", "soon", "$unknown", { "number": "7", "other": 1 }])
        );
    }
}
