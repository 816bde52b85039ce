//! Replay by kind: where a recorded reply does not depend on the exact words the learner's code
//! sends (a sentence of its own for a crash), the lesson says which kinds of words it does
//! depend on, as expectations the check engine matches. The replay key is then computed over the
//! request with each such part replaced by its kind, so any sentence of a recorded kind finds
//! the reply written for another sentence of that kind, and the card says so.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::lesson::expect::{first_difference, Expectations, Property};

/// Words in a request that a reply depends on only by their kind (`[[own_words]]` in a
/// lesson's manifest).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Words {
    pub id: String,
    /// What a card calls them: "the sentence sent for a crash".
    pub name: String,
    /// The tickets whose replays key these words by kind; empty for every ticket.
    #[serde(default)]
    pub tickets: Vec<String>,
    /// Which content blocks of the request's messages hold them (expectations on the block).
    pub blocks: Expectations,
    /// The key of such a block that holds the words (`content`).
    pub part: String,
    /// The failure's facts the kinds' properties read (`@facts.<name>`): those of the tickets
    /// these words are sent in.
    #[serde(default)]
    pub facts: Value,
    /// The kinds, tried in order; the first whose `when` holds of the block names the words.
    pub kinds: Vec<Kind>,
}

/// One kind of words a reply depends on.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kind {
    pub id: String,
    /// The kind in words, for the cards: "flagged, and nothing of the crash's text". Only for
    /// a kind of no `properties`: a kind of properties is told by what they say.
    #[serde(default)]
    pub says: Option<String>,
    /// Expectations on the block, its part read as text (a list of text blocks as their texts).
    #[serde(default)]
    pub when: Expectations,
    /// The lesson's properties (`[properties]`) the words must all have, read on their text
    /// with the declaration's `facts`.
    #[serde(default)]
    pub properties: Vec<String>,
    /// The properties, found as the lesson loads.
    #[serde(skip)]
    pub(crate) defined: Vec<Arc<Property>>,
}

/// A property a reply by kind says the words have, and its words with the facts filled in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Claim {
    pub property: String,
    pub says: String,
}

impl Kind {
    /// Whether the block (its part read as text) is of this kind: its `when` holds, and the
    /// text has every one of its properties.
    fn holds(&self, view: &Value, text: &str, facts: &Value) -> bool {
        let text = Value::from(text);
        first_difference(&self.when, view, &[]).is_ok()
            && self.defined.iter().all(|p| p.test(&text, facts).is_ok())
    }

    /// What the card claims of words of this kind: one claim per property, each evaluated
    /// true on them (a kind is only found where all hold).
    pub(crate) fn claims(&self, facts: &Value) -> Vec<Claim> {
        let claim = |p: &Arc<Property>| Claim { property: p.id.clone(), says: p.claim(facts) };
        self.defined.iter().map(claim).collect()
    }

    /// The kind in words: its `says`, or "it " and the claims of its properties.
    pub(crate) fn words(&self, facts: &Value) -> String {
        if let Some(says) = &self.says {
            return says.clone();
        }
        let claims: Vec<String> = self.claims(facts).into_iter().map(|c| c.says).collect();
        match claims.split_last() {
            None => String::new(),
            Some((last, [])) => format!("it {last}"),
            Some((last, rest)) => format!("it {}, and {last}", rest.join(", ")),
        }
    }
}

