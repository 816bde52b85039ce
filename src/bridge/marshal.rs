//! Requests as the runner reads them: a length, then the value in Python's `marshal` format.

use serde_json::Value;

/// A request as the runner reads it: its length (4 bytes, little-endian), then the value in
/// Python's `marshal` format, which the interpreter reads with a module built into it, where JSON
/// would cost every start the loading of `_json`. Only the plain types JSON has are written
/// (None, booleans, integers, floats, strings, lists, dicts), in codes every Python 3 reads.
pub(super) fn request_frame(value: &Value) -> Vec<u8> {
    let mut out = vec![0; 4];
    marshal(value, &mut out);
    let length = u32::try_from(out.len() - 4).unwrap_or(u32::MAX);
    out[..4].copy_from_slice(&length.to_le_bytes());
    out
}

fn marshal(value: &Value, out: &mut Vec<u8>) {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
    match value {
        Value::Null => out.push(b'N'),
        Value::Bool(true) => out.push(b'T'),
        Value::Bool(false) => out.push(b'F'),
        Value::Number(n) => {
            if let Some(small) = n.as_i64().and_then(|i| i32::try_from(i).ok()) {
                out.push(b'i');
                out.extend_from_slice(&small.to_le_bytes());
            } else if let Some(big) =
                n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))
            {
                // A long: its magnitude in 15-bit digits, least significant first; the count
                // carries the sign.
                let mut digits = Vec::new();
                let mut rest = big.unsigned_abs();
                while rest > 0 {
                    digits.push((rest & 0x7fff) as u16);
                    rest >>= 15;
                }
                let n = digits.len() as i32;
                out.push(b'l');
                out.extend_from_slice(&(if big < 0 { -n } else { n }).to_le_bytes());
                for digit in digits {
                    out.extend_from_slice(&digit.to_le_bytes());
                }
            } else {
                out.push(b'g');
                out.extend_from_slice(&n.as_f64().unwrap_or(f64::NAN).to_le_bytes());
            }
        }
        Value::String(s) => {
            out.push(b'u');
            out.extend_from_slice(&count(s.len()));
            out.extend_from_slice(s.as_bytes());
        }
        Value::Array(items) => {
            out.push(b'[');
            out.extend_from_slice(&count(items.len()));
            for item in items {
                marshal(item, out);
            }
        }
        Value::Object(map) => {
            out.push(b'{');
            for (key, item) in map {
                marshal(&Value::String(key.clone()), out);
                marshal(item, out);
            }
            out.push(b'0');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::io::Write;
    use std::process::{Command, Stdio};

    use crate::bridge::BridgeConfig;

    #[test]
    fn python_reads_a_request_frame_as_the_value_it_holds() {
        let value = serde_json::json!({
            "id": 7, "fn": "fail", "args": [
                "transient", "Order 0871 — « wobbly » 🙂", null, true, false, [], {},
                2147483647, 2147483648_i64, -2147483648_i64, -2147483649_i64, u64::MAX, i64::MIN,
                0.1, -1e300, {"nested": [[1, {"a": "b"}]]}
            ]
        });
        let frame = request_frame(&value);
        assert_eq!(u32::from_le_bytes(frame[..4].try_into().unwrap()) as usize, frame.len() - 4);
        let mut python = Command::new(BridgeConfig::default_python())
            .args(["-I", "-S", "-c", "import marshal, sys, json\nd = sys.stdin.buffer.read()\nn = int.from_bytes(d[:4], 'little')\nassert len(d) == 4 + n\nprint(json.dumps(marshal.loads(d[4:])))"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the tests need Python 3");
        python.stdin.take().unwrap().write_all(&frame).unwrap();
        let out = python.wait_with_output().unwrap();
        assert!(out.status.success());
        let back: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(back, value);
    }
}
