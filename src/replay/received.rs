//! What the model received for one attempt: the `tool_result` it read (or the protocol error
//! that kept it from the model, or nothing), and the facts read from it once, so the story, the
//! notes and the cards judge a run by what the model read and never by what the code meant to
//! send. The world's counts stay the world's.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::lesson::expect::{quoted_piece, said, Property, Wording};
use crate::world::{Failure, Setting};

/// What reached the model for an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Got {
    /// A `tool_result` block, read in the next request.
    Result,
    /// The request that carried the block was refused (a broken tool-use rule): the model read
    /// nothing of it.
    Refused,
    /// The result was never sent: the code tried the call again first.
    Nothing,
}

/// One of the failure's facts the text names, and the role it names it in (`[[wording]]`),
/// when words of a role stand beside it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Named {
    pub fact: String,
    pub value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

/// The record of what the model received for one attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Received {
    pub got: Got,
    /// The exact `tool_result` block, when one was built.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<Value>,
    /// The protocol error that refused the request carrying it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The result answers a failure (not a success, nor a read that showed the call went
    /// through).
    pub failure: bool,
    /// The block was flagged (`is_error: true`).
    pub flagged: bool,
    /// The block had no text at all.
    pub empty: bool,
    /// A failure whose block carries nothing of this failure: none of the world's words for it,
    /// none of its facts, not its category, nor a sentence of the code's own where the world's
    /// text must stay out. A fixed line such as "Tool call failed." is bare.
    pub bare: bool,
    /// Pieces of the failure's raw text (what the world marks internal) the block carries word
    /// for word, 12 characters or more each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub verbatim: Vec<String>,
    /// The failure's facts the block names, each with its role.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<Named>,
    /// The failure's facts (fields with text) the block does not name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unnamed: Vec<String>,
    /// The lesson's properties (`[properties]`) the text of a failure has, read with its
    /// facts, each with what a card may say of it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub has: Vec<Had>,
    /// The lesson's properties it lacks, each with why; one whose facts the failure does not
    /// carry is in neither list.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lacks: Vec<Had>,
}

/// One property read on what the model received: its id and, where it holds, what a card may
/// say of the text (where not, why not).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Had {
    pub property: String,
    pub says: String,
}

/// The shortest sentence of the code's own that says anything of a failure whose world text
/// must stay out (as lesson texts ask of an own sentence).
const OWN_SENTENCE: usize = 20;

/// The most verbatim pieces listed: enough to show the leak, not the whole text again.
const MOST_PIECES: usize = 6;

impl Received {
    /// An attempt whose result the model never saw.
    pub(crate) fn nothing() -> Received {
        Received {
            got: Got::Nothing,
            block: None,
            error: None,
            failure: false,
            flagged: false,
            empty: true,
            bare: false,
            verbatim: Vec::new(),
            names: Vec::new(),
            unnamed: Vec::new(),
            has: Vec::new(),
            lacks: Vec::new(),
        }
    }

    /// Whether the model read this result (it was sent and the request was not refused).
    pub fn read(&self) -> bool {
        self.got == Got::Result
    }
}

/// What the model read of one failure, and the words it has to go by: the parts of a reading.
pub(crate) struct Reading<'a> {
    pub(crate) block: Option<&'a Value>,
    /// The protocol error of the request that carried the block, when it was refused.
    pub(crate) refused: Option<&'a str>,
    /// The failure the world reported, where no read settled it (`None` for a success).
    pub(crate) failure: Option<&'a Failure>,
    /// The code's result for it was a failure (it may make one a valid answer: an empty list).
    pub(crate) failed: bool,
    /// The code's result says of itself what failure it is (a category or a retry flag), flag
    /// or not.
    pub(crate) shaped: bool,
    /// The call's input: the model's own words, which a failure's text may repeat.
    pub(crate) asked: &'a [&'a str],
    pub(crate) wording: &'a [Wording],
    pub(crate) properties: &'a BTreeMap<String, Property>,
    /// The call: its tool and input, facts a property may read besides the failure's.
    pub(crate) call: (&'a str, &'a Value),
}