impl Words {
    /// Every problem with the declaration, in words, for the manifest's loader.
    pub(crate) fn problems(&self, tickets: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        let at = format!("own_words {}", self.id);
        if self.part.trim().is_empty() {
            out.push(format!("{at}: part must name the key of the block that holds the words, such as \"content\""));
        }
        if self.kinds.is_empty() {
            out.push(format!(
                "{at}: kinds is empty: declare at least one kind the reply depends on"
            ));
        }
        for t in &self.tickets {
            if !tickets.contains(&t.as_str()) {
                out.push(format!(
                    "{at}: there is no ticket '{t}': choose from {}",
                    tickets.join(", ")
                ));
            }
        }
        for why in self.blocks.malformed() {
            out.push(format!("{at}: in blocks: {why}"));
        }
        for (i, kind) in self.kinds.iter().enumerate() {
            if self.kinds[..i].iter().any(|k| k.id == kind.id) {
                out.push(format!("{at}: the kind '{}' is declared twice", kind.id));
            }
            if kind.when.is_empty() && kind.properties.is_empty() {
                let why = "has no `when` and no `properties`: say what makes words of that kind";
                out.push(format!("{at}: kind '{}' {why}", kind.id));
            }
            match (&kind.says, kind.properties.is_empty()) {
                (None, true) => out.push(format!(
                    "{at}: kind '{}' has no `says`: give the kind in words, or list its properties",
                    kind.id
                )),
                (Some(_), false) => out.push(format!(
                    "{at}: kind '{}' has both `says` and `properties`: its properties say it",
                    kind.id
                )),
                _ => {}
            }
            for why in kind.when.malformed() {
                out.push(format!("{at}: in kind '{}': {why}", kind.id));
            }
        }
        out
    }

    fn applies_to(&self, ticket: &str) -> bool {
        self.tickets.is_empty() || self.tickets.iter().any(|t| t == ticket)
    }
}

/// Words found in a request: which declaration, the kind they are of (if any), their text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Found {
    /// What the lesson calls them.
    pub words: String,
    /// The kind's id, or `None` when no declared kind holds of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The kind in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub says: Option<String>,
    /// What the kind's properties claim of the words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<Claim>,
    pub text: String,
}

/// A reply recorded for other words of the same kind: shown on the turn's card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ByKind {
    /// What the lesson calls the words.
    pub words: String,
    pub kind: String,
    /// The kind in words.
    pub says: String,
    /// The properties of the kind, each evaluated true on the words this run sent, with what
    /// it says of them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<Claim>,
    /// The words this run sent.
    pub sent: String,
    /// The words the reply was recorded for.
    pub recorded: String,
}

/// The words a request sent that no recorded kind answers: what the `no_recording` card says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unanswered {
    pub words: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub says: Option<String>,
    pub sent: String,
    /// The kinds recorded for these words in this ticket.
    pub recorded: Vec<KindNamed>,
}

/// A kind, by its id and in words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KindNamed {
    pub kind: String,
    pub says: String,
}

/// The declarations that apply to one ticket's replays.
#[derive(Clone, Debug, Default)]
pub(crate) struct Kinds {
    words: Vec<Words>,
}

/// The text of a block's part: a string as it is, a list of text blocks as their texts.
pub(crate) fn text_of(part: &Value) -> String {
    match part {
        Value::String(s) => s.clone(),
        Value::Array(items)
            if items.iter().all(|b| b.get("text").is_some_and(Value::is_string)) =>
        {
            items
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        }
        Value::Null => String::new(),
        other => crate::text::canonical::canonical(other),
    }
}

