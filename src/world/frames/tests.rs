//! The golden frames of the world host's answers, read; and each with a key renamed or
//! missing, refused with a message naming the key and the answer.

use serde_json::{json, Value};

use super::{effects, loaded, read, HostSaid};

const GOLDEN: &str = include_str!("../../../tests/fixtures/protocol/world_answers.json");

fn golden(name: &str) -> Value {
    let all: Value = serde_json::from_str(GOLDEN).unwrap();
    all[name].clone()
}

/// A frame read the way its kind is: a loaded world and an `effects` value read their value too.
fn reads(name: &str, frame: Value) -> Result<(), String> {
    let answer = read(frame)?;
    match (name, answer.said) {
        ("loaded", HostSaid::Value(v)) => loaded(v).map(drop),
        ("effects", HostSaid::Value(v)) => {
            effects("the value of an `effects` question", v).map(drop)
        }
        _ => Ok(()),
    }
}

/// The keys every frame must have, by path, with the answer each is part of.
const REQUIRED: [(&str, &[&str], &str); 21] = [
    ("failure", &["failure", "category"], "`failure` answer"),
    ("failure", &["failure", "message"], "`failure` answer"),
    ("failure", &["failure", "verify"], "`failure` answer"),
    ("failure", &["failure", "fields"], "`failure` answer"),
    ("error", &["error", "message"], "`error` answer"),
    ("error", &["error", "doing"], "`error` answer"),
    ("call_value", &["effects", "counts"], "`effects` of an answer"),
    ("call_value", &["effects", "detail"], "`effects` of an answer"),
    ("call_value", &["effects", "harms"], "`effects` of an answer"),
    ("loaded", &["value", "behaviours"], "loaded world"),
    ("loaded", &["value", "messages"], "loaded world"),
    ("loaded", &["value", "fields"], "loaded world"),
    ("loaded", &["value", "counts"], "loaded world"),
    ("loaded", &["value", "retry_helps"], "loaded world"),
    ("loaded", &["value", "internal"], "loaded world"),
    ("effects", &["value", "counts"], "`effects` question"),
    ("effects", &["value", "detail"], "`effects` question"),
    ("effects", &["value", "harms"], "`effects` question"),
    ("value", &["value"], "exactly one"),
    ("problems", &["problems"], "exactly one"),
    ("lost", &["lost"], "exactly one"),
];

/// The object holding the last key of `path`.
fn holder<'v>(frame: &'v mut Value, path: &[&str]) -> &'v mut serde_json::Map<String, Value> {
    let mut at = frame;
    for key in &path[..path.len() - 1] {
        at = &mut at[*key];
    }
    at.as_object_mut().unwrap()
}

#[test]
fn every_golden_frame_reads() {
    let names = ["value", "value_null", "call_value", "failure", "problems", "lost", "error"];
    for name in names.into_iter().chain(["loaded", "effects"]) {
        reads(name, golden(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let call = read(golden("call_value")).unwrap();
    assert_eq!(call.lines, ["the payment service was asked twice"]);
    assert_eq!(call.effects.unwrap().counts["refunds_paid"], json!(1));
    assert_eq!(read(golden("value_null")).unwrap().said, HostSaid::Value(Value::Null));
    let HostSaid::Failed(failure) = read(golden("failure")).unwrap().said else {
        panic!("a failure")
    };
    assert_eq!((failure.category.as_str(), failure.verify), ("business", None));
    assert_eq!(read(golden("lost")).unwrap().said, HostSaid::Lost);
    let HostSaid::Error(error) = read(golden("error")).unwrap().said else { panic!("an error") };
    assert_eq!((error.line, error.function.as_deref()), (Some(12), Some("pay")));
    let HostSaid::Value(value) = read(golden("loaded")).unwrap().said else { panic!("a value") };
    assert_eq!(loaded(value).unwrap().counts["old-order"], ["refunds_paid"]);
}

#[test]
fn a_missing_key_is_refused_naming_it_and_its_answer() {
    for (name, path, answer) in REQUIRED {
        let mut frame = golden(name);
        let key = path[path.len() - 1];
        holder(&mut frame, path).remove(key);
        let why = reads(name, frame).expect_err(&format!("{name} without {key}"));
        assert!(why.contains(key) && why.contains(answer), "{name} without {key}: {why}");
    }
}

#[test]
fn a_renamed_key_is_refused_naming_it_and_its_answer() {
    for (name, path, answer) in REQUIRED {
        let mut frame = golden(name);
        let key = path[path.len() - 1];
        let object = holder(&mut frame, path);
        let value = object.remove(key).unwrap();
        object.insert(format!("{key}_renamed"), value);
        let why = reads(name, frame).expect_err(&format!("{name} with {key} renamed"));
        let answer = if path.len() == 1 { "an answer" } else { answer };
        let named = why.contains(&format!("{key}_renamed")) && why.contains(answer);
        assert!(named, "{name}, {key} renamed: {why}");
    }
    let mut call = golden("call_value");
    let lines = call.as_object_mut().unwrap().remove("said").unwrap();
    call["siad"] = lines;
    let why = read(call).err().unwrap();
    assert!(why.contains("`siad`") && why.contains("`said`"), "{why}");
}

#[test]
fn a_part_of_the_wrong_shape_is_refused_naming_the_part() {
    let why = read(json!({"value": 1, "said": "one line"})).err().unwrap();
    assert!(why.contains("`said` lines"), "{why}");
    let why = read(json!({"problems": [["near only"]]})).err().unwrap();
    assert!(why.contains("`problems` answer"), "{why}");
    let why = read(json!({"value": 1, "error": {"message": "m", "doing": "d"}})).err().unwrap();
    assert!(why.contains("value and error"), "{why}");
}