/// The record of what the model received, read once.
pub(crate) fn received(reading: &Reading<'_>, setting: &dyn Setting) -> Received {
    let Some(block) = reading.block else {
        // No block for the call: the model read nothing, and where the request went out
        // anyway, the protocol error is what that request got.
        let error = reading.refused.map(String::from);
        let got = if error.is_some() { Got::Refused } else { Got::Nothing };
        return Received { got, error, ..Received::nothing() };
    };
    let text = block_text(block);
    let flagged = block.get("is_error") == Some(&Value::Bool(true));
    let empty = text.trim().is_empty();
    let internal = reading.failure.filter(|f| setting.internal(&f.category));
    let verbatim = internal.map(|f| pieces(&text, &f.message, reading.asked)).unwrap_or_default();
    let named_in = |f: &Failure| named(&text, &f.fields, reading.wording);
    let names = reading.failure.map(named_in).unwrap_or_default();
    // What of the failure the text carries: its world words, facts, category or raw text.
    let about = reading.failure.is_some_and(|f| {
        !verbatim.is_empty()
            || !names.is_empty()
            || has_word(&text, &f.category)
            || (internal.is_none() && carries(&text, &f.message, reading.asked))
    });
    // Where the world's text must stay out, a sentence of the code's own is all it can say.
    let own_sentence = internal.is_some() && text.trim().chars().count() >= OWN_SENTENCE;
    let bare = reading.failed && reading.failure.is_some() && (empty || !(about || own_sentence));
    let (got, error) = match reading.refused {
        Some(error) => (Got::Refused, Some(error.to_string())),
        None => (Got::Result, None),
    };
    // A failure the code sent as one, or shaped as one with its flag left off (a no sent
    // unflagged), not an answer it made valid (an empty list).
    let failure = reading.failure.is_some() && (reading.failed || reading.shaped);
    let block = Some(block.clone());
    let unnamed = match reading.failure.filter(|_| failure) {
        Some(f) => unnamed(&f.fields, &names),
        None => Vec::new(),
    };
    let (has, lacks) = match reading.failure.filter(|_| failure) {
        Some(f) => properties(&text, &facts(f, reading.call), reading.properties),
        None => (Vec::new(), Vec::new()),
    };
    Received {
        got,
        block,
        error,
        failure,
        flagged,
        empty,
        bare,
        verbatim,
        names,
        unnamed,
        has,
        lacks,
    }
}

/// A failure's facts as a property reads them: its fields, its raw text as `raw`, its category
/// as `kind`, and the call's `tool` and `input` (as a lesson's checks hand them to `message`).
fn facts(failure: &Failure, (tool, input): (&str, &Value)) -> Value {
    let mut facts = failure.fields.clone();
    facts.insert("raw".into(), Value::from(failure.message.as_str()));
    facts.insert("kind".into(), Value::from(failure.category.as_str()));
    facts.insert("tool".into(), Value::from(tool));
    facts.insert("input".into(), input.clone());
    Value::Object(facts)
}

/// The properties the text has and those it lacks, read with the failure's facts; one that
/// reads a fact the failure does not carry is in neither.
fn properties(
    text: &str,
    facts: &Value,
    declared: &BTreeMap<String, Property>,
) -> (Vec<Had>, Vec<Had>) {
    let (mut has, mut lacks) = (Vec::new(), Vec::new());
    let text = Value::from(text);
    for (id, p) in declared {
        if p.missing(facts).is_some() {
            continue;
        }
        match p.test(&text, facts) {
            Ok(()) => has.push(Had { property: id.clone(), says: p.claim(facts) }),
            Err(why) => lacks.push(Had { property: id.clone(), says: why }),
        }
    }
    (has, lacks)
}

/// The text a `tool_result` block gives the model: its content string, or its text blocks.
pub(crate) fn block_text(block: &Value) -> String {
    match block.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => {
            let texts = parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str));
            texts.collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}

/// Whether `text` carries the world's message for the failure: all of it, or a piece of it
/// word for word (the model's own words cut out).
fn carries(text: &str, message: &str, asked: &[&str]) -> bool {
    let message = message.trim();
    !message.is_empty() && (text.contains(message) || quoted_piece(text, message, asked).is_some())
}

/// Every piece of `raw` that `text` carries word for word, longest first, each cut out of the
/// text before the next is looked for.
fn pieces(text: &str, raw: &str, asked: &[&str]) -> Vec<String> {
    let mut rest = text.to_string();
    let mut out = Vec::new();
    if raw.trim().is_empty() {
        return out;
    }
    if rest.contains(raw.trim()) {
        return vec![raw.trim().to_string()];
    }
    while out.len() < MOST_PIECES {
        let Some(piece) = quoted_piece(&rest, raw, asked) else { break };
        if piece.is_empty() || !rest.contains(&piece) {
            break;
        }
        rest = rest.replace(&piece, "\u{1}");
        out.push(piece);
    }
    out
}

/// Whether `word` stands in `text` as a whole word, in any case.
fn has_word(text: &str, word: &str) -> bool {
    let word = word.to_lowercase();
    let apart = |c: char| !c.is_alphanumeric() && c != '_' && c != '-';
    !word.is_empty() && text.to_lowercase().split(apart).any(|w| w == word)
}

