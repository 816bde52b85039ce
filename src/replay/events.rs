//! A replay as a stream of events: the interface between the runtimes that make a run and
//! everything that shows one (the cards, the JSON, the player). An event is a fact, pushed once
//! and never edited; the story's judgement of the events (how each try went) is kept beside
//! them, by event index. Knows nothing of terminals.

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::lesson::kinds::{ByKind, Unanswered};
use crate::replay::counts::Counts;
use crate::replay::received::Received;
use crate::replay::recordings::Provenance;

/// How an attempt went, which decides its card's colour: the story's judgement, known once the
/// run is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    /// It worked.
    Worked,
    /// A transient failure, and it was retried.
    Retried,
    /// It was retried (or was a retry) although a retry could not have helped.
    Wasted,
    /// A failure reported and not retried.
    Reported,
    /// Retried although nothing said it was safe, and the retry went through: a gamble.
    Blind,
    /// Retried although no retry can fix it, and a later try went through after the same
    /// failure came back: the answer changed only because the call was made again.
    Overturned,
    /// An uncertain failure that a read settled: it had gone through.
    Settled,
    /// An uncertain failure retried after a read of the same object found nothing: known safe.
    Checked,
    /// A failure not retried whose result never reached the model: the API refused the request
    /// that was to carry it.
    Dropped,
}

/// One thing a failed try says (or does not say) of itself, in the terms the lesson's failures
/// use. A fact: its words come from rendering (`render::words`), in the JSON too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Detail {
    /// The failure's category, when it gives one.
    Category(Option<String>),
    /// The failure's retry flag, when it gives one.
    Retryable(Option<bool>),
    /// The tool of the read the failure names, when it names one.
    Verify(Option<String>),
    /// Where the runtime itself shapes failures: the kind of failure it was.
    Kind(String),
}

