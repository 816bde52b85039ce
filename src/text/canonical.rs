//! Requests as canonical JSON (object keys sorted, no insignificant whitespace) and the replay
//! key hashed from it: what a recorded turn is found by, at record and at replay, by the
//! recordings and by the replies matched by kind alike.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Bumped whenever the key's recipe changes; old keys then stop matching instead of lying.
pub(crate) const KEY_FORMAT: &str = "workshop-recording-v1";

/// JSON with object keys sorted and no insignificant whitespace.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Canonical JSON, indented: for showing requests and diffing them line by line.
pub(crate) fn canonical_pretty(value: &Value) -> String {
    fn sort(v: &Value) -> Value {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(keys.into_iter().map(|k| (k.clone(), sort(&map[k]))).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    serde_json::to_string_pretty(&sort(value)).unwrap_or_default()
}

/// The replay key of a request.
pub fn key(request: &Value) -> String {
    let mut hash = Sha256::new();
    hash.update(KEY_FORMAT.as_bytes());
    hash.update(b"\n");
    hash.update(canonical(request).as_bytes());
    let digest = hash.finalize();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("v1:{hex}")
}
