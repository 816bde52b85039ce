//! What an expectation asks of the text in a value: that it mentions a word, quotes no piece of
//! a raw text, names each name in a role. Any string counts, keys too, at any depth.

use serde_json::Value;

use super::difference::PIECE_SHOWN;
use super::path::named;
use super::roles::{said, Said};
use super::{quoted_piece, Expect, Want};
use crate::text::pyrepr;

/// Whether any string in `value` (keys too, at any depth) holds `text`.
pub(super) fn mentioned(value: &Value, text: &str) -> bool {
    match value {
        Value::String(s) => s.contains(text),
        Value::Array(items) => items.iter().any(|v| mentioned(v, text)),
        Value::Object(map) => map.iter().any(|(k, v)| k.contains(text) || mentioned(v, text)),
        _ => false,
    }
}

/// Every string in `value`, keys included, at any depth.
fn strings<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            out.push(k);
            strings(v, out);
        }),
        _ => {}
    }
}

/// The longest piece of a `quotes` expectation's raw text that the value carries word for word
/// (`None` for any other expectation, or a raw text that is no string).
pub(super) fn quoted(e: &Expect, value: Option<&Value>, args: &[Value]) -> Option<String> {
    let Want::Quotes { raw, facts } = &e.want else { return None };
    let raw = named(raw, args)?.as_str()?;
    let mut told = Vec::new();
    for fact in facts.iter().filter_map(|f| named(f, args)) {
        match fact {
            Value::Array(items) => told.extend(items.iter().filter_map(Value::as_str)),
            other => told.extend(other.as_str()),
        }
    }
    let mut texts = Vec::new();
    strings(value?, &mut texts);
    let pieces = texts.into_iter().filter_map(|text| quoted_piece(text, raw, &told));
    pieces.max_by_key(|piece| piece.chars().count())
}

/// For `names ... as`, its `not` read in: `Ok` when it is met, else the verdict in words, naming
/// the first name that breaks it and the clause. Without `not`, every name must be said in the
/// role at least once; with `not`, none may be.
pub(super) fn roles(e: &Expect, value: Option<&Value>, args: &[Value]) -> Result<(), String> {
    let Want::Names { names, role, wording } = &e.want else { return Ok(()) };
    let names: Vec<&str> = match named(names, args) {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        Some(Value::String(one)) => vec![one.as_str()],
        _ => Vec::new(),
    };
    let mut texts = Vec::new();
    value.into_iter().for_each(|v| strings(v, &mut texts));
    let places: Vec<Said> = match wording {
        Some(wording) => texts.iter().flat_map(|t| said(t, &names, wording)).collect(),
        None => Vec::new(),
    };
    let shown = |name: &str| pyrepr::repr(&Value::from(name));
    let clause = |s: &Said| {
        let part = crate::text::shorten::shorten_text(&s.clause, PIECE_SHOWN);
        pyrepr::repr(&Value::from(part))
    };
    let in_role = |s: &&Said| s.role.as_deref() == Some(role.as_str());
    if e.not {
        return match places.iter().find(in_role) {
            Some(s) => {
                let name = shown(names[s.name]);
                Err(format!("must not name {name} as {role}: it does, in {}", clause(s)))
            }
            None => Ok(()),
        };
    }
    for (n, name) in names.iter().enumerate() {
        let mine: Vec<&Said> = places.iter().filter(|s| s.name == n).collect();
        if mine.iter().any(in_role) {
            continue;
        }
        let how = match mine.iter().find(|s| s.role.is_some()).or(mine.first()) {
            Some(s) => match &s.role {
                Some(other) => format!("it is named as {other}, in {}", clause(s)),
                None => format!("no word of a role stands beside it, in {}", clause(s)),
            },
            None => "it is not named".to_string(),
        };
        return Err(format!("expected {} named as {role}: {how}", shown(name)));
    }
    Ok(())
}
