//! The live model as a `Model`: each request goes to the API (unless it was answered already in
//! this command), and each reply is checked, labelled `live` and kept as a recorded turn.
//! `Layered` is what `watch` replays with: the shipped recordings, then the learner's own, then,
//! with `--live`, the API.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;

use super::own;
use super::{Client, NoReply};
use crate::replay::recordings::{self, Entry, Provenance};
use crate::replay::turns::{Model, RecordedModel, Turn};
use crate::secrets;

/// Answers requests from the API, remembering every answer by its key.
pub(crate) struct LiveModel<'c> {
    client: &'c mut Client,
    /// Answers given so far in this command, so one request is never paid for twice.
    memo: &'c mut HashMap<String, Entry>,
    /// The turns this model answered, in order.
    pub answered: Vec<Entry>,
    /// Why the last request got no answer; the command ends with it (exit 2).
    pub failure: Option<NoReply>,
}

impl<'c> LiveModel<'c> {
    pub(crate) fn new(
        client: &'c mut Client,
        memo: &'c mut HashMap<String, Entry>,
    ) -> LiveModel<'c> {
        LiveModel { client, memo, answered: Vec::new(), failure: None }
    }

    fn ask(&mut self, request: &Value) -> Result<Entry, NoReply> {
        let key = recordings::key(request);
        if let Some(known) = self.memo.get(&key) {
            return Ok(known.clone());
        }
        let answer = self.client.send(request)?;
        crate::replay::messages::check_response(&answer.response, request).map_err(|why| {
            NoReply(format!("the model's reply cannot be replayed: {why}. Run this again."))
        })?;
        let model =
            answer.response.get("model").or_else(|| request.get("model")).and_then(Value::as_str);
        let provenance = Provenance::Live {
            model: model.unwrap_or("unknown").to_string(),
            date: today(),
            request_id: if answer.request_id.is_empty() {
                "none given".into()
            } else {
                answer.request_id
            },
        }
        .escaped();
        let (response, request) = (answer.response, request.clone());
        let entry = Entry { key: key.clone(), provenance, request, response, took_ms: None };
        // Everything a kept turn holds, as it would be written, compared with the key itself.
        let written = recordings::canonical(&serde_json::to_value(&entry).unwrap_or_default());
        if self.client.settings().key.is_in(&written) {
            return Err(NoReply(
                "the API's reply holds the API key itself (a server or gateway that echoes it), so it was not kept. Check ANTHROPIC_BASE_URL points at the Messages API, then run this again.".into(),
            ));
        }
        if let Some(what) = secrets::scan(&written) {
            return Err(NoReply(format!(
                "the model's reply holds {what}, so it was not kept. Run this again."
            )));
        }
        self.memo.insert(key, entry.clone());
        Ok(entry)
    }
}

impl Model for LiveModel<'_> {
    fn respond(&mut self, request: &Value) -> Turn {
        match self.ask(request) {
            Ok(entry) => {
                let turn = Turn::recorded(&entry);
                if !self.answered.iter().any(|e| e.key == entry.key) {
                    self.answered.push(entry);
                }
                turn
            }
            Err(failure) => {
                self.failure = Some(failure);
                Turn::missing(String::new())
            }
        }
    }
}

/// Today as `YYYY-MM-DD` (UTC).
fn today() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        .to_string()
        .chars()
        .take(10)
        .collect()
}

/// What `watch` replays with: the shipped turns first, then the learner's own, then the API.
pub(crate) struct Layered<'a> {
    pub shipped: RecordedModel<'a>,
    own: &'a mut Vec<Entry>,
    own_file: PathBuf,
    live: Option<LiveModel<'a>>,
    /// Why the command must end (exit 2): the API failed, or a turn could not be kept.
    pub failure: Option<String>,
}

impl<'a> Layered<'a> {
    pub(crate) fn new(
        shipped: RecordedModel<'a>,
        own: &'a mut Vec<Entry>,
        own_file: PathBuf,
        live: Option<LiveModel<'a>>,
    ) -> Layered<'a> {
        Layered { shipped, own, own_file, live, failure: None }
    }
}

impl Model for Layered<'_> {
    fn respond(&mut self, request: &Value) -> Turn {
        let key = recordings::key(request);
        if let Some(shipped) = self.shipped.find(&key) {
            return shipped;
        }
        if let Some(kept) = self.own.iter().find(|e| e.key == key) {
            return Turn::recorded(kept);
        }
        // Without --live, a turn recorded for other words of the same kind answers, labelled so;
        // --live asks the model about the words themselves. The closest recorded request and
        // its diff are worked out only for a turn nobody has.
        let Some(live) = self.live.as_mut() else {
            return self
                .shipped
                .find_kind(request)
                .unwrap_or_else(|| self.shipped.missing(request));
        };
        match live.ask(request) {
            Ok(entry) => {
                let turn = Turn::recorded(&entry);
                if let Err(e) = own::keep(&self.own_file, self.own, entry) {
                    self.failure = Some(format!(
                        "could not keep the model's reply in {}: {e}. Check that work/ is writable.",
                        self.own_file.display()
                    ));
                    return self.shipped.missing(request);
                }
                turn
            }
            Err(failure) => {
                self.failure = Some(failure.0);
                self.shipped.missing(request)
            }
        }
    }
}