impl Serialize for Detail {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Customer {
        text: String,
    },
    /// The model asks for a tool.
    ToolCall {
        id: String,
        tool: String,
        input: Value,
        /// The call in words, from the tool's `says`: "looks up order 2031".
        words: String,
        /// Text the model wrote before the call, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        preface: Option<String>,
        provenance: Provenance,
        /// The turn was recorded for other words of the same kind as this run's (`kinds`).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        by_kind: Vec<ByKind>,
    },
    /// One execution of the tool.
    Attempt {
        tool_use_id: String,
        number: u32,
        output: Value,
        failed: bool,
        /// What the result claims, read from its `error` object.
        category: Option<String>,
        retryable: Option<bool>,
        message: Option<String>,
        /// What the failure says of itself, by the keys the lesson defines (its category, its
        /// retry flag); empty for a success.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        details: Vec<Detail>,
        /// The category the world itself failed the call with.
        cause: Option<String>,
        /// A successful result in words, where the world knows its shape.
        #[serde(skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
        /// The world's own lines about the attempt ("Dana was asked to approve: declined").
        #[serde(skip_serializing_if = "Vec::is_empty")]
        said: Vec<String>,
        /// The harness waited and tried the call again. (The model calling it again is the
        /// story's to judge: see `Judged::retried`.)
        retried: bool,
        /// The MCP `CallToolResult` the SDK runtime sent, in wire form.
        #[serde(skip_serializing_if = "Option::is_none")]
        wire: Option<Value>,
        /// What the code printed during the attempt.
        #[serde(skip_serializing_if = "String::is_empty")]
        printed: String,
        /// What the learner's decision function answered about this failure, when asked.
        #[serde(skip_serializing_if = "Option::is_none")]
        answer: Option<Value>,
        /// The failure carries nothing a reader can act on: no category, no retry flag, no
        /// message, no read to run (the starter's bare `Error`).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        bare: bool,
        /// For a call the model made to check an earlier failure (the read the world named
        /// for it): the id of that failed call.
        #[serde(skip_serializing_if = "Option::is_none")]
        read_of: Option<String>,
        /// For such a read that answered: whether it found what it looked for.
        #[serde(skip_serializing_if = "Option::is_none")]
        found: Option<bool>,
        /// The `tool_result` block this attempt's MCP result became (SDK runtime).
        #[serde(skip_serializing_if = "Option::is_none")]
        block: Option<Value>,
        /// The world could not tell whether the call went through: it named a read that would.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        uncertain: bool,
        /// The world's internal text of this failure (a traceback) reached the model.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        leaked: bool,
        /// This try failed with every attempt the harness allows used (this many): the cap,
        /// not a decision, is why it was not tried again.
        #[serde(skip_serializing_if = "Option::is_none")]
        capped: Option<u32>,
        /// What the model received for this attempt, and what it read there: the one record
        /// that verdicts, notes and cards judge a result by.
        #[serde(skip_serializing_if = "Option::is_none")]
        received: Option<Box<Received>>,
    },
    /// One try of the read the harness ran, because a failure named it, to learn whether the
    /// call went through. A read that fails and is tried again is one event per try.
    Verify {
        tool_use_id: String,
        tool: String,
        input: Value,
        /// Which try of the read this is, from 1.
        number: u32,
        /// Whether this try failed (a read can time out too).
        failed: bool,
        /// Another try of the read follows.
        retried: bool,
        /// What it found; `None` when this try failed.
        found: Option<bool>,
        message: Option<String>,
        /// What a failed try says of itself, by the keys the lesson defines.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        details: Vec<Detail>,
        /// The category the world failed this try with.
        #[serde(skip_serializing_if = "Option::is_none")]
        cause: Option<String>,
        output: Value,
        /// When the read's answer is what the model is given for the call: that `tool_result` block.
        #[serde(skip_serializing_if = "Option::is_none")]
        wire: Option<Value>,
    },
    /// What a subagent passed up to its coordinator when its work failed.
    Report {
        tool_use_id: String,
        /// The four labelled parts: failed, tried, partial, next.
        report: Value,
    },
    /// Text the code under replay put in the message that answers a turn's tool calls (a
    /// customer's note): the model reads it with the results, so it has a card of its own.
    Note {
        text: String,
        /// Whether it comes after every `tool_result` of its message, as the API wants.
        after_results: bool,
    },
    /// The harness's backoff before the next attempt.
    Wait {
        ms: u64,
    },
    Reply {
        text: String,
        provenance: Provenance,
        /// The turn was recorded for other words of the same kind as this run's (`kinds`).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        by_kind: Vec<ByKind>,
        /// Why the model stopped, when it is not the end of its turn: `max_tokens` (the text
        /// is cut off there) or `refusal`.
        #[serde(skip_serializing_if = "Option::is_none")]
        stop_reason: Option<String>,
    },
    /// The Messages API answered a request with an error, or nothing came back in time: the
    /// host's to handle in code. The model never sees it.
    HostError {
        /// The HTTP status; none for a timeout.
        status: Option<u16>,
        /// The API's error type (`overloaded_error`), or `timeout`.
        error_type: String,
        message: String,
        /// What the API asked the host to wait before sending again (`retry-after`).
        #[serde(skip_serializing_if = "Option::is_none")]
        retry_after_ms: Option<u64>,
        /// Which sending of this request it was, from 1.
        number: u32,
        /// The wait the host chose before sending the same request again; none: it stopped.
        #[serde(skip_serializing_if = "Option::is_none")]
        wait_ms: Option<u64>,
        /// Who waited, when the host's code is a loop with a client: `client` (the client's own
        /// retries, `max_retries`) or `loop`.
        #[serde(skip_serializing_if = "Option::is_none")]
        waited_by: Option<String>,
        /// When it happened, on the replay's own clock.
        at_ms: u64,
    },
    /// A cap of the host's ended the run before the model answered: `max_turns` (the lesson's
    /// turn limit), `time_budget` (its time on the replay's clock) or `code` (the code under
    /// replay said to stop).
    Capped {
        by: String,
        /// The turns the model was asked for, and the time the run had taken.
        turns: usize,
        elapsed_ms: u64,
        /// The limit that was reached: turns, or milliseconds; none for `code`.
        #[serde(skip_serializing_if = "Option::is_none")]
        limit: Option<u64>,
    },
    /// What the host told the person when the run ended without the model's answer.
    Told {
        text: String,
        /// Why the run ended: `max_turns`, `time_budget`, `code`, `api_error`, `max_tokens`,
        /// `refusal`.
        reason: String,
    },
    /// The run asked for a model turn nobody recorded. The replay stops here.
    NoRecording {
        /// The new message the model would have been sent.
        sent: Value,
        /// `recordings/...:line` of the closest recorded request.
        closest: Option<String>,
        /// A labelled diff: the closest recorded request against this one.
        diff: String,
        /// Why the replay stops.
        explanation: String,
        /// How to get a reply for this request.
        next: String,
        /// The words of the request that replies depend on by kind: which kind they are of,
        /// and which kinds are recorded.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        words: Vec<Unanswered>,
    },
    /// One JSON-RPC 2.0 message between the runner, as the MCP client, and the learner's
    /// server: each request and each response is an event of its own.
    Rpc {
        /// `sent` by the client, or `received` from the server.
        direction: Direction,
        /// The request's method (`tools/call`, `tools/list`), on its response too.
        method: String,
        /// The message as it went over the wire.
        message: Value,
        /// The `tool_use` whose call this exchange serves.
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_use_id: Option<String>,
        /// Who reads it, and what the model was given for it.
        reader: Reader,
        /// Whether the model read this message's content.
        read: bool,
        /// The line the model read instead of a JSON-RPC error (`Reader::Line`).
        #[serde(skip_serializing_if = "Option::is_none")]
        instead: Option<String>,
        /// Why the client could not use a response (no `id`, not JSON-RPC 2.0...).
        #[serde(skip_serializing_if = "Option::is_none")]
        problem: Option<String>,
        /// What the server's code printed while it answered.
        #[serde(skip_serializing_if = "String::is_empty")]
        printed: String,
    },
    /// The host ended the run on a JSON-RPC error, and showed the person this.
    RpcEnded {
        message: String,
    },
    /// The API refused the request (a broken tool-use rule): what it would answer. The run ends.
    ApiError {
        status: u16,
        /// The API's error type, such as `invalid_request_error`.
        error_type: String,
        message: String,
    },
    /// The code under replay failed (did not load, raised, hung). The replay stops here.
    CodeError {
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        call: Option<String>,
        #[serde(skip_serializing_if = "String::is_empty")]
        printed: String,
    },
}

