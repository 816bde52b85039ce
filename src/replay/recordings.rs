//! Recordings: the model's side of a run, replayed by the canonical request.
//!
//! A file is `recordings/<lesson>/<runtime>/<ticket>.jsonl`, one recorded turn a line:
//! `{"key", "provenance", "request", "response"}`. The key is SHA-256 over a format version and
//! the request as canonical JSON (sorted keys, no insignificant whitespace), so a request with no
//! recording is found out at once, and a hand edit that changes a request breaks its key.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub(crate) use crate::error::Whose;
use crate::error::{Corrupt, Error, Flaw, RecordError, Recording};
use crate::lesson::kinds::{ByKind, Kinds, Unanswered};
use crate::replay::messages;

pub(crate) use crate::text::canonical::{canonical, canonical_pretty, key};

/// An id in the API's shape (`toolu_01…`, `msg_01…`) drawn from `seed`: the same seed gives the
/// same id every time, so what is recorded with it stays the same.
pub(crate) fn api_id(prefix: &str, seed: &Value) -> String {
    let digest = key(seed);
    let tail: String = digest.trim_start_matches("v1:").chars().take(24).collect();
    format!("{prefix}_01{tail}")
}

/// Where a recorded turn came from. Shown by the player on every turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "lowercase", deny_unknown_fields)]
pub enum Provenance {
    /// Written by the lesson's authors. Never presented as a model run.
    Authored { by: String, written: String },
    /// Captured from the API.
    Live { model: String, date: String, request_id: String },
}

impl Provenance {
    /// With every control character in its words shown escaped (`\x1b`, `\n`): a server's
    /// `model` field (or a recording written by hand) reaches the terminal in one-line headers.
    pub fn escaped(self) -> Provenance {
        let clean = |s: String| crate::text::inert::one_line(&s).into_owned();
        match self {
            Provenance::Authored { by, written } => {
                Provenance::Authored { by: clean(by), written: clean(written) }
            }
            Provenance::Live { model, date, request_id } => Provenance::Live {
                model: clean(model),
                date: clean(date),
                request_id: clean(request_id),
            },
        }
    }

    /// A short tag for a card: `authored` or `live · model · date`.
    pub fn tag(&self) -> String {
        match self {
            Provenance::Authored { .. } => "authored".into(),
            Provenance::Live { model, date, .. } => format!("live · {model} · {date}"),
        }
    }
}

/// One recorded turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Entry {
    pub key: String,
    pub provenance: Provenance,
    pub request: Value,
    pub response: Value,
    /// How long the request took on the recorded clock: a replay's own clock moves by this,
    /// never by the machine's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub took_ms: Option<u64>,
}

impl Entry {
    /// Whether what was recorded is the API's refusal (`{"type": "error", ...}`), not a reply.
    pub(crate) fn refused(&self) -> bool {
        self.response.get("type").and_then(Value::as_str) == Some("error")
    }

    /// No response came back in time: the request timed out (`{"type": "timeout"}`).
    pub(crate) fn timed_out(&self) -> bool {
        self.response.get("type").and_then(Value::as_str) == Some("timeout")
    }

    /// An error the same request may not meet again (429, 5xx, 529, a timeout), so a later
    /// entry may record what the same request got when it was sent again.
    pub(crate) fn transient(&self) -> bool {
        let status = self.response.get("status").and_then(Value::as_u64).unwrap_or(400);
        self.timed_out() || (self.refused() && (status == 429 || status >= 500))
    }
}

/// A recorded turn and the file line it came from.
#[derive(Clone, Debug)]
pub(crate) struct Recorded {
    pub entry: Entry,
    pub file: PathBuf,
    pub line: usize,
    /// Which sending of its request this answers, from 0: a request sent again after a
    /// transient error has the next entry of the same key.
    pub nth: usize,
}

impl Recorded {
    /// What marks this turn used in a replay: its key, and the sending it answers.
    pub(crate) fn used_key(&self) -> String {
        used_key(&self.entry.key, self.nth)
    }

    pub(crate) fn file_line(&self, root: &Path) -> String {
        format!("{}:{}", crate::course::root::shown(root, &self.file), self.line)
    }
}

/// The recorded turns of one ticket in one runtime.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cassette {
    pub turns: Vec<Recorded>,
    /// Each key's entries, in the order the request was sent.
    by_key: HashMap<String, Vec<usize>>,
    /// The words of this ticket's requests that replies depend on only by kind.
    kinds: Kinds,
    /// The turns by the key of their request with those words replaced by their kind.
    by_kind: HashMap<String, usize>,
}