/// The failure's facts (its string fields, and the strings of list fields) the text names,
/// each with the role the lesson's wordings give it there (read with all of them at once, so a
/// list of names takes its role together).
fn named(text: &str, fields: &Map<String, Value>, wording: &[Wording]) -> Vec<Named> {
    let mut facts: Vec<(&str, &str)> = Vec::new();
    for (fact, value) in fields {
        let values: Vec<&str> = match value {
            Value::String(s) => vec![s.as_str()],
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let long_enough = values.into_iter().filter(|v| v.trim().chars().count() >= 2);
        facts.extend(long_enough.map(|v| (fact.as_str(), v)));
    }
    let values: Vec<&str> = facts.iter().map(|(_, v)| *v).collect();
    let places: Vec<_> = wording.iter().flat_map(|w| said(text, &values, w)).collect();
    let mut out = Vec::new();
    for (i, (fact, value)) in facts.iter().enumerate() {
        let role = places.iter().filter(|s| s.name == i).find_map(|s| s.role.clone());
        if role.is_some() || names_whole(text, value) {
            out.push(Named { fact: fact.to_string(), value: value.to_string(), role });
        }
    }
    out
}

/// The failure's facts with text (a string, or a list of strings) that `names` leaves out.
fn unnamed(fields: &Map<String, Value>, names: &[Named]) -> Vec<String> {
    let texts = |v: &Value| match v {
        Value::String(s) => !s.trim().is_empty(),
        Value::Array(items) => items.iter().any(Value::is_string),
        _ => false,
    };
    let told = |fact: &String| names.iter().any(|n| n.fact == *fact);
    fields.iter().filter(|(fact, v)| texts(v) && !told(fact)).map(|(f, _)| f.clone()).collect()
}

/// Whether `value` stands in `text` not inside a longer word.
fn names_whole(text: &str, value: &str) -> bool {
    text.match_indices(value).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + value.len()..].chars().next();
        let inside = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !inside(before) && !inside(after)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug)]
    struct Plain;

    impl Setting for Plain {
        fn start(&self, _ticket: &str) -> Box<dyn crate::world::World + '_> {
            unreachable!("a reading needs no run")
        }
        fn message(&self, _key: &str) -> Option<&str> {
            None
        }
        fn retry_helps(&self, _category: &str) -> bool {
            false
        }
        fn internal(&self, category: &str) -> bool {
            category == "crash"
        }
        fn draw_fields(&self, _draw: &mut dyn FnMut(u64) -> u64) -> Vec<(String, String)> {
            Vec::new()
        }
        fn summary(&self, _output: &Value) -> Option<String> {
            None
        }
    }

    fn failure(category: &str, message: &str, fields: Value) -> Failure {
        let fields = fields.as_object().cloned().unwrap_or_default();
        Failure { category: category.into(), message: message.into(), verify: None, fields }
    }

    fn read(content: &str, flagged: bool, f: &Failure) -> Received {
        let block = json!({"type": "tool_result", "content": content, "is_error": flagged});
        let (block, failure) = (Some(&block), Some(f));
        let (failed, shaped, refused) = (true, true, None);
        let none = BTreeMap::new();
        let (asked, wording, properties, call) = (&[][..], &[][..], &none, ("t", &Value::Null));
        let reading =
            Reading { block, refused, failure, failed, shaped, asked, wording, properties, call };
        received(&reading, &Plain)
    }

    #[test]
    fn a_fixed_line_is_bare_and_the_worlds_words_or_facts_are_not() {
        let next = json!({"next_sailing": "09:00"});
        let full = failure("business", "The 07:00 sailing is full.", next);
        let fixed = read("Tool call failed.", true, &full);
        assert!(fixed.bare && fixed.flagged && !fixed.empty);
        assert!(!read("The 07:00 sailing is full.", true, &full).bare);
        let next = read("No seat; the 09:00 has some.", false, &full);
        assert!(!next.bare && !next.flagged);
        let (fact, value) = ("next_sailing".to_string(), "09:00".to_string());
        assert_eq!(next.names, [Named { fact, value, role: None }]);
        assert!(read("", true, &full).bare && read("", true, &full).empty);
        let category = read("{\"category\": \"business\"}", true, &full);
        assert!(!category.bare, "its category says something");
    }

    #[test]
    fn a_sentence_of_its_own_is_not_bare_where_the_raw_text_stays_out_and_a_piece_is_listed() {
        let raw = "Traceback (most recent call last): db.internal:5432 refused";
        let crash = failure("crash", raw, json!({}));
        assert!(read("Tool call failed.", true, &crash).bare);
        let own = read("The lookup broke on the shop's side; try again later.", true, &crash);
        assert!(!own.bare && own.verbatim.is_empty());
        let quoted = read("It said: Traceback (most recent call last), sorry.", true, &crash);
        assert_eq!(quoted.verbatim, ["Traceback (most recent call last"]);
        assert!(!quoted.bare);
    }

    #[test]
    fn nothing_sent_and_a_refused_request_are_told_apart_from_a_result() {
        let full = failure("business", "The 07:00 sailing is full.", json!({}));
        assert_eq!(Received::nothing().got, Got::Nothing);
        let block = json!({"type": "tool_result", "tool_use_id": "t", "content": "x"});
        let reading = Reading {
            block: Some(&block),
            refused: Some("tool_result must come first"),
            failure: Some(&full),
            failed: true,
            shaped: true,
            asked: &[],
            wording: &[],
            properties: &BTreeMap::new(),
            call: ("t", &Value::Null),
        };
        let got = received(&reading, &Plain);
        assert_eq!((got.got, got.read()), (Got::Refused, false));
    }
}
