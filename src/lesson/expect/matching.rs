//! Matching expectations against a value: the first one that does not hold, and where (what
//! was wanted there, in words, is `difference`'s; what a text must carry, `in_text`'s).

use serde_json::Value;

use super::difference::wanted;
pub(crate) use super::difference::Difference;
use super::in_text::{mentioned, quoted, roles};
use super::path::{at, named};
use super::property::asked;
use super::{Expect, Want};
use crate::text::pyrepr::truthy;

/// The first expectation that does not hold.
pub(crate) fn first_difference(
    expect: &[Expect],
    got: &Value,
    args: &[Value],
) -> Result<(), Box<Difference>> {
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
                    length: matches!(e.want, Want::Length(_)),
                    quoted: quoted(e, value, args),
                    roles: roles(e, value, args).err().or_else(|| asked(e, value, args).err()),
                }))
            }
        }
    }
    Ok(())
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

/// Whether one expectation holds of the value at its path; if not, the first place where it
/// fails (deeper than its path for `only_keys` and `each`), what was wanted and what was there.
fn holds(e: &Expect, value: Option<&Value>, args: &[Value]) -> Result<(), Box<Difference>> {
    let ok = match &e.want {
        Want::Equals { value: want, any_order } => match (named(want, args), value) {
            (Some(Value::Array(w)), Some(Value::Array(v))) if *any_order => same_items(w, v),
            (Some(w), Some(v)) => !any_order && w == v,
            _ => false,
        },
        Want::Absent => value.is_none(),
        Want::OneOf { options, or_absent } => match value {
            Some(v) => options.contains(v),
            None => *or_absent,
        },
        Want::IsBool => matches!(value, Some(Value::Bool(_))),
        Want::Truthy(yes) => value.map(truthy).unwrap_or(false) == *yes,
        Want::OnlyKeys(keys) => return only_keys(&e.path, keys, value),
        Want::Contains(want) => match (value, named(want, args)) {
            (Some(Value::String(text)), Some(Value::String(part))) => text.contains(part.as_str()),
            (Some(Value::Array(items)), Some(w)) => items.contains(w),
            _ => false,
        },
        Want::Mentions(text) => value.is_some_and(|v| mentioned(v, text)),
        Want::Quotes { .. } => quoted(e, value, args).is_some(),
        // What holds before `not` turns it around: with `not`, that a name is said in the role.
        Want::Names { .. } => match roles(e, value, args) {
            Ok(()) => !e.not,
            Err(_) if e.not => true,
            Err(verdict) => {
                let mut d = Difference::unmet(&e.path, wanted(e, value, args), value);
                d.roles = Some(verdict);
                return Err(Box::new(d));
            }
        },
        // As for `names`: what holds before `not` turns it around.
        Want::Property { .. } => match asked(e, value, args) {
            Ok(()) => !e.not,
            Err(_) if e.not => true,
            Err(verdict) => {
                let mut d = Difference::unmet(&e.path, wanted(e, value, args), value);
                d.roles = Some(verdict);
                return Err(Box::new(d));
            }
        },
        Want::Length(want) => value.and_then(length).is_some_and(|n| want.fits(n)),
        Want::Each(inner) => match value {
            Some(Value::Array(items)) => return each(&e.path, inner, items, args),
            _ => false,
        },
        Want::Any(inner) => match value {
            Some(Value::Array(items)) => {
                items.iter().any(|item| first_difference(inner, item, args).is_ok())
            }
            _ => false,
        },
    };
    match ok {
        true => Ok(()),
        false => Err(Box::new(Difference::unmet(&e.path, wanted(e, value, args), value))),
    }
}

