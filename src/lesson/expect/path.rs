//! The value an expectation's path reaches: a key of an object, a position in a list, or one of
//! the call's arguments.

use serde_json::Value;

/// The value at a dotted path: a key of an object, or a position (from 0) in a list; `@args.N`
/// is the call's N-th argument.
pub(super) fn at<'v>(got: &'v Value, args: &'v [Value], path: &str) -> Option<&'v Value> {
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

/// A value an expectation names: `"@args.N..."` is the call's argument, anything else itself.
pub(super) fn named<'v>(want: &'v Value, args: &'v [Value]) -> Option<&'v Value> {
    match want.as_str() {
        Some(path) if path.starts_with('@') => at(&Value::Null, args, path),
        _ => Some(want),
    }
}