impl Kinds {
    /// The declarations of a lesson that apply to this ticket.
    pub(crate) fn for_ticket(all: &[Words], ticket: &str) -> Kinds {
        Kinds { words: all.iter().filter(|w| w.applies_to(ticket)).cloned().collect() }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The request with each part of a declared kind replaced by its kind, and every part found
    /// (of a kind or not), in order.
    pub(crate) fn kinded(&self, request: &Value) -> (Value, Vec<Found>) {
        let mut out = request.clone();
        let mut found = Vec::new();
        if self.is_empty() {
            return (out, found);
        }
        let messages = out.get_mut("messages").and_then(Value::as_array_mut);
        for message in messages.into_iter().flatten() {
            let blocks = message.get_mut("content").and_then(Value::as_array_mut);
            for block in blocks.into_iter().flatten() {
                for words in &self.words {
                    let Some(part) = block.get(&words.part) else { continue };
                    if first_difference(&words.blocks, block, &[]).is_err() {
                        continue;
                    }
                    let text = text_of(part);
                    // The kinds read the part as text, whichever form the code sent it in.
                    let mut view = block.clone();
                    view[&words.part] = Value::String(text.clone());
                    let kind = words.kinds.iter().find(|k| k.holds(&view, &text, &words.facts));
                    if let Some(kind) = kind {
                        block[&words.part] = json!({"kind": format!("{}/{}", words.id, kind.id)});
                    }
                    found.push(Found {
                        words: words.name.clone(),
                        kind: kind.map(|k| k.id.clone()),
                        says: kind.map(|k| k.words(&words.facts)),
                        claims: kind.map(|k| k.claims(&words.facts)).unwrap_or_default(),
                        text,
                    });
                    break;
                }
            }
        }
        (out, found)
    }

    /// The key a request is replayed by kind with: `None` when no part of it is of a kind.
    pub(crate) fn key(&self, request: &Value) -> Option<String> {
        let (kinded, found) = self.kinded(request);
        found.iter().any(|f| f.kind.is_some()).then(|| crate::text::canonical::key(&kinded))
    }

    /// What a turn replayed through a kind says: each part whose words differ from the ones
    /// the reply was recorded for (every part of a kind, when only their form differs: a
    /// string against text blocks).
    pub(crate) fn swaps(&self, sent: &Value, recorded: &Value) -> Vec<ByKind> {
        let (_, mine) = self.kinded(sent);
        let (_, theirs) = self.kinded(recorded);
        let all: Vec<ByKind> = mine
            .into_iter()
            .zip(theirs)
            .filter_map(|(m, t)| {
                Some(ByKind {
                    words: m.words,
                    kind: m.kind?,
                    says: m.says?,
                    claims: m.claims,
                    sent: m.text,
                    recorded: t.text,
                })
            })
            .collect();
        let differ: Vec<ByKind> = all.iter().filter(|b| b.sent != b.recorded).cloned().collect();
        if differ.is_empty() {
            all
        } else {
            differ
        }
    }

    /// The kinds some of these requests hold words of, each once, with what the lesson calls
    /// those words.
    pub(crate) fn recorded<'r>(
        &self,
        requests: impl Iterator<Item = &'r Value>,
    ) -> Vec<(String, KindNamed)> {
        let mut kinds: Vec<(String, KindNamed)> = Vec::new();
        for request in requests {
            for f in self.kinded(request).1 {
                if let (Some(kind), Some(says)) = (f.kind, f.says) {
                    let pair = (f.words, KindNamed { kind, says });
                    if !kinds.contains(&pair) {
                        kinds.push(pair);
                    }
                }
            }
        }
        kinds
    }

