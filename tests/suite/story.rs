//! The story of a replay is judged from the run, in every lesson, runtime and code: tones,
//! verdicts and counts from what happened (a read between two tries makes a retry checked, a
//! read after a failure settles it), the card's failure fields from the lesson's keys, every try
//! of a read its own card, and notes chosen by what the run did, so a learner's file that
//! behaves like the fix gets the fix's note.

use crate::common::*;

use serde_json::Value;

const L6: &str = "uncertain-state";
const L5: &str = "structured-errors";
const L6_TICKETS: [&str; 5] =
    ["lost-confirmation", "dropped-request", "slow-payment", "already-refunded", "slow-check"];

fn replay(ws: &Workshop, lesson: &str, ticket: &str, code: &str, runtime: &str) -> Value {
    let run = ws.run(&[
        "watch",
        lesson,
        "--ticket",
        ticket,
        "--code",
        code,
        "--runtime",
        runtime,
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
}

fn replays(ws: &Workshop, lesson: &str, code: &str, runtime: &str) -> Vec<Value> {
    let run = ws.run(&["watch", lesson, "--code", code, "--runtime", runtime, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json().as_array().unwrap().clone()
}

fn cards(ws: &Workshop, args: &[&str]) -> String {
    let mut all = vec!["watch"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--no-anim", "--color", "never"]);
    let run = ws.run(&all);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// Text with its wrapping undone, to look for a sentence wherever the width broke it.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn events<'a>(replay: &'a Value, kind: &str) -> Vec<&'a Value> {
    replay["events"].as_array().unwrap().iter().filter(|e| e["kind"] == kind).collect()
}

fn tones(replay: &Value) -> Vec<&str> {
    events(replay, "attempt").iter().map(|e| e["tone"].as_str().unwrap()).collect()
}

fn text(replay: &Value) -> &str {
    replay["verdict"]["text"].as_str().unwrap()
}

fn note(replay: &Value) -> &str {
    replay["verdict"]["note"].as_str().unwrap_or("")
}

// ---------------------------------------------------------------- item 1: the run, not the label

#[test]
fn a_repeat_after_a_read_that_found_nothing_is_after_a_check_in_either_runtime() {
    let ws = Workshop::new();
    for (runtime, want) in
        [("harness", vec!["checked", "worked"]), ("sdk", vec!["checked", "worked", "worked"])]
    {
        let r = replay(&ws, L6, "dropped-request", "structured", runtime);
        assert_eq!(tones(&r), want, "{runtime}");
        let verdict = text(&r);
        assert_eq!(
            verdict,
            "Tried twice and read once: the read found nothing, so the retry was known to be safe."
        );
        assert!(note(&r).starts_with("Paid once, on purpose"), "{runtime}: {}", note(&r));
        let counts = &r["verdict"]["counts"];
        assert_eq!(
            (counts["attempts"].as_u64(), counts["reads"].as_u64()),
            (Some(2), Some(1)),
            "{counts}"
        );
        assert_eq!(counts["blind_retries"], 0, "{counts}");
    }
    // The card says so, not "retried blindly".
    let shown = cards(
        &ws,
        &[L6, "--ticket", "dropped-request", "--runtime", "sdk", "--code", "structured"],
    );
    assert!(
        shown.contains("failed, uncertain: a read found nothing, so it was tried again"),
        "{shown}"
    );
    assert!(shown.contains("✓ worked: it did not go through, safe to try again"), "{shown}");
    assert!(!shown.contains("blindly"), "{shown}");
}

#[test]
fn a_failure_a_models_read_found_gone_through_is_settled_as_the_harness_s_is() {
    let ws = Workshop::new();
    for runtime in ["harness", "sdk"] {
        let r = replay(&ws, L6, "lost-confirmation", "structured", runtime);
        assert_eq!(tones(&r)[0], "settled", "{runtime}");
        assert_eq!(
            text(&r),
            "Tried once and read once: the read showed it had gone through, so nothing was repeated.",
            "{runtime}"
        );
        assert_eq!(r["verdict"]["counts"]["failed"], false, "{runtime}");
    }
}

#[test]
fn a_retry_on_the_errors_word_that_nothing_showed_safe_is_blind_and_the_verdict_says_so_once() {
    let ws = Workshop::new();
    for runtime in ["harness", "sdk"] {
        let r = replay(&ws, L6, "lost-confirmation", "starter", runtime);
        assert_eq!(tones(&r), ["blind", "worked"], "{runtime}");
        let verdict = text(&r);
        assert!(
            verdict.starts_with(
                "Tried twice: the error said a retry could help, but nothing showed this failure was safe to repeat."
            ),
            "{verdict}"
        );
        assert!(verdict.contains("Order 2217 was refunded 2 times"), "{verdict}");
        assert!(note(&r).starts_with("Paid twice"), "{}", note(&r));
    }
}

#[test]
fn calls_retries_and_reads_are_counted_apart() {
    let ws = Workshop::new();
    for runtime in ["harness", "sdk"] {
        let r = replay(&ws, L6, "slow-check", "structured", runtime);
        let counts = &r["verdict"]["counts"];
        // One refund; one read, retried once after it timed out.
        assert_eq!(counts["attempts"], 1, "{runtime}: {counts}");
        assert_eq!(counts["reads"], 1, "{runtime}: {counts}");
        assert_eq!(counts["retries"], 1, "{runtime}: {counts}");
        assert_eq!(counts["refunds_paid"], 1, "{runtime}: {counts}");
        assert_eq!(counts["ends"], "reply", "{runtime}: {counts}");
        assert!(
            text(&r).starts_with("Tried once and read once, in 2 tries:"),
            "{runtime}: {}",
            text(&r)
        );
        assert!(!text(&r).contains("3 times"), "{runtime}: {}", text(&r));
    }
}

/// Every replay of both lessons, in both runtimes, with both codes: what the verdict line says
/// agrees with the tones of its cards, with its counts and with its note.
#[test]
fn no_verdict_contradicts_another_line_of_itself() {
    let ws = Workshop::new();
    for lesson in [L5, L6] {
        for runtime in ["harness", "sdk"] {
            for code in ["starter", "structured"] {
                for r in replays(&ws, lesson, code, runtime) {
                    let at =
                        format!("{lesson} {runtime}/{} with {code}", r["ticket"].as_str().unwrap());
                    says_one_thing(&r, &at);
                    assert!(!note(&r).is_empty(), "{at}: every run gets a note");
                }
            }
        }
    }
}

/// What one replay's verdict, tones, note and counts say agrees with itself (see
/// `no_verdict_contradicts_another_line_of_itself`).
fn says_one_thing(r: &Value, at: &str) {
    let (verdict, note, counts) = (text(r), note(r), &r["verdict"]["counts"]);
    let tones = tones(r);
    let blind = tones.contains(&"blind");
    assert_eq!(blind, counts["blind_retries"].as_u64() > Some(0), "{at}: {tones:?} {counts}");
    assert_eq!(
        blind,
        verdict.contains("nothing showed") || verdict.contains("nothing said"),
        "{at}"
    );
    let checked = tones.contains(&"checked");
    assert_eq!(checked, verdict.contains("the read found nothing"), "{at}: {verdict}");
    assert!(!(checked && verdict.contains("nothing said it was safe")), "{at}: {verdict}");
    let wasted = tones.contains(&"wasted");
    assert_eq!(wasted, verdict.contains("could not have helped"), "{at}: {verdict}");
    // A payment the world counts once is never called a double one, and back.
    let twice = verdict.contains("refunded 2 times");
    assert_eq!(twice, counts["refunds_paid"].as_u64() == Some(2), "{at}: {verdict}");
    assert!(!(twice && note.starts_with("Paid once")), "{at}: {verdict} / {note}");
    assert!(!(blind && note.contains("on purpose")), "{at}: {verdict} / {note}");
    // "Tried N times" counts the model's calls, never its reads.
    let attempts = counts["attempts"].as_u64().unwrap();
    if let Some(n) =
        verdict.strip_prefix("Tried ").and_then(|t| t.split([' ', ':', ',', '.']).next())
    {
        let said = match n {
            "once" => 1,
            "twice" => 2,
            n => n.parse().unwrap_or(0),
        };
        assert_eq!(said, attempts, "{at}: {verdict} {counts}");
    }
}

// ---------------------------------------------------------------- item 2: the lesson's failure fields

#[test]
fn a_failure_that_says_what_happened_is_never_called_one_that_says_nothing() {
    let ws = Workshop::new();
    let r = replay(&ws, L6, "lost-confirmation", "structured", "sdk");
    assert!(!text(&r).contains("nothing that says what happened"), "{}", text(&r));
    // The card shows what the error carries, by the lesson's [failure] keys: verify included.
    let shown = flat(&cards(
        &ws,
        &[L6, "--ticket", "lost-confirmation", "--runtime", "sdk", "--code", "structured"],
    ));
    assert!(
        shown.contains(
            "category uncertain, not retryable, verify find_refund: The refund for order 2217 went"
        ),
        "{shown}"
    );
    assert_eq!(
        events(&r, "attempt")[0]["details"],
        serde_json::json!(["category uncertain", "not retryable", "verify find_refund"])
    );
    // A bare `Error` still is one: the coordinator's starter run.
    let bare = replay(&ws, L5, "coordinator", "starter", "harness");
    assert!(
        text(&bare).contains("1 failure came back with nothing that says what happened"),
        "{}",
        text(&bare)
    );
    assert_eq!(bare["verdict"]["counts"]["bare_failures"], 2);
}

#[test]
fn a_failure_without_a_category_that_still_says_what_happened_is_told_apart_from_a_bare_one() {
    let ws = Workshop::lesson5();
    let file = ws.learner("l5_no_category.py");
    let r = replay(&ws, L5, "coordinator", &file, "harness");
    assert_eq!(r["verdict"]["counts"]["bare_failures"], 0);
    assert_eq!(r["verdict"]["counts"]["failed"], true);
    let lookup = events(&r, "attempt").into_iter().find(|a| a["failed"] == true).unwrap();
    assert_eq!(lookup["details"], serde_json::json!(["no category", "retryable"]), "{lookup}");
    assert!(lookup.get("bare").is_none(), "{lookup}");
    assert_eq!(r["verdict"]["counts"]["reports"], 0);
}

#[test]
fn the_cards_name_a_lessons_own_failure_keys_fields() {
    // The toy lesson calls its keys kind, again and note: the card reads them, not lesson 5's.
    let ws = Workshop::from_fixture("toy");
    assert_eq!(ws.run(&["record", "parcel-desk"]).code, 0);
    let shown = flat(&cards(&ws, &["parcel-desk", "--ticket", "slow-card", "--code", "fixed"]));
    assert!(
        shown.contains("category transient, retryable: The card terminal hiccuped on parcel 2001"),
        "{shown}"
    );
}

// ---------------------------------------------------------------- item 4: every try visible

#[test]
fn every_try_of_a_read_is_its_own_card_and_expand_shows_each_ones_own_result() {
    let ws = Workshop::new();
    let r = replay(&ws, L6, "slow-check", "structured", "harness");
    let reads = events(&r, "verify");
    assert_eq!(reads.len(), 2, "{r}");
    assert_eq!((reads[0]["number"].as_u64(), reads[0]["failed"].as_bool()), (Some(1), Some(true)));
    assert_eq!(reads[0]["retried"], true);
    assert_eq!(reads[0]["found"], Value::Null);
    assert_eq!(reads[0]["cause"], "transient");
    assert_eq!((reads[1]["number"].as_u64(), reads[1]["found"].as_bool()), (Some(2), Some(true)));
    // The block the model receives is the settling read's, under that read, not the refund's.
    assert_eq!(reads[1]["wire"]["type"], "tool_result", "{}", reads[1]);
    assert!(events(&r, "attempt")[0].get("wire").is_none(), "{r}");

    let shown = cards(&ws, &[L6, "--ticket", "slow-check", "--code", "structured", "--expand"]);
    insta::assert_snapshot!("slow_check_expanded", shown);
    let shown = flat(&shown);
    let refund = &shown[shown.find("Attempt 1").unwrap()..shown.find("Verify ✗").unwrap()];
    assert!(
        refund.contains("\"errorCategory\": \"uncertain\""),
        "the refund's own result:\n{refund}"
    );
    assert!(!refund.contains("found"), "no read's result under the refund:\n{refund}");
    assert!(
        refund.contains("the model is given the read's answer for this call instead"),
        "{refund}"
    );
    let first = &shown[shown.find("Verify ✗").unwrap()..shown.find("Verify 2 ✓").unwrap()];
    assert!(
        first.contains(
            "✗ reads find_refund first: the read failed: a read changes nothing, so it runs"
        ),
        "{first}"
    );
    assert!(first.contains("category transient, retryable"), "{first}");
    assert!(first.contains("never sent to the model: the harness read again"), "{first}");
    let second = &shown[shown.find("Verify 2 ✓").unwrap()..shown.find("Agent replies").unwrap()];
    assert!(
        second.contains("✓ reads find_refund again: it went through: nothing to repeat"),
        "{second}"
    );
    assert!(second.contains("the tool_result block the model receives"), "{second}");
}

#[test]
fn in_the_sdk_runtime_each_attempt_shows_the_tool_result_block_it_became() {
    let ws = Workshop::new();
    let r = replay(&ws, L6, "slow-check", "structured", "sdk");
    for attempt in events(&r, "attempt") {
        assert_eq!(attempt["block"]["type"], "tool_result", "{attempt}");
        assert_eq!(attempt["block"]["tool_use_id"], attempt["tool_use_id"], "{attempt}");
        assert_eq!(
            attempt["block"].get("is_error").is_some(),
            attempt["failed"] == true,
            "{attempt}"
        );
    }
}

// ---------------------------------------------------------------- item 3: notes by outcome

#[test]
fn a_learners_file_that_behaves_like_the_fix_gets_the_fixs_notes_and_one_like_the_starter_its_harm()
{
    let ws = Workshop::new();
    let fix = ws.learner("l6_like_the_fix.py");
    let like_starter = ws.learner("l6_like_the_starter.py");
    for runtime in ["harness", "sdk"] {
        for ticket in L6_TICKETS {
            let mine = replay(&ws, L6, ticket, &fix, runtime);
            let reference = replay(&ws, L6, ticket, "structured", runtime);
            assert_eq!(mine["verdict"], reference["verdict"], "{runtime}/{ticket}");
            let theirs = replay(&ws, L6, ticket, &like_starter, runtime);
            let starter = replay(&ws, L6, ticket, "starter", runtime);
            assert_eq!(theirs["verdict"], starter["verdict"], "{runtime}/{ticket}");
        }
        let gain = replay(&ws, L6, "dropped-request", &fix, runtime);
        assert!(note(&gain).starts_with("Paid once, on purpose"), "{}", note(&gain));
        let harm = replay(&ws, L6, "lost-confirmation", &like_starter, runtime);
        assert!(note(&harm).starts_with("Paid twice: 458.00"), "{}", note(&harm));
    }
    // Lesson 5 too: the watch fixture written differently gets the fix's gain.
    let ws = Workshop::lesson5();
    ws.copy_watch_fixture("learners/same_results_rewritten.py", "mine.py");
    let shown = cards(&ws, &["--ticket", "old-order", "--code", "mine.py"]);
    assert!(shown.contains("Gain: one attempt, and Ada hears the real reason"), "{shown}");
}

#[test]
fn another_outcome_gets_the_honest_line_that_fits_it() {
    let ws = Workshop::new();
    let file = ws.learner("l6_drops_verify.py");
    for runtime in ["harness", "sdk"] {
        let lost = replay(&ws, L6, "lost-confirmation", &file, runtime);
        assert_eq!(lost["verdict"]["counts"]["reads"], 0);
        assert!(
            note(&lost).starts_with("Paid once, but nobody looked"),
            "{runtime}: {}",
            note(&lost)
        );
        let dropped = replay(&ws, L6, "dropped-request", &file, runtime);
        assert!(note(&dropped).starts_with("Nothing was paid"), "{runtime}: {}", note(&dropped));
    }
}

#[test]
fn json_carries_the_counts_and_the_note_chosen_for_every_run() {
    let ws = Workshop::new();
    for runtime in ["harness", "sdk"] {
        for r in replays(&ws, L6, "structured", runtime) {
            let counts = r["verdict"]["counts"].as_object().unwrap();
            let keys: Vec<&str> = counts.keys().map(String::as_str).collect();
            for key in [
                "attempts",
                "reads",
                "retries",
                "wasted_retries",
                "blind_retries",
                "bare_failures",
                "reports",
                "failed",
                "ends",
                "refunds_paid",
            ] {
                assert!(keys.contains(&key), "{key} missing from {counts:?}");
            }
            assert!(r["verdict"]["note"].is_string(), "{r}");
        }
    }
}

#[test]
fn notes_keyed_by_code_are_refused_with_how_to_write_them() {
    let ws = Workshop::from_fixture("toy");
    let path = "lessons/parcel-desk/lesson.toml";
    let text = ws.read(path);
    let start = text.find("notes = [").unwrap();
    let end = start + text[start..].find("\n]\n").unwrap() + 3;
    let old = "notes = { starter = \"The desk gave up.\", fixed = \"One more try.\" }\n";
    ws.write(path, &format!("{}{old}{}", &text[..start], &text[end..]));
    let run = ws.run(&["doctor", "parcel-desk"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stdout.contains("ticket slow-card: notes are keyed by code (fixed, starter)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("notes = [{ when = { attempts = 2, reads = \">=1\" }"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("line "), "{}", run.stdout);
}

#[test]
fn a_note_or_a_choice_naming_what_no_run_counts_is_refused_with_its_line() {
    for (from, to, said) in [
        (
            "retries = 0, failed = true",
            "retrys = 0",
            "'retrys' is not something a run counts: choose from attempts",
        ),
        (
            "retries = 0, failed = true",
            "retries = \"lots\"",
            "retries is a count: give a number such as 1",
        ),
        ("retries = 0, failed = true", "failed = 1", "failed is true or false"),
        ("retries = 0, failed = true", "ends = \"happily\"", "ends is one of reply, no_recording"),
    ] {
        let ws = Workshop::from_fixture("toy");
        let path = "lessons/parcel-desk/lesson.toml";
        ws.write(path, &ws.read(path).replacen(from, to, 1));
        let run = ws.run(&["check", "parcel-desk", "--file", "starter/parcel-desk/desk.py"]);
        assert_eq!(run.code, 2, "{to}: {}", run.stdout);
        assert!(run.stderr.contains(said), "{to}: {}", run.stderr);
        assert!(run.stderr.contains("line "), "{}", run.stderr);
    }
    // A note for every run, before others, would hide them.
    let ws = Workshop::from_fixture("toy");
    let path = "lessons/parcel-desk/lesson.toml";
    let text = ws.read(path).replacen(
        "  { when = { retries = 0, failed = true }, says",
        "  { says = \"First, and for every run.\" },\n  { when = { retries = 0, failed = true }, says",
        1,
    );
    ws.write(path, &text);
    let run = ws.run(&["doctor", "parcel-desk"]);
    assert!(
        run.stdout.contains("note 1 applies to every run, so the notes after it never show"),
        "{}",
        run.stdout
    );
}

// ---------------------------------------------------------------- item 7: samples agree

#[test]
fn a_sample_message_and_its_verify_name_the_same_order() {
    let ws = Workshop::new();
    let file = ws.learner("l6_drops_verify.py");
    let run = ws.run(&["check", L6, "--file", &file, "--format", "json"]);
    let report = run.json();
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "verify-passed-through")
        .unwrap();
    let call = check["call"].as_str().unwrap();
    let id_after = |text: &str, marker: &str| -> String {
        let at = text.find(marker).unwrap_or_else(|| panic!("{marker} in {text}")) + marker.len();
        text[at..].chars().take_while(char::is_ascii_digit).collect()
    };
    let in_message = id_after(call, "The refund for order ");
    let in_verify = id_after(call, "'order_id': '");
    assert_eq!(in_message.len(), 4, "{call}");
    assert_eq!(in_message, in_verify, "{call}");
    // The expectation names the same order too.
    let message = check["message"].as_str().unwrap();
    assert_eq!(id_after(message, "'order_id': '"), in_message, "{message}");
}

#[test]
fn a_case_naming_an_unknown_sample_or_field_is_refused() {
    let ws = Workshop::new();
    let path = "lessons/uncertain-state/lesson.toml";
    ws.write(path, &ws.read(path).replacen("\"$order_id\"", "\"$order_number\"", 1));
    let run = ws.run(&["check", L6, "--file", "lessons/uncertain-state/solution/refunds.py"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("uses an unknown sample '$order_number'"), "{}", run.stderr);
    assert!(run.stderr.contains("or a drawn field: $order_id"), "{}", run.stderr);
}

#[test]
fn a_guidance_naming_an_unknown_sample_is_refused_as_a_case_is() {
    // Guidance `when`s resolve samples as cases do; a typo there would match its own text.
    let ws = Workshop::lesson5();
    let path = "lessons/structured-errors/lesson.toml";
    let manifest = ws.read(path);
    let typo = r#"equals = "$empty", not = true"#;
    assert_eq!(manifest.matches(typo).count(), 1);
    ws.write(path, &manifest.replace(typo, r#"equals = "$emptyy", not = true"#));
    let run = ws.run(&[
        "check",
        "structured-errors",
        "--file",
        "lessons/structured-errors/solution/errors.py",
    ]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("check empty-is-not-failure uses an unknown sample '$emptyy'"),
        "{}",
        run.stderr
    );
}

// ---------------------------------------------------------------- item 5: mistakes that teach

#[test]
fn a_lessons_named_mistake_replays_to_a_reply_that_says_what_is_not_known() {
    let ws = Workshop::new();
    for runtime in ["harness", "sdk"] {
        for r in replays(&ws, L6, "no-verify", runtime) {
            let at = format!("{runtime}/{}", r["ticket"].as_str().unwrap());
            assert_eq!(r["code"], "no-verify", "{at}");
            assert_eq!(r["verdict"]["counts"]["ends"], "reply", "{at}: {}", text(&r));
            assert_eq!(r["verdict"]["counts"]["reads"], 0, "{at}: nothing names a read");
        }
        let lost = replay(&ws, L6, "lost-confirmation", "no-verify", runtime);
        assert_eq!(lost["verdict"]["counts"]["failed"], true);
        assert!(note(&lost).starts_with("Paid once, but nobody looked"), "{}", note(&lost));
        let reply = events(&lost, "reply")[0]["text"].as_str().unwrap();
        assert!(reply.contains("whether") && reply.contains("haven't"), "{reply}");
    }
    // Lesson 5's flag without a category: the coordinator's failed lookup says what happened,
    // and with no category its subagent has no report to make.
    let r = replay(&ws, L5, "coordinator", "no-category", "harness");
    assert_eq!(text(&r), "4 calls, 1 retry: 3 results; 1 failure came back saying what happened.");
    assert!(note(&r).contains("nothing to report in four parts"), "{}", note(&r));
}

#[test]
fn doctor_replays_and_grades_each_named_mistake_like_the_starter_and_the_fix() {
    let ws = Workshop::new();
    let run = ws.run(&["doctor", L6]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    for runtime in ["harness", "sdk"] {
        for ticket in L6_TICKETS {
            let line = format!("✓ {runtime}/{ticket} with no-verify: ");
            assert!(run.stdout.contains(&line), "{line} missing from:\n{}", run.stdout);
        }
    }
    assert!(
        run.stdout.contains("✓ check no-verify fails as it should (14/18 checks pass)"),
        "{}",
        run.stdout
    );
    // A mistake whose recordings are gone is a finding, as the starter's would be.
    let lines: Vec<String> = ws
        .read("recordings/uncertain-state/harness/lost-confirmation.jsonl")
        .lines()
        .map(String::from)
        .collect();
    let kept: Vec<&String> =
        lines.iter().filter(|l| !l.contains("nobody can say whether")).collect();
    assert_eq!(kept.len() + 1, lines.len());
    let text: String = kept.iter().map(|l| format!("{l}\n")).collect();
    ws.write("recordings/uncertain-state/harness/lost-confirmation.jsonl", &text);
    let run = ws.run(&["doctor", L6]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("✗ harness/lost-confirmation with no-verify: a request has no recording"),
        "{}",
        run.stdout
    );
}

#[test]
fn code_names_a_mistake_and_an_unknown_word_lists_them() {
    let ws = Workshop::new();
    let run = ws.run(&["watch", L5, "--ticket", "old-order", "--code", "no-categry"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains(
            "choose starter, structured, no-category, yours (your work file), or the path"
        ),
        "{}",
        run.stderr
    );
    let shown = cards(&ws, &[L5, "--ticket", "old-order", "--code", "no-category"]);
    assert!(shown.contains("code no-category"), "{shown}");
    assert!(
        shown.contains("no category, not retryable: Order 0871 was bought 239 days ago"),
        "{shown}"
    );
}

#[test]
fn a_mistake_is_declared_with_a_plain_label_and_a_file_inside_the_lesson() {
    for (from, to, said) in [
        (
            "label = \"no-verify\"",
            "label = \"structured\"",
            "mistake label 'structured' must be a plain word",
        ),
        (
            "label = \"no-verify\"",
            "label = \"no verify\"",
            "mistake label 'no verify' must be a plain word",
        ),
        (
            "file = \"mistakes/no-verify.py\"",
            "file = \"../no-verify.py\"",
            "must be a path inside the lesson's folder",
        ),
    ] {
        let ws = Workshop::new();
        let path = "lessons/uncertain-state/lesson.toml";
        ws.write(path, &ws.read(path).replacen(from, to, 1));
        let run = ws.run(&["doctor", L6]);
        assert_eq!(run.code, 2, "{to}: {}", run.stdout);
        assert!(run.stdout.contains(said), "{to}: {}", run.stdout);
    }
    // Its file gone: said, with the file, and how to get it back.
    let ws = Workshop::new();
    std::fs::remove_file(ws.path("lessons/uncertain-state/mistakes/no-verify.py")).unwrap();
    let run = ws.run(&["watch", L6, "--ticket", "slow-payment", "--code", "no-verify"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("mistakes/no-verify.py: is missing from the lesson"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_traceback_that_reaches_the_model_is_counted_and_gets_the_harm_whichever_file_sent_it() {
    let ws = Workshop::new();
    let lesson = "tool-results";
    for (code, leaks, harm) in [
        ("starter", 1, true),
        ("lessons/tool-results/mistakes/crash_forwarded.py", 1, true),
        ("fixed", 0, false),
    ] {
        let r = replay(&ws, lesson, "crash-trace", code, "harness");
        assert_eq!(r["verdict"]["counts"]["leaks"], leaks, "{code}");
        assert_eq!(
            note(&r).starts_with("Harm: text from the crash reached the model"),
            harm,
            "{code}: {}",
            note(&r)
        );
        let leaked = events(&r, "attempt").iter().any(|a| a["leaked"] == true);
        assert_eq!(leaked, leaks > 0, "{code}");
    }
}

// ---------------------------------------------------------------- item 6: the lesson's questions

#[test]
fn every_ticket_question_of_lesson_6_has_one_right_answer_in_both_runtimes_and_doctor_says_when_not(
) {
    let ws = Workshop::new();
    let path = "lessons/uncertain-state/lesson.toml";
    // "458.00: the refund is paid twice" made unreachable: the starter's run matches no choice.
    ws.write(
        path,
        &ws.read(path).replacen(
            "when = { refunds_paid = 2 } },\n  { says = \"nothing",
            "when = { refunds_paid = 3 } },\n  { says = \"nothing",
            1,
        ),
    );
    let run = ws.run(&["doctor", L6]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    for runtime in ["harness", "sdk"] {
        let line =
            format!("✗ {runtime}/lost-confirmation with starter: no choice of the ticket's question holds of this run");
        assert!(run.stdout.contains(&line), "{line} missing from:\n{}", run.stdout);
    }
    assert!(run.stdout.contains("doctor: 2 problems."), "{}", run.stdout);
}