/// Which way a JSON-RPC message went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Sent,
    Received,
}

/// What became of a JSON-RPC message, as far as the model is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reader {
    /// A request: the client's own, the model never reads it.
    Client,
    /// A result: its content goes to the model as the call's `tool_result`.
    Model,
    /// An error or an unusable response: the model read the lesson's fixed line instead.
    Line,
    /// An error or an unusable response: the host took the model's turn back.
    TakenBack,
    /// An error or an unusable response: the run ended, and the person was shown it.
    Ended,
    /// A `tools/list` result: the client offers these tools from the next request on.
    Listed,
}

impl Event {
    /// The model turn's provenance, on the events that are model turns.
    pub fn provenance(&self) -> Option<&Provenance> {
        match self {
            Event::ToolCall { provenance, .. } | Event::Reply { provenance, .. } => {
                Some(provenance)
            }
            _ => None,
        }
    }
}

/// The story's judgement of one attempt: how it went, and whether it was tried again (by the
/// harness, or by the model calling the same tool with the same input).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judged {
    pub tone: Tone,
    pub retried: bool,
    /// The same call was made again after this try, by the harness or by the model.
    pub repeated: bool,
}

/// The story's judgement of a run, by event index: `Some` for each attempt.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Judgement(pub Vec<Option<Judged>>);

/// An event with the story's judgement of it, as everything that shows a run reads it: the
/// cards, the page, the JSON. Reads as its event otherwise.
#[derive(Clone, Copy, Debug)]
pub struct Told<'r> {
    pub event: &'r Event,
    pub judged: Option<Judged>,
}

impl std::ops::Deref for Told<'_> {
    type Target = Event;
    fn deref(&self) -> &Event {
        self.event
    }
}

