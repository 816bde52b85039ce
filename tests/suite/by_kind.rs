//! Replays by kind: lesson 4 asks the learner to answer a crash with a sentence of their own, and
//! the replay answers any sentence of a recorded kind with the reply written for another
//! sentence of that kind, saying so on the card, in JSON and (with `--expand`) showing both.
//! Exact matches stay unlabelled; a sentence of no recorded kind stops at `no_recording`, which
//! names its kind and the kinds recorded.

use crate::common::*;

use serde_json::Value;

const SOLUTION: &str = "lessons/tool-results/solution/results.py";
const WORK: &str = "work/tool-results/results.py";

/// The reference fix with its sentence for a crash replaced by `sentence`, as a learner writes it.
fn with_sentence(sentence: &str) -> String {
    let fix = std::fs::read_to_string(repo().join(SOLUTION)).unwrap();
    let start = fix.find("CRASHED = (").expect("the fix names its sentence CRASHED");
    let end = start + fix[start..].find(")\n").unwrap() + 2;
    format!(
        "{}CRASHED = {}\n{}",
        &fix[..start],
        serde_json::to_string(sentence).unwrap(),
        &fix[end..]
    )
}

fn crash_trace(ws: &Workshop, extra: &[&str]) -> Run {
    let mut args =
        vec!["watch", "tool-results", "--ticket", "crash-trace", "--code", "yours", "--no-anim"];
    args.extend_from_slice(extra);
    ws.run(&args)
}

fn reply(json: &Value) -> &Value {
    let events = json["events"].as_array().unwrap();
    let last = events.last().unwrap();
    assert_eq!(last["kind"], "reply", "the replay ends with the agent's reply: {json:#}");
    last
}

/// Sentences learners wrote for the crash: the kind the lesson teaches (flagged, nothing of the
/// crash's text), and two that keep the database host.
const OWN: [&str; 3] = [
    "Our order system had a fault on its side, so this lookup got no answer. Offer the customer a later try.",
    "The order service failed internally; the call itself was fine. Say it cannot be checked now and suggest asking again later.",
    "Lookup unavailable because of an internal fault (not your input). Tell the customer to try again in a while.",
];
const LEAKS: [&str; 2] = [
    "The lookup failed: the connection to orders-db.lumen.internal was lost.",
    "psycopg.OperationalError: connection to \"orders-db.lumen.internal\" lost while reading order 2077",
];

#[test]
fn every_learner_sentence_of_a_recorded_kind_replays_to_the_end_labelled_by_its_kind() {
    let ws = Workshop::new();
    let cases = OWN
        .iter()
        .map(|s| (*s, "own-sentence", "Gain:"))
        .chain(LEAKS.iter().map(|s| (*s, "names-the-host", "Harm:")));
    for (sentence, kind, note) in cases {
        ws.write(WORK, &with_sentence(sentence));
        let run = crash_trace(&ws, &["--format", "json"]);
        assert_eq!(run.code, 0, "{sentence}: {}", run.stdout);
        let json = run.json();
        let reply = reply(&json);
        let swaps = reply["by_kind"]
            .as_array()
            .unwrap_or_else(|| panic!("{sentence}: no by_kind label: {reply:#}"));
        assert_eq!(swaps.len(), 1);
        assert_eq!(swaps[0]["kind"], kind, "{sentence}");
        assert_eq!(swaps[0]["sent"], sentence);
        assert_ne!(swaps[0]["recorded"], sentence);
        assert_eq!(swaps[0]["words"], "sentence for the crash");
        let said = json["verdict"]["note"].as_str().unwrap();
        assert!(
            said.starts_with(note),
            "{sentence}: the note is judged from what was sent: {said}"
        );
        // Its card says so, and --expand shows both sentences.
        let text = crash_trace(&ws, &["--color", "never"]);
        assert!(
            text.stdout.contains(
                "By kind       recorded for a different sentence for the crash, of the same"
            ),
            "{}",
            text.stdout
        );
        let expanded = crash_trace(&ws, &["--color", "never", "--expand"]);
        // Wrapped to the width (a long word too), so compared without the whitespace.
        let bare = |t: &str| t.split_whitespace().collect::<String>();
        let shown = bare(&expanded.stdout);
        assert!(
            shown.contains(&bare(&format!("this run sent: {sentence}"))),
            "{}",
            expanded.stdout
        );
        let recorded = swaps[0]["recorded"].as_str().unwrap();
        assert!(shown.contains(&bare(&format!("recorded for: {recorded}"))), "{}", expanded.stdout);
    }
}