/// A recording file's text: a file that is not UTF-8 is named by the line where it stops being so.
fn read_text(path: &Path, shown: &str, whose: Whose) -> Result<String, Error> {
    match crate::files::read_data(path, crate::files::DATA_CAP) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|e| {
            // Named by line, as every other problem in a recording is.
            let bad = e.utf8_error().valid_up_to();
            let bytes = e.as_bytes();
            let line = bytes[..bad].iter().filter(|&&b| b == b'\n').count() + 1;
            let column =
                bad - bytes[..bad].iter().rposition(|&b| b == b'\n').map_or(0, |at| at + 1) + 1;
            let problem = Recording::NotUtf8 { column };
            Corrupt::at(shown, line, Flaw::Recording { problem, whose }).into()
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(RecordError::FileMissing { file: shown.to_string() }.into())
        }
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => Err(Corrupt {
            path: shown.to_string(),
            line: None,
            flaw: Flaw::Recording { problem: Recording::Unreadable(e), whose },
        }
        .into()),
        Err(e) => Err(Error::io(format!("could not read {shown}"), e)),
    }
}

/// One line of a recording as a turn, checked: no credentials, its key its request's, both sides
/// within the tool-use rules. A problem is its reason and, where one helps, its remedy.
fn read_entry(line: &str) -> Result<Entry, Recording> {
    if let Some(what) = crate::secrets::scan(line) {
        return Err(Recording::Credentials { what: what.to_string() });
    }
    let mut entry: Entry = serde_json::from_str(line).map_err(Recording::NotATurn)?;
    entry.provenance = entry.provenance.escaped();
    if entry.key != key(&entry.request) {
        return Err(Recording::KeyMismatch);
    }
    messages::check_request(&entry.request).map_err(|why| Recording::Request(why.into()))?;
    let checked = if entry.refused() || entry.timed_out() {
        check_error(&entry.response)
    } else {
        messages::check_response(&entry.response, &entry.request).map_err(|e| e.to_string())
    };
    checked.map_err(|why| Recording::Response(why.into()))?;
    Ok(entry)
}

/// The file holding a ticket's turns in a runtime.
/// What marks the `nth` sending of the request with this key used in a replay.
pub(crate) fn used_key(key: &str, nth: usize) -> String {
    if nth == 0 {
        key.to_string()
    } else {
        format!("{key}#{nth}")
    }
}

/// A recorded error answer: a status the API answers with (400 to 599) and an error object
/// with its type, or a timeout, which has no answer at all.
fn check_error(response: &Value) -> Result<(), String> {
    if response.get("type").and_then(Value::as_str) == Some("timeout") {
        return Ok(());
    }
    let status = response.get("status").and_then(Value::as_u64);
    if !status.is_some_and(|s| (400..600).contains(&s)) {
        return Err("an error response needs a status from 400 to 599".into());
    }
    if response.pointer("/error/type").and_then(Value::as_str).is_none() {
        return Err("an error response needs error.type, as the API sends it".into());
    }
    match response.get("retry_after") {
        None => Ok(()),
        Some(v) if v.as_f64().is_some_and(|s| s >= 0.0) => Ok(()),
        Some(_) => Err("retry_after, when given, is the seconds the API asked to wait".into()),
    }
}

pub(crate) fn file_for(dir: &Path, runtime: &str, ticket: &str) -> PathBuf {
    dir.join(runtime).join(format!("{ticket}.jsonl"))
}

impl Cassette {
    /// Load and validate one of the lesson's recording files. Every problem names the file and line.
    pub(crate) fn load(root: &Path, path: &Path) -> Result<Cassette, Error> {
        Cassette::load_as(root, path, Whose::Shipped)
    }