    /// The declared kinds none of these requests holds words of: (the words' name, the kind).
    pub(crate) fn unrecorded<'r>(
        &self,
        requests: impl Iterator<Item = &'r Value>,
    ) -> Vec<(String, String)> {
        let recorded = self.recorded(requests);
        self.words
            .iter()
            .flat_map(|w| w.kinds.iter().map(move |k| (w.name.clone(), k.id.clone())))
            .filter(|(name, id)| !recorded.iter().any(|(n, k)| n == name && k.kind == *id))
            .collect()
    }

    /// The words of a request no recording answers, each with the kinds recorded for them.
    pub(crate) fn unanswered<'r>(
        &self,
        request: &Value,
        recorded: impl Iterator<Item = &'r Value>,
    ) -> Vec<Unanswered> {
        let kinds = self.recorded(recorded);
        self.kinded(request)
            .1
            .into_iter()
            .map(|f| Unanswered {
                recorded: kinds
                    .iter()
                    .filter(|(w, _)| *w == f.words)
                    .map(|(_, k)| k.clone())
                    .collect(),
                words: f.words,
                kind: f.kind,
                says: f.says,
                sent: f.text,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words() -> Words {
        toml::from_str(
            r#"
id = "crash"
name = "the sentence sent for a crash"
blocks = [{ path = "type", equals = "tool_result" }]
part = "content"
kinds = [
  { id = "leaks", says = "names the host", when = [{ path = "content", contains = "db.internal" }] },
  { id = "own", says = "flagged, a sentence", when = [{ path = "is_error", equals = true }, { path = "content", min_len = 10 }] },
]
"#,
        )
        .unwrap()
    }

    fn request(content: Value) -> Value {
        json!({"model": "m", "messages": [
            {"role": "user", "content": "hi"},
            {"content": [{"tool_use_id": "t1", "type": "tool_result", "is_error": true, "content": content}], "role": "user"},
        ]})
    }

    #[test]
    fn two_sentences_of_one_kind_share_a_key_and_other_kinds_do_not() {
        let kinds = Kinds::for_ticket(&[words()], "any");
        let a = kinds.key(&request(json!("The lookup broke; try later."))).unwrap();
        let b = kinds
            .key(&request(json!([{"type": "text", "text": "Our side failed, ask again soon."}])))
            .unwrap();
        let leak = kinds.key(&request(json!("lost db.internal"))).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, leak);
        assert_eq!(
            kinds.key(&request(json!("Error"))),
            None,
            "a bare word is of no kind: keyed exactly"
        );
        assert_ne!(a, crate::text::canonical::key(&request(json!("The lookup broke; try later."))));
    }

    #[test]
    fn the_same_words_in_another_form_are_still_labelled() {
        let kinds = Kinds::for_ticket(&[words()], "any");
        let text = "Mine, a sentence.";
        let swaps =
            kinds.swaps(&request(json!([{"type": "text", "text": text}])), &request(json!(text)));
        assert_eq!(swaps.len(), 1);
        assert_eq!((swaps[0].sent.as_str(), swaps[0].recorded.as_str()), (text, text));
    }

    #[test]
    fn a_ticket_the_words_do_not_name_is_keyed_exactly() {
        let mut w = words();
        w.tickets = vec!["crash-trace".into()];
        assert!(Kinds::for_ticket(&[w.clone()], "two-parcels").is_empty());
        assert!(!Kinds::for_ticket(&[w], "crash-trace").is_empty());
    }

    #[test]
    fn the_swap_names_both_sentences_and_unanswered_names_the_recorded_kinds() {
        let kinds = Kinds::for_ticket(&[words()], "any");
        let swaps =
            kinds.swaps(&request(json!("Mine, a sentence.")), &request(json!("Theirs, recorded.")));
        assert_eq!(swaps.len(), 1);
        assert_eq!((swaps[0].kind.as_str(), swaps[0].sent.as_str()), ("own", "Mine, a sentence."));
        assert_eq!(swaps[0].recorded, "Theirs, recorded.");
        let recorded = [request(json!("Theirs, recorded."))];
        let missing = kinds.unanswered(&request(json!("lost db.internal")), recorded.iter());
        assert_eq!(missing[0].kind.as_deref(), Some("leaks"));
        assert_eq!(
            missing[0].recorded,
            vec![KindNamed { kind: "own".into(), says: "flagged, a sentence".into() }]
        );
    }

    #[test]
    fn text_blocks_are_read_as_their_text_and_anything_else_as_json() {
        let blocks = json!([{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]);
        assert_eq!(text_of(&blocks), "one\ntwo");
        // One part that is no text block: the whole, as JSON, not the texts of the others.
        let mixed = json!([{"type": "text", "text": "one"}, {"type": "image", "source": {}}]);
        assert_eq!(text_of(&mixed), crate::text::canonical::canonical(&mixed));
        assert_eq!(text_of(&Value::Null), "");
    }

    #[test]
    fn only_the_parts_whose_words_differ_are_told_when_some_do() {
        let kinds = Kinds::for_ticket(&[words()], "any");
        let two = |first: &str, second: &str| {
            let result = |id: &str, text: &str| json!({"tool_use_id": id, "type": "tool_result", "is_error": true, "content": text});
            json!({"model": "m", "messages": [
                {"role": "user", "content": "hi"},
                {"role": "user", "content": [result("t1", first), result("t2", second)]},
            ]})
        };
        let same = "The same sentence, twice.";
        let swaps = kinds.swaps(&two(same, "Mine, a sentence."), &two(same, "Theirs, recorded."));
        assert_eq!(swaps.len(), 1, "{swaps:?}");
        assert_eq!(swaps[0].sent, "Mine, a sentence.");
    }
}
