//! The story's verdicts and tones, judged from events made by hand.

use super::*;
use crate::replay::recordings::Provenance;

/// A world where only a timeout is worth retrying; the verdict never starts a run in it.
#[derive(Debug)]
struct Timeouts;

impl Setting for Timeouts {
    fn start(&self, _ticket: &str) -> Box<dyn crate::world::World + '_> {
        unreachable!("a verdict is judged from events, without a run")
    }
    fn message(&self, _key: &str) -> Option<&str> {
        None
    }
    fn retry_helps(&self, category: &str) -> bool {
        category == "transient"
    }
    fn draw_fields(&self, _draw: &mut dyn FnMut(u64) -> u64) -> Vec<(String, String)> {
        Vec::new()
    }
    fn summary(&self, _output: &Value) -> Option<String> {
        None
    }
}

fn authored() -> Provenance {
    Provenance::Authored { by: "tests".into(), written: "2026-12-01".into() }
}

fn call() -> Event {
    Event::ToolCall {
        id: "toolu_1".into(),
        tool: "process_refund".into(),
        input: json!({"order_id": "0871"}),
        words: "refunds order 0871".into(),
        preface: None,
        provenance: authored(),
        by_kind: Vec::new(),
    }
}

/// A try of `toolu_1`: failed with `cause` (claiming what `retryable` says), or worked.
/// Its failure is uncertain (the world named a read): whether a retry was safe is the
/// question these verdicts answer.
fn attempt(number: u32, cause: Option<&str>, retryable: Option<bool>) -> Event {
    Event::Attempt {
        tool_use_id: "toolu_1".into(),
        number,
        output: json!({}),
        failed: cause.is_some(),
        category: cause.map(String::from),
        retryable,
        message: None,
        details: Vec::new(),
        cause: cause.map(String::from),
        summary: None,
        retried: false,
        wire: None,
        printed: String::new(),
        answer: None,
        bare: false,
        read_of: None,
        found: None,
        block: None,
        uncertain: cause.is_some(),
        leaked: false,
        capped: None,
        received: None,
        said: Vec::new(),
    }
}

fn reply() -> Event {
    Event::Reply {
        text: "Done.".into(),
        provenance: authored(),
        by_kind: Vec::new(),
        stop_reason: None,
    }
}

fn text(events: &[Event]) -> String {
    verdict(events, &Timeouts, &Effects::default()).text
}

#[test]
fn a_retry_nothing_said_was_safe_is_told_apart_from_one_the_error_invited() {
    // A business refusal (no retry can fix it) that said nothing of retrying, tried again.
    let no = Some("business");
    let went_through = [call(), attempt(1, no, None), attempt(2, None, None), reply()];
    let said = "Tried twice: the retry went through, but nothing said it was safe to repeat.";
    assert_eq!(text(&went_through), said);
    let other = attempt(2, Some("validation"), None);
    let failed_again = [call(), attempt(1, no, Some(false)), other, reply()];
    let said = "Tried twice: a retry was made although nothing said it was safe to repeat.";
    assert_eq!(text(&failed_again), said);
    let invited = [call(), attempt(1, no, Some(true)), attempt(2, None, None), reply()];
    let said = "the error said a retry could help, but nothing showed this failure was safe to \
                repeat.";
    assert_eq!(text(&invited), format!("Tried twice: {said}"));
}

#[test]
fn a_definite_failure_asked_again_until_it_went_through_is_overturned_not_blind() {
    let no = Some("business");
    let tries = [attempt(1, no, None), attempt(2, no, None), attempt(3, None, None)];
    let mut events: Vec<Event> = [vec![call()], tries.to_vec(), vec![reply()]].concat();
    for event in &mut events {
        if let Event::Attempt { uncertain, .. } = event {
            *uncertain = false;
        }
    }
    let said = "a failure no retry can fix was tried again until a try went through.";
    assert_eq!(text(&events), format!("Tried 3 times: {said}"));
    let judged = judgement(&events, &Timeouts, Runtime::Harness);
    let tones: Vec<Tone> = judged.0.iter().flatten().map(|j| j.tone).collect();
    assert_eq!(tones, [Tone::Overturned, Tone::Overturned, Tone::Worked]);
    let v = verdict(&events, &Timeouts, &Effects::default());
    assert_eq!((v.counts.overturned_retries, v.harmed, v.tone), (2, true, VerdictTone::Bad));
}

#[test]
fn a_run_without_a_finished_attempt_says_whether_the_tool_was_called() {
    assert_eq!(text(&[reply()]), "The tool never ran; the agent answered directly.");
    let said = "The tool was called, but no attempt finished, then explained the result.";
    assert_eq!(text(&[call(), reply()]), said);
}

/// The attempt as the model read it: a failure's result, bare or not, flagged or not.
fn read_as(mut event: Event, bare: bool, flagged: bool) -> Event {
    use crate::replay::received::{Got, Received};
    if let Event::Attempt { received, .. } = &mut event {
        let mut record = Received::nothing();
        (record.got, record.failure, record.empty) = (Got::Result, true, false);
        (record.bare, record.flagged) = (bare, flagged);
        *received = Some(Box::new(record));
    }
    event
}

#[test]
fn a_bare_line_the_model_read_is_never_explained_and_is_harm_as_its_last_word() {
    let no = Some("business");
    let bare = [call(), read_as(attempt(1, no, None), true, true), reply()];
    let v = verdict(&bare, &Timeouts, &Effects::default());
    assert!(v.text.contains("the model read nothing of what happened"), "{}", v.text);
    assert!(!v.text.contains("explained the result"), "{}", v.text);
    assert_eq!((v.counts.model_read_bare, v.harmed, v.tone), (1, true, VerdictTone::Bad));
    // Unflagged, not bare: said so, and harm too.
    let unflagged = [call(), read_as(attempt(1, no, None), false, false), reply()];
    let v = verdict(&unflagged, &Timeouts, &Effects::default());
    assert!(v.text.contains("reached the model unflagged"), "{}", v.text);
    assert_eq!((v.counts.unflagged_failures, v.harmed), (1, true));
    // A later try of the same call went through: the misread was not the model's last word.
    let timeout = Some("transient");
    let first = read_as(attempt(1, timeout, Some(true)), true, false);
    let retried = [call(), first, attempt(2, None, None), reply()];
    let v = verdict(&retried, &Timeouts, &Effects::default());
    assert_eq!((v.counts.model_read_bare, v.harmed, v.tone), (1, false, VerdictTone::Good));
}