#[test]
fn a_leaked_host_counts_as_a_leak_and_its_reply_names_only_what_it_read() {
    let ws = Workshop::new();
    ws.write(WORK, &with_sentence(LEAKS[0]));
    let json = crash_trace(&ws, &["--format", "json"]).json();
    assert!(json["verdict"]["counts"]["leaks"].as_u64().unwrap() >= 1, "{:#}", json["verdict"]);
    assert!(reply(&json)["text"].as_str().unwrap().contains("orders-db.lumen.internal"));
}

#[test]
fn a_sentence_as_text_blocks_is_read_by_its_text() {
    let ws = Workshop::new();
    let file = with_sentence(OWN[0]).replace(
        "block[\"content\"] = CRASHED",
        "block[\"content\"] = [{\"type\": \"text\", \"text\": CRASHED}]",
    );
    assert!(file.contains("\"text\": CRASHED"), "the fix's crash line moved: {file}");
    ws.write(WORK, &file);
    let json = crash_trace(&ws, &["--format", "json"]).json();
    assert_eq!(reply(&json)["by_kind"][0]["kind"], "own-sentence");
}

#[test]
fn the_fix_replays_exactly_and_carries_no_kind_label() {
    let ws = Workshop::new();
    let json = replay_json(&ws, "tool-results", "crash-trace", "fixed");
    assert!(reply(&json).get("by_kind").is_none(), "{json:#}");
    let text = ws.run(&[
        "watch",
        "tool-results",
        "--ticket",
        "crash-trace",
        "--code",
        "fixed",
        "--no-anim",
        "--expand",
    ]);
    assert!(!text.stdout.contains("By kind"), "{}", text.stdout);
}

#[test]
fn a_sentence_of_no_recorded_kind_stops_and_says_its_kind_and_the_recorded_ones() {
    let ws = Workshop::new();
    // A sentence that names the traceback but quotes none of it: of none of the kinds, so it
    // is keyed by its words and nothing answers. (The password alone would quote the crash, and
    // a bare word says nothing: kinds with a reply.)
    ws.write(WORK, &with_sentence("Our order lookup hit a Traceback on its side."));
    let json = crash_trace(&ws, &["--format", "json"]).json();
    let last = json["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["kind"], "no_recording");
    let words = &last["words"][0];
    assert!(words.get("kind").is_none(), "{words:#}");
    let recorded: Vec<&str> =
        words["recorded"].as_array().unwrap().iter().map(|k| k["kind"].as_str().unwrap()).collect();
    assert_eq!(recorded, ["names-the-host", "quotes-the-crash", "says-nothing", "own-sentence"]);
    let text = crash_trace(&ws, &["--color", "never"]);
    assert!(
        text.stdout.contains(
            "Kind          your sentence for the crash is of none of the lesson's kinds."
        ),
        "{}",
        text.stdout
    );
    let flat = text.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    let recorded = "Kinds recorded: names-the-host; quotes-the-crash; says-nothing; own-sentence.";
    assert!(flat.contains(recorded), "{flat}");

    // Of a recorded kind, but unflagged: the flag is outside the words, so the card says the
    // kind has a reply and something else differs.
    let unflagged = with_sentence(OWN[0]).replace("    block[\"is_error\"] = True\n", "");
    assert!(!unflagged.contains("block[\"is_error\"] = True"), "the fix's flag line moved");
    ws.write(WORK, &unflagged);
    let text = crash_trace(&ws, &["--color", "never"]);
    let flat = text.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "is of the kind own-sentence, which has a reply: something else in the request differs"
        ),
        "{flat}"
    );
}

