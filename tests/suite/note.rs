//! Every message the model reads is on a card: the note the learner's code adds to the message
//! that answers a turn (Priya's follow-up in lesson 4) has a card of its own, in the text and in
//! JSON, saying where in the message it was put.

use crate::common::*;

const FOLLOW_UP: &str =
    "One more thing: the card I paid with was cancelled last week. Will the money still reach me?";

fn follow_up(ws: &Workshop, code: &str, format: &str) -> Run {
    ws.run(&[
        "watch",
        "tool-results",
        "--ticket",
        "follow-up",
        "--code",
        code,
        "--no-anim",
        "--format",
        format,
    ])
}

#[test]
fn the_note_sent_with_the_results_is_a_card_of_its_own_where_the_model_reads_it() {
    let ws = Workshop::new();
    let json = follow_up(&ws, "fixed", "json").json();
    let kinds: Vec<&str> =
        json["events"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["customer", "tool_call", "attempt", "note", "reply"]);
    let note = &json["events"][3];
    assert_eq!(note["text"], FOLLOW_UP);
    assert_eq!(note["after_results"], true);
    let text = follow_up(&ws, "fixed", "text");
    assert!(
        text.stdout.contains("Note          One more thing: the card I paid with was cancelled"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("[a text block in the same message, after the tool results]"),
        "{}",
        text.stdout
    );

    // The starter puts it first: its card says so, before the API's refusal.
    let json = follow_up(&ws, "starter", "json").json();
    let kinds: Vec<&str> =
        json["events"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["customer", "tool_call", "attempt", "note", "api_error"]);
    assert_eq!(json["events"][3]["after_results"], false);
    let text = follow_up(&ws, "starter", "text");
    assert!(
        text.stdout.contains("[a text block in the same message, before a tool result]"),
        "{}",
        text.stdout
    );
}

#[test]
fn a_message_with_no_text_has_no_note_card() {
    let ws = Workshop::new();
    let json = replay_json(&ws, "tool-results", "crash-trace", "fixed");
    assert!(json["events"].as_array().unwrap().iter().all(|e| e["kind"] != "note"), "{json:#}");
}
