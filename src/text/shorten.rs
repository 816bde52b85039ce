//! Long values made short for reports: a learner's function can return megabytes, and a report
//! should still be something a person can read and a program can load. Strings, lists and objects
//! past a size are cut, and a marker in the value says how much was cut.

use serde_json::{Map, Value};

/// Characters kept of one string (or object key).
pub(crate) const STRING_CHARS: usize = 200;
/// Items kept of one list, keys of one object.
pub(crate) const ITEMS: usize = 50;
/// Levels of nesting shown; deeper containers are replaced by a marker.
pub(crate) const DEPTH: usize = 20;
/// Characters kept across the whole value, markers included, so its JSON stays small however
/// the size is spread (many short strings, deep nesting, long numbers).
pub(crate) const BUDGET: usize = 20_000;

/// `value` with long strings, lists and objects cut, each cut marked.
pub(crate) fn shorten(value: &Value) -> Value {
    let mut budget = BUDGET;
    walk(value, &mut budget, 0)
}

/// `text` cut to `max` characters, with a marker saying how many more there were.
pub(crate) fn shorten_text(text: &str, max: usize) -> String {
    cut(text, max).unwrap_or_else(|| text.to_string())
}

fn cut(text: &str, max: usize) -> Option<String> {
    let (end, _) = text.char_indices().nth(max)?;
    let more = text[end..].chars().count();
    Some(format!("{}… [{more} more characters]", &text[..end]))
}

fn spend(budget: &mut usize, cost: usize) {
    *budget = budget.saturating_sub(cost);
}

fn walk(value: &Value, budget: &mut usize, depth: usize) -> Value {
    match value {
        Value::String(text) => {
            let shown = cut(text, STRING_CHARS.min(*budget)).unwrap_or_else(|| text.clone());
            spend(budget, shown.chars().count() + 2);
            Value::String(shown)
        }
        Value::Array(items) => {
            if depth >= DEPTH && !items.is_empty() {
                return marker(
                    budget,
                    format!("… [a list of {} items, nested too deep to show]", items.len()),
                );
            }
            spend(budget, 2);
            let mut out = Vec::new();
            for (i, item) in items.iter().enumerate() {
                if i >= ITEMS || *budget == 0 {
                    out.push(marker(budget, format!("… [{} more items]", items.len() - i)));
                    break;
                }
                out.push(walk(item, budget, depth + 1));
            }
            Value::Array(out)
        }
        Value::Object(map) => {
            if depth >= DEPTH && !map.is_empty() {
                return marker(
                    budget,
                    format!("… [an object of {} keys, nested too deep to show]", map.len()),
                );
            }
            spend(budget, 2);
            let mut out = Map::new();
            for (i, (key, item)) in map.iter().enumerate() {
                if i >= ITEMS || *budget == 0 {
                    let note = format!("{} more keys", map.len() - i);
                    spend(budget, note.len() + 5);
                    out.insert("…".into(), Value::String(note));
                    break;
                }
                let key = cut(key, STRING_CHARS).unwrap_or_else(|| key.clone());
                spend(budget, key.chars().count() + 3);
                let item = walk(item, budget, depth + 1);
                out.insert(key, item);
            }
            Value::Object(out)
        }
        other => {
            spend(budget, other.to_string().len());
            other.clone()
        }
    }
}

fn marker(budget: &mut usize, text: String) -> Value {
    spend(budget, text.chars().count() + 2);
    Value::String(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn small_values_are_left_as_they_are() {
        let value = json!({"isError": true, "error": {"errorCategory": "business", "message": "No.", "n": [1, 2.5, null]}});
        assert_eq!(shorten(&value), value);
    }

    #[test]
    fn a_long_string_keeps_its_start_and_says_how_much_was_cut() {
        let value = json!({"message": "x".repeat(2_000_000)});
        let short = shorten(&value);
        let text = short["message"].as_str().unwrap();
        assert!(text.starts_with(&"x".repeat(STRING_CHARS)), "{text}");
        assert!(
            text.ends_with(&format!("x… [{} more characters]", 2_000_000 - STRING_CHARS)),
            "{text}"
        );
    }

    #[test]
    fn strings_are_cut_on_character_boundaries() {
        let short = shorten_text(&"é".repeat(10), 3);
        assert_eq!(short, "ééé… [7 more characters]");
        assert_eq!(shorten_text("short", 10), "short");
    }

    #[test]
    fn a_long_list_keeps_its_first_items_and_counts_the_rest() {
        let value = Value::Array((0..1000).map(Value::from).collect());
        let short = shorten(&value);
        let items = short.as_array().unwrap();
        assert_eq!(items.len(), ITEMS + 1);
        assert_eq!(items[0], 0);
        assert_eq!(items[ITEMS], format!("… [{} more items]", 1000 - ITEMS));
    }

    #[test]
    fn an_object_with_many_keys_keeps_the_first_and_counts_the_rest() {
        let map: Map<String, Value> = (0..200).map(|i| (format!("k{i}"), Value::from(i))).collect();
        let short = shorten(&Value::Object(map));
        let object = short.as_object().unwrap();
        assert_eq!(object.len(), ITEMS + 1);
        assert_eq!(object["…"], format!("{} more keys", 200 - ITEMS));
    }

    #[test]
    fn deep_nesting_is_cut_with_a_marker() {
        let mut value = json!([1]);
        for _ in 0..100 {
            value = json!([value]);
        }
        let text = shorten(&value).to_string();
        assert!(text.contains("nested too deep to show"), "{text}");
        assert!(text.matches('[').count() < DEPTH + 5, "{text}");
    }

    #[test]
    fn the_whole_value_stays_small_however_its_size_is_spread() {
        // Many lists of many strings of the longest kept length: the budget bounds the total.
        let row =
            Value::Array((0..ITEMS).map(|_| Value::from("y".repeat(STRING_CHARS * 10))).collect());
        let value = Value::Array((0..ITEMS).map(|_| row.clone()).collect());
        assert!(value.to_string().len() > 2_000_000);
        let size = shorten(&value).to_string().len();
        assert!(size < BUDGET * 2, "{size}");
    }
}