#[test]
fn a_kind_declared_for_a_ticket_that_does_not_exist_is_refused_with_its_line() {
    let ws = Workshop::new();
    let manifest = ws
        .read("lessons/tool-results/lesson.toml")
        .replace("tickets = [\"crash-trace\"]", "tickets = [\"crash-trail\"]");
    ws.write("lessons/tool-results/lesson.toml", &manifest);
    let run = ws.run(&["watch", "tool-results", "--ticket", "crash-trace", "--no-anim"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("own_words crash-sentence: there is no ticket 'crash-trail'"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("line "), "{}", run.stderr);
}

#[test]
fn record_refuses_two_replies_for_one_kind() {
    let ws = Workshop::new();
    // Widen the host kind to every sentence: the fix's and the forwarded crash's then share a
    // kind, with two different replies.
    let manifest = ws.read("lessons/tool-results/lesson.toml").replace(
        "when = [{ contains = \"orders-db.lumen.internal\" }]",
        "when = [{ min_len = 1 }]",
    );
    ws.write("lessons/tool-results/lesson.toml", &manifest);
    let run = ws.run(&["record", "tool-results", "--ticket", "crash-trace"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("sends words of the same kind as another run"), "{}", run.stdout);
    // Recordings that disagree this way are refused when a replay loads them, naming the line.
    let replay = ws.run(&[
        "watch",
        "tool-results",
        "--ticket",
        "crash-trace",
        "--code",
        "fixed",
        "--no-anim",
    ]);
    assert_eq!(replay.code, 2);
    assert!(replay.stderr.contains("crash-trace.jsonl:"), "{}", replay.stderr);
    assert!(
        replay.stderr.contains("records another reply for words of the same kind"),
        "{}",
        replay.stderr
    );
}

#[test]
fn doctor_names_a_kind_no_recorded_reply_answers() {
    let ws = Workshop::new();
    let path = "lessons/tool-results/lesson.toml";
    let manifest = ws.read(path).replacen(
        "kinds = [\n",
        concat!(
            "kinds = [\n  { id = \"bare-word\", says = \"one word\", ",
            "when = [{ path = \"content\", max_len = 3 }] },\n"
        ),
        1,
    );
    ws.write(path, &manifest);
    let run = ws.run(&["doctor", "tool-results"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("harness/crash-trace: no recorded reply answers a sentence for the crash of the kind bare-word"),
        "{}",
        run.stdout
    );
    // The lesson as shipped has a reply for each of its kinds.
    let shipped = Workshop::new().run(&["doctor", "tool-results"]);
    assert_eq!(shipped.code, 0, "{}", shipped.stdout);
}

/// A bare word for the crash (the tool-results mistake crash_bare.py): nothing leaks, and the
/// reply recorded for that kind answers any such word, which the model reads as a bare line.
#[test]
fn a_bare_word_for_the_crash_replays_by_its_kind_and_reads_as_bare() {
    let ws = Workshop::new();
    for word in ["Error", "Failed.", "error: crashed"] {
        ws.write(WORK, &with_sentence(word));
        let run = crash_trace(&ws, &["--format", "json"]);
        assert_eq!(run.code, 0, "{word}: {}", run.stderr);
        let json = run.json();
        let reply = reply(&json);
        let kind = reply["by_kind"][0]["kind"].as_str();
        // The recorded word itself replays exactly; any other is labelled by its kind.
        if word != "Error" {
            assert_eq!(kind, Some("says-nothing"), "{word}: {reply:#}");
        }
        let v = &json["verdict"];
        assert_eq!(v["counts"]["model_read_bare"], 1, "{word}: {v}");
        assert_eq!(v["counts"]["leaks"], 0, "{word}: {v}");
        assert!(v["note"].as_str().unwrap().starts_with("Harm: nothing leaked"), "{word}: {v}");
    }
}
