//! The shape a list of expectations describes, as a failed check's `expected`: the values
//! wanted at their paths, nested as the paths say.

use serde_json::{Map, Value};

use super::path::named;
use super::{Expect, Want};

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
        let want = match &e.want {
            Want::Equals { value, .. } => named(value, args).cloned().unwrap_or(Value::Null),
            // A value that may also be left out is no requirement: it is not shown as one.
            Want::OneOf { options, or_absent: false } if !options.is_empty() => options[0].clone(),
            Want::Truthy(yes) => Value::Bool(*yes),
            _ => continue,
        };
        // A position far down a list would be shown as that many nulls before it: left out.
        let far =
            e.path.split('.').any(|part| part.parse::<usize>().is_ok_and(|i| i > SHOWN_POSITIONS));
        if e.path.starts_with('@') || far {
            continue;
        }
        named_any = true;
        if e.path.is_empty() {
            shape = want;
        } else {
            *slot(&mut shape, &e.path) = want;
        }
    }
    named_any.then_some(shape)
}

/// The place at a dotted path in the shape, made (as a list or an object) where it is not yet.
fn slot<'s>(shape: &'s mut Value, path: &str) -> &'s mut Value {
    let mut slot = shape;
    for part in path.split('.') {
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
    slot
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lesson::expect::Length;

    fn eq(path: &str, v: Value) -> Expect {
        Expect::on(path, Want::Equals { value: v, any_order: false })
    }

    #[test]
    fn the_expected_shape_nests_its_paths_and_leaves_out_what_must_not_be() {
        let shape = expected_shape(
            &[eq("error.isRetryable", json!(false)), eq("isError", json!(true))],
            &[],
        );
        assert_eq!(shape, Some(json!({"error": {"isRetryable": false}, "isError": true})));
        let negated = eq("error.errorCategory", json!("Transient")).negated();
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
        let counted = Expect::on("content", Want::Length(Length::Exact(2)));
        assert_eq!(
            expected_shape(&[counted], &[]),
            None,
            "nothing names a value: no shape to show"
        );
        assert_eq!(
            expected_shape(&[eq("a.4000000000", json!(1))], &[]),
            None,
            "no list of four billion nulls"
        );
        assert_eq!(
            expected_shape(&[eq("", json!({}))], &[]),
            Some(json!({})),
            "an empty object that is wanted"
        );
    }

    #[test]
    fn the_expected_shape_shows_the_first_of_several_allowed_values_unless_leaving_it_out_is_allowed_too(
    ) {
        let options = vec![json!("transient"), json!("validation")];
        let either = Expect::on(
            "error.errorCategory",
            Want::OneOf { options: options.clone(), or_absent: false },
        );
        assert_eq!(
            expected_shape(&[either], &[]),
            Some(json!({"error": {"errorCategory": "transient"}}))
        );
        let or_absent = Expect::on("error.errorCategory", Want::OneOf { options, or_absent: true });
        assert_eq!(
            expected_shape(&[or_absent], &[]),
            None,
            "a value that may be left out is no requirement"
        );
        let none = Expect::on(
            "error.errorCategory",
            Want::OneOf { options: Vec::new(), or_absent: false },
        );
        assert_eq!(expected_shape(&[none], &[]), None, "no value to show");
    }
}