impl Told<'_> {
    /// How the attempt went; `Reported` for an event the story did not judge.
    pub fn tone(&self) -> Tone {
        self.judged.map_or(Tone::Reported, |j| j.tone)
    }

    /// Whether the same call was made again after this attempt (a retry, or the model asking
    /// again in a call of its own).
    pub fn repeated(&self) -> bool {
        self.judged.is_some_and(|j| j.repeated) || self.retried()
    }

    /// Whether the attempt was tried again, as the story judged it.
    pub fn retried(&self) -> bool {
        self.judged
            .map_or(matches!(self.event, Event::Attempt { retried: true, .. }), |j| j.retried)
    }

    /// The event as the JSON gives it: its facts, with an attempt's judgement (`retried`, and
    /// `tone` after it) in place.
    pub fn value(&self) -> Value {
        let value = serde_json::to_value(self.event).unwrap_or(Value::Null);
        let Some(judged) = self.judged else {
            return value;
        };
        let map = match value {
            Value::Object(map) => map,
            other => return other,
        };
        let mut out = serde_json::Map::new();
        for (key, field) in map {
            if key == "retried" {
                out.insert(key, Value::Bool(judged.retried));
                out.insert("tone".into(), serde_json::to_value(judged.tone).unwrap_or(Value::Null));
            } else {
                out.insert(key, field);
            }
        }
        Value::Object(out)
    }

    /// The event as its card shows it, without the ids that name the same call differently in
    /// two runs: two runs share an event only where they did the same thing *and* their cards
    /// say the same of it (how a try is judged, whether its result was sent, what was printed).
    pub fn signature(&self) -> Value {
        let mut value = self.value();
        if let Value::Object(map) = &mut value {
            for id in ["id", "tool_use_id", "read_of"] {
                map.remove(id);
            }
            // The record repeats the block (which stays) and whether the request carrying it
            // was refused, which the next card shows: a try both runs made alike is shared
            // up to the card where they part.
            map.remove("received");
        }
        value
    }
}

impl Serialize for Told<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(serializer)
    }
}

/// How a verdict is drawn: green, yellow or red.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictTone {
    Good,
    Warn,
    Bad,
}

/// The one-line summary under a replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// How many times a tool ran.
    pub tool_calls: usize,
    /// Retries that followed a failure no retry could fix.
    pub wasted_retries: usize,
    pub text: String,
    /// Why the replay stopped before a reply: `no_recording` or `code_error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// What the run did to its world, as the world counts it (its `counts()`).
    #[serde(flatten)]
    pub effects: serde_json::Map<String, Value>,
    /// Whether the run did harm: the world counted some, the model read a failure's internal
    /// text (or a bare or unflagged one, where a call was left failed), a retry repeated a
    /// failure no retry can fix, or the API refused a request. Decides the verdict's colour.
    pub harmed: bool,
    /// The harm the world counted, in its own sentences (also in `text`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub harms: Vec<String>,
    /// The verdict's colour, from the run: `bad` (harm, the code failed, or the API refused a
    /// request it built), `warn` (stopped before a reply for another reason) or `good`.
    pub tone: VerdictTone,
    /// The lesson's note on what this run did: the first of the ticket's notes whose `when`
    /// holds of the counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// What the run did, counted.
    pub counts: Counts,
}

/// A replayed run of one ticket: its events and the story's judgement of them.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub lesson: String,
    pub ticket: String,
    pub code: String,
    pub runtime: String,
    pub events: Vec<Event>,
    pub judgement: Judgement,
    pub verdict: Verdict,
}

impl Run {
    /// Each event with the story's judgement of it.
    pub fn told(&self) -> Vec<Told<'_>> {
        (0..self.events.len()).filter_map(|i| self.told_at(i)).collect()
    }

    /// One event, by its index, with the story's judgement of it.
    pub fn told_at(&self, index: usize) -> Option<Told<'_>> {
        let judged = self.judgement.0.get(index).copied().flatten();
        self.events.get(index).map(|event| Told { event, judged })
    }
}

impl Serialize for Run {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("Run", 6)?;
        out.serialize_field("lesson", &self.lesson)?;
        out.serialize_field("ticket", &self.ticket)?;
        out.serialize_field("code", &self.code)?;
        out.serialize_field("runtime", &self.runtime)?;
        out.serialize_field("events", &self.told())?;
        out.serialize_field("verdict", &self.verdict)?;
        out.end()
    }
}

/// The index of the first event where two runs differ; `None` when they never do.
pub(crate) fn split_point(a: &Run, b: &Run) -> Option<usize> {
    let (a, b) = (a.told(), b.told());
    let common = a.iter().zip(&b).take_while(|(x, y)| x.signature() == y.signature()).count();
    (common < a.len().max(b.len())).then_some(common)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attempt_is_repeated_when_the_story_says_the_call_was_made_again_or_it_was_retried() {
        let event = Event::Wait { ms: 1 };
        let told = |retried, repeated| Told {
            event: &event,
            judged: Some(Judged { tone: Tone::Reported, retried, repeated }),
        };
        assert!(told(false, true).repeated(), "the model asked again in a call of its own");
        assert!(told(true, false).repeated(), "a retry is a repeat");
        assert!(!told(false, false).repeated());
        assert!(!Told { event: &event, judged: None }.repeated(), "no judgement: not a retry");
    }
}
