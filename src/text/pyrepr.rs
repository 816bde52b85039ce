//! JSON values written the way Python prints them, because the learner writes Python.

use serde_json::Value;

/// Python's truthiness of a JSON value, as an `if` in the learner's code reads it.
pub(crate) fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// `repr()` of the Python value a JSON value decodes to.
pub(crate) fn repr(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out);
    out
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => out.push_str(&string(s)),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&string(key));
                out.push_str(": ");
                write(item, out);
            }
            out.push('}');
        }
    }
}

/// A Python string literal: single quotes unless the text has one and no double quote.
pub(crate) fn string(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => match crate::text::inert::escape(c) {
                Some(escaped) => out.push_str(&escaped),
                None => out.push(c),
            },
        }
    }
    out.push(quote);
    out
}

/// A call named by its function and its first argument when that is short (a kind, a tool),
/// the rest left out: `message('partial', …)`.
pub(crate) fn short_call(function: &str, args: &[Value]) -> String {
    let function = shown_name(function);
    let first = args.first().map(repr).filter(|r| r.chars().count() <= 32);
    match (first, args.len()) {
        (None, 0) => format!("{function}()"),
        (None, _) => format!("{function}(…)"),
        (Some(first), 1) => format!("{function}({first})"),
        (Some(first), _) => format!("{function}({first}, …)"),
    }
}

/// A function as the learner's file names it: a kit's function (`anthropic:answer`) by its own
/// name (`answer`), the kit being the lesson's business, not the file's.
pub(crate) fn shown_name(function: &str) -> &str {
    function.split_once(':').map_or(function, |(_, name)| name)
}

/// `name(arg, arg)`. A kit's function (`anthropic:answer`) is given what the kit makes of its
/// first argument: `answer(client, clock, run_tool, 'text')`, then what the stand-in answers.
pub(crate) fn call(function: &str, args: &[Value]) -> String {
    if let Some((kit, name)) = function.split_once(':') {
        let rest: String = args.iter().skip(1).map(|a| format!(", {}", repr(a))).collect();
        let given = args.first().map(repr).unwrap_or_else(|| "nothing".into());
        return format!(
            "{name}(client, clock, run_tool{rest}), the {kit} stand-in answering {given}"
        );
    }
    let args: Vec<String> = args.iter().map(repr).collect();
    format!("{function}({})", args.join(", "))
}

/// `name(key='value')`: a tool call with its input as keyword arguments.
pub(crate) fn keyword_call(function: &str, input: &Value) -> String {
    let args: Vec<String> = match input.as_object() {
        Some(map) => map.iter().map(|(k, v)| format!("{k}={}", repr(v))).collect(),
        None if input.is_null() => Vec::new(),
        None => vec![repr(input)],
    };
    format!("{function}({})", args.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_kit_call_shows_what_the_function_is_given() {
        let args = [json!({"answers": []}), json!("hi")];
        assert_eq!(
            call("anthropic:answer", &args),
            "answer(client, clock, run_tool, 'hi'), the anthropic stand-in answering {'answers': []}"
        );
        assert_eq!(call("decide", &args[1..]), "decide('hi')");
    }

    #[test]
    fn a_kit_function_is_named_short_as_the_file_names_it() {
        let args = [json!({"answers": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]}), json!("hi")];
        assert_eq!(short_call("anthropic:answer", &args), "answer(…)");
        assert_eq!(short_call("decide", &args[1..]), "decide('hi')");
    }

    #[test]
    fn writes_python_literals() {
        assert_eq!(
            repr(&json!({"isError": true, "e": null, "n": [1, 2.5]})),
            "{'isError': True, 'e': None, 'n': [1, 2.5]}"
        );
        assert_eq!(string("it's"), "\"it's\"");
        assert_eq!(string("a'b\"c\n"), "'a\\'b\"c\\n'");
        assert_eq!(
            keyword_call("process_refund", &json!({"order_id": "0871"})),
            "process_refund(order_id='0871')"
        );
        assert_eq!(keyword_call("lookup_orders", &json!({})), "lookup_orders()");
    }
}