/// An object with no keys but `keys` (anything else is no object to hold keys it should not).
fn only_keys(path: &str, keys: &[String], value: Option<&Value>) -> Result<(), Box<Difference>> {
    match value.and_then(Value::as_object).and_then(|o| o.keys().find(|k| !keys.contains(k))) {
        Some(extra) => {
            let got = value.and_then(|v| v.get(extra));
            Err(Box::new(Difference::unmet(&join(path, extra), "missing".into(), got)))
        }
        None => Ok(()),
    }
}

/// Every element of the list at `path` meets all of `inner`; else the first that does not, at its
/// own path.
fn each(
    path: &str,
    inner: &[Expect],
    items: &[Value],
    args: &[Value],
) -> Result<(), Box<Difference>> {
    for (i, item) in items.iter().enumerate() {
        if let Err(mut d) = first_difference(inner, item, args) {
            // A nested path that reads an argument names it as it is, not under the element.
            if !d.path.starts_with('@') {
                d.path = join(&join(path, &i.to_string()), &d.path);
            }
            return Err(d);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lesson::expect::written::parse;

    fn eq(path: &str, v: Value) -> Expect {
        Expect::on(path, Want::Equals { value: v, any_order: false })
    }

    /// The message for the first unmet expectation, or "holds".
    fn verdict(expect: &str, got: Value) -> String {
        verdict_with(expect, got, &[])
    }

    fn verdict_with(expect: &str, got: Value, args: &[Value]) -> String {
        let e = parse(expect);
        match first_difference(&[e], &got, args) {
            Ok(()) => "holds".into(),
            Err(d) => d.to_string(),
        }
    }

    #[test]
    fn the_first_unmet_expectation_is_named() {
        let d = first_difference(
            &[eq("error.isRetryable", json!(true))],
            &json!({"error": {"message": "x"}}),
            &[],
        )
        .unwrap_err();
        assert_eq!(d.to_string(), "error.isRetryable: expected True, got missing");
        let d = first_difference(&[eq("isError", json!(true))], &json!({"isError": 1}), &[])
            .unwrap_err();
        assert_eq!(d.to_string(), "isError: expected True, got 1");
        let only = Expect::on("", Want::OnlyKeys(vec!["orders".into()]));
        let d =
            first_difference(&[only], &json!({"orders": [], "isError": false}), &[]).unwrap_err();
        assert_eq!(d.to_string(), "isError: expected missing, got False");
        let d = first_difference(&[eq("a", json!(1))], &json!("text"), &[]).unwrap_err();
        assert_eq!(d.to_string(), "a: expected 1, got missing");
        let maybe =
            Expect::on("isError", Want::OneOf { options: vec![json!(false)], or_absent: true });
        assert!(first_difference(std::slice::from_ref(&maybe), &json!({}), &[]).is_ok());
        assert!(
            first_difference(std::slice::from_ref(&maybe), &json!({"isError": false}), &[]).is_ok()
        );
        assert!(first_difference(&[maybe], &json!({"isError": "false"}), &[]).is_err());
        let yes = Expect::on("", Want::Truthy(true));
        assert!(first_difference(std::slice::from_ref(&yes), &json!("no"), &[]).is_ok());
        assert!(first_difference(&[yes], &json!(0), &[]).is_err());
        let real = Expect::on("f", Want::IsBool);
        assert!(first_difference(&[real], &json!({"f": "true"}), &[]).is_err());
        assert!(first_difference(
            &[eq("@args.0.c", json!("t"))],
            &json!(null),
            &[json!({"c": "t"})]
        )
        .is_ok());
    }

    #[test]
    fn a_negated_expectation_and_an_argument_reference_recognise_a_renamed_category() {
        let args = [json!("transient"), json!("msg")];
        let renamed = eq("error.errorCategory", json!("@args.0")).negated();
        let present = Expect::on("error.errorCategory", Want::Absent).negated();
        let when = [renamed, present];
        assert!(first_difference(&when, &json!({"error": {"errorCategory": "Transient"}}), &args)
            .is_ok());
        assert!(first_difference(&when, &json!({"error": {"errorCategory": "transient"}}), &args)
            .is_err());
        assert!(first_difference(&when, &json!({"error": {}}), &args).is_err());
        let d =
            first_difference(&when[..1], &json!({"error": {"errorCategory": "transient"}}), &args)
                .unwrap_err();
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
            verdict_with(
                r#"{ path = "content.1.tool_use_id", equals = "@args.0.1.id" }"#,
                answer.clone(),
                &blocks
            ),
            "holds"
        );
        assert_eq!(
            verdict_with(
                r#"{ path = "content.0.tool_use_id", equals = "@args.0.1.id" }"#,
                answer,
                &blocks
            ),
            "content.0.tool_use_id: expected 'toolu_2', got 'toolu_1'"
        );
    }

    #[test]
    fn mentions_finds_text_at_any_depth_and_in_keys() {
        let got = json!({"content": [{"type": "tool_result", "content": [{"type": "text", "text": "see db.internal"}]}, {"secret-db.internal": 1}], "n": 5});
        assert_eq!(verdict(r#"{ path = "", mentions = "db.internal" }"#, got.clone()), "holds");
        assert_eq!(verdict(r#"{ path = "content.1", mentions = "secret" }"#, got.clone()), "holds");
        assert!(verdict(r#"{ path = "", mentions = "db.internal", not = true }"#, got.clone())
            .contains("must not be"));
        assert_eq!(
            verdict(r#"{ path = "n", mentions = "5" }"#, got),
            "n: expected a value with '5' somewhere in its text, got 5"
        );
    }

    #[test]
    fn quotes_names_the_longest_piece_of_the_raw_text_that_was_kept() {
        let raw = "Traceback (most recent call last):\n  File \"/srv/app/db.py\", line 9\n\
            OSError: orders-db lost";
        let args = [json!([{ "message": raw }]), json!({ "value": "/srv/app/db.py" })];
        let kept = "[trace] File \"/srv/app/db.py\", line 9 -- [host] lost";
        let masked = json!({"content": [{"content": kept}]});
        assert_eq!(
            verdict_with(r#"{ quotes = "@args.0.0.message", not = true }"#, masked.clone(), &args),
            "the result: must not quote 12 characters or more in a row of \
             'Traceback (most recent call last):\\n  Fil… [50 more characters]': \
             it carries 'File \"/srv/app/db.py\", line 9', word for word, got {'content': \
             [{'content': '[trace] File \"/srv/app/db.py\", line 9 -- [host] lost'}]}"
        );
        // The path is a fact the learner may name: what is left of the piece is too short.
        let except = r#"{ quotes = "@args.0.0.message", except = ["@args.1.value"], not = true }"#;
        assert_eq!(verdict_with(except, masked.clone(), &args), "holds");
        assert_eq!(verdict_with(r#"{ quotes = "@args.0.0.message" }"#, masked, &args), "holds");
        let own = json!({"content": [{"content": "The order service failed; the call was fine."}]});
        let kept_out = r#"{ quotes = "@args.0.0.message", not = true }"#;
        assert_eq!(verdict_with(kept_out, own, &args), "holds");
    }

    #[test]
    fn names_as_asks_each_names_role_and_says_where_it_breaks() {
        let wording: crate::lesson::expect::Wording = toml::from_str(
            r#"
id = "restart"
joins = ["and"]
roles = [
  { id = "left", words = ["not", "still"] },
  { id = "done", words = ["restarted", "already"] },
]
"#,
        )
        .unwrap();
        let wordings = [std::sync::Arc::new(wording)];
        let args = [json!("partial"), json!({"done": ["c-1", "c-2"], "left": ["c-3"]})];
        let verdict_of = |expect: &str, got: &str| {
            let mut e = parse(expect);
            assert!(e.word(&wordings).is_empty());
            match first_difference(&[e], &json!(got), &args) {
                Ok(()) => "holds".to_string(),
                Err(d) => d.verdict(),
            }
        };
        let done = r#"{ names = "@args.1.done", as = "done" }"#;
        let left = r#"{ names = "@args.1.left", as = "done", not = true }"#;
        let right = "c-1 and c-2 restarted, c-3 not.";
        assert_eq!(verdict_of(done, right), "holds");
        assert_eq!(verdict_of(left, right), "holds");
        let swapped = "Already restarted: c-3. Still: c-1 and c-2.";
        assert_eq!(
            verdict_of(done, swapped),
            "expected 'c-1' named as done: it is named as left, in 'Still: c-1 and c-2'"
        );
        let named = "must not name 'c-3' as done: it does, in 'Already restarted: c-3'";
        assert_eq!(verdict_of(left, swapped), named);
        assert_eq!(
            verdict_of(done, "Pods c-1, c-2."),
            "expected 'c-1' named as done: no word of a role stands beside it, in 'Pods c-1, c-2'"
        );
        assert_eq!(verdict_of(done, "Nothing."), "expected 'c-1' named as done: it is not named");
        // Inside any or each, the role reads the element's text.
        let any = r#"{ any = [{ names = "@args.1.done", as = "done" }] }"#;
        assert_eq!(
            verdict_of(any, "c-1, c-2 restarted"),
            "expected a list with an element that is each of ['c-1', 'c-2'] named as done"
        );
        let mut nested = parse(any);
        let list = json!(["x", "c-1 and c-2 restarted"]);
        assert!(first_difference(&[nested.clone()], &list, &args).is_err());
        assert!(nested.word(&wordings).is_empty());
        assert!(first_difference(&[nested], &list, &args).is_ok());
        let mut unknown = parse(r#"{ names = "x", as = "paid" }"#);
        assert_eq!(unknown.word(&wordings), ["paid"]);
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
        assert_eq!(
            verdict(r#"{ path = "n", contains = 5 }"#, got.clone()),
            "n: expected a list containing 5, got 5"
        );
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
        assert_eq!(
            verdict(r#"{ path = "n", len = 3 }"#, got.clone()),
            "n: expected a length of 3, got 3"
        );
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
        let got =
            json!({"content": [{"type": "tool_result", "is_error": false}, {"type": "text"}]});
        assert_eq!(
            verdict(
                r#"{ path = "content", each = [{ path = "type", equals = "tool_result" }] }"#,
                got.clone()
            ),
            "content.1.type: expected 'tool_result', got 'text'"
        );
        assert_eq!(verdict(r#"{ path = "content.0", each = [{ path = "type", equals = "tool_result" }] }"#, got.clone()),
            "content.0: expected a list where every element has type 'tool_result', got {'type': 'tool_result', 'is_error': False}");
        assert_eq!(
            verdict(
                r#"{ path = "content", each = [{ path = "type", one_of = ["tool_result", "text"] }] }"#,
                got
            ),
            "holds"
        );
        assert_eq!(
            verdict(r#"{ each = [{ equals = 1 }] }"#, json!([])),
            "holds",
            "an empty list: every element holds"
        );
        assert_eq!(
            verdict(r#"{ each = [{ equals = 1 }] }"#, json!([1, 2])),
            "1: expected 1, got 2"
        );
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
        let got =
            json!({"content": [{"type": "text", "id": "b"}, {"type": "tool_result", "id": "a"}]});
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
        assert_eq!(
            verdict(r#"{ path = "ids", equals = ["a", "a", "b"], any_order = true }"#, got.clone()),
            "holds"
        );
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
            verdict_with(
                r#"{ equals = "@args.0", any_order = true }"#,
                json!([2, 1]),
                &[json!([1, 2])]
            ),
            "holds"
        );
        assert_eq!(
            verdict_with(r#"{ equals = "@args.0", any_order = true }"#, json!(1), &[json!(1)]),
            "the result: expected 1 in any order, got 1"
        );
    }
}