    /// Load and validate one recording file, shipped or the learner's own.
    pub(crate) fn load_as(root: &Path, path: &Path, whose: Whose) -> Result<Cassette, Error> {
        let shown = crate::course::root::shown(root, path);
        let dir = path.parent().and_then(Path::parent).unwrap_or(path);
        if !dir.is_dir() {
            let dir = crate::course::root::shown(root, dir);
            return Err(RecordError::NoRecordings { dir }.into());
        }
        let text = read_text(path, &shown, whose)?;
        let mut cassette = Cassette::default();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let number = index + 1;
            let at = |problem| Corrupt::at(&shown, number, Flaw::Recording { problem, whose });
            let entry = read_entry(line).map_err(at)?;
            let earlier = cassette.by_key.entry(entry.key.clone()).or_default();
            if let Some(&last) = earlier.last() {
                let before = &cassette.turns[last];
                if !before.entry.transient() {
                    let line = before.line;
                    return Err(at(Recording::SameRequest { line }).into());
                }
            }
            let nth = earlier.len();
            earlier.push(cassette.turns.len());
            cassette.turns.push(Recorded { entry, file: path.to_path_buf(), line: number, nth });
        }
        Ok(cassette)
    }

    /// The turn recorded for the `nth` sending of this request (from 0). Past the last one
    /// recorded, the last again: an API that keeps failing, or a request it refuses, answers a
    /// request sent again the same way, and a request asked again after its reply (a host that
    /// took the model's turn back, as an MCP client may) gets that reply, as the same request.
    pub(crate) fn find_nth(&self, key: &str, nth: usize) -> Option<&Recorded> {
        let all = self.by_key.get(key)?;
        match all.get(nth) {
            Some(&i) => Some(&self.turns[i]),
            None => all.last().map(|&i| &self.turns[i]),
        }
    }

    /// The same turns, also found by kind. Two turns whose requests are alike but for words of
    /// one kind must record one reply: otherwise a replay could not tell which to give.
    pub(crate) fn with_kinds(mut self, root: &Path, kinds: Kinds) -> Result<Cassette, Error> {
        for (i, turn) in self.turns.iter().enumerate() {
            let Some(key) = kinds.key(&turn.entry.request) else { continue };
            if turn.nth > 0 {
                continue;
            }
            if let Some(&first) = self.by_kind.get(&key) {
                let other = &self.turns[first];
                if other.entry.response != turn.entry.response {
                    let shown = crate::course::root::shown(root, &turn.file);
                    let flaw = Flaw::AnotherReply { line: other.line };
                    return Err(Corrupt::at(&shown, turn.line, flaw).into());
                }
                continue;
            }
            self.by_kind.insert(key, i);
        }
        self.kinds = kinds;
        Ok(self)
    }

    /// The turn recorded for other words of the same kind as this request's, and the words
    /// that differ.
    pub(crate) fn find_kind(&self, request: &Value) -> Option<(&Recorded, Vec<ByKind>)> {
        let key = self.kinds.key(request)?;
        let found = &self.turns[*self.by_kind.get(&key)?];
        Some((found, self.kinds.swaps(request, &found.entry.request)))
    }

    /// The lesson's kinds for this ticket that no recorded turn has a reply for.
    pub(crate) fn kinds_without_reply(&self) -> Vec<(String, String)> {
        self.kinds.unrecorded(self.turns.iter().map(|t| &t.entry.request))
    }

    /// The words of a request that replies depend on by kind, with the kinds recorded for them.
    pub(crate) fn unanswered(&self, request: &Value) -> Vec<Unanswered> {
        self.kinds.unanswered(request, self.turns.iter().map(|t| &t.entry.request))
    }

    /// The recorded request most like `request`, by the share of lines they have in common,
    /// and among those alike line for line, of characters (one changed line can differ by a
    /// word or by a whole key).
    pub(crate) fn closest(&self, request: &Value) -> Option<&Recorded> {
        let mine = canonical_pretty(request);
        let scored: Vec<(f32, String, &Recorded)> = self
            .turns
            .iter()
            .map(|t| {
                let theirs = canonical_pretty(&t.entry.request);
                (similar::TextDiff::from_lines(&theirs, &mine).ratio(), theirs, t)
            })
            .collect();
        let best = scored.iter().map(|(r, _, _)| *r).fold(f32::MIN, f32::max);
        let chars = |theirs: &str| similar::TextDiff::from_chars(theirs, &mine).ratio();
        scored
            .iter()
            .filter(|(r, _, _)| *r == best)
            .map(|(_, theirs, t)| (chars(theirs), *t))
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, t)| t)
    }
}

/// Write turns as a recording file: one canonical JSON line each, in the order given.
pub(crate) fn write_file(path: &Path, entries: &[Entry]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut text = String::new();
    for entry in entries {
        let value = serde_json::to_value(entry).map_err(std::io::Error::other)?;
        text.push_str(&canonical(&value));
        text.push('\n');
    }
    let temp = path.with_extension("jsonl.tmp");
    // A write cut short (the disk full, a file-size limit) leaves no temporary file behind.
    std::fs::write(&temp, text).and_then(|()| std::fs::rename(&temp, path)).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_key_ignores_key_order_and_whitespace() {
        let a: Value = serde_json::from_str(r#"{"b": 1, "a": {"y": [1, 2], "x": "s"}}"#).unwrap();
        let b: Value = serde_json::from_str("{\"a\":{\"x\":\"s\",\"y\":[1,2]},\"b\":1}").unwrap();
        assert_eq!(canonical(&a), r#"{"a":{"x":"s","y":[1,2]},"b":1}"#);
        assert_eq!(key(&a), key(&b));
        assert_ne!(key(&a), key(&json!({"a": {"x": "s", "y": [2, 1]}, "b": 1})));
        assert!(key(&a).starts_with("v1:"));
    }
}
