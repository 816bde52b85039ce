//! Lesson 8, `messages-that-help`, in the on-call world: the learner writes the sentence the model
//! reads for each failure, from its facts, and decides which failures the host retries in code.
//! The checks grade a sentence by its properties, so files in other words pass and fixed
//! sentences fail; each property broken on its own fails the one check that names it; and the
//! replays answer the learner's own sentences by kind, to the end, saying so.

use crate::common::*;

use serde_json::Value;

const LESSON: &str = "messages-that-help";
const STARTER: &str = "starter/messages-that-help/messages.py";
const SOLUTION: &str = "lessons/messages-that-help/solution/messages.py";
/// Learner files of this lesson that only the tests use.
const FIXTURES: &str = "tests/fixtures/messages-that-help";

/// Every check id, in the order `check` runs them.
const ALL: [&str; 16] = [
    "a-sentence",
    "no-host-or-path",
    "no-secrets",
    "no-trace-or-code",
    "short",
    "names-bad-value",
    "names-the-field",
    "names-nearest",
    "names-valid-values",
    "down-says-until",
    "partial-says-done",
    "retries-transport-reads",
    "writes-not-repeated",
    "the-rest-to-the-model",
    "restart-stopped-told",
    "alerts-reset-read-in-code",
];

/// The checks the starter fails: it hands on the raw text and retries nothing.
const STARTER_FAILS: [&str; 9] = [
    "no-host-or-path",
    "no-secrets",
    "no-trace-or-code",
    "short",
    "names-nearest",
    "names-valid-values",
    "partial-says-done",
    "retries-transport-reads",
    "alerts-reset-read-in-code",
];

/// Each property broken on its own: the file, the one check it fails and the mistake named.
const ONE_PROPERTY_BROKEN: [(&str, &str, &str); 16] = [
    ("crash_silent.py", "a-sentence", "nothing for this kind"),
    ("host_in_transport.py", "no-host-or-path", "the host named"),
    ("sql_kept.py", "no-secrets", "the SQL kept"),
    ("token_kept.py", "no-secrets", "the token kept"),
    ("code_kept.py", "no-trace-or-code", "the internal code kept"),
    ("long_lists.py", "short", "every valid value listed"),
    ("no_value.py", "names-bad-value", "only the fix named"),
    ("capital_field.py", "names-the-field", "the field capitalised"),
    ("no_field.py", "names-the-field", "the field left out"),
    ("no_nearest.py", "names-nearest", "no suggestion"),
    ("no_options.py", "names-valid-values", "no options given"),
    ("no_until.py", "down-says-until", "no time given"),
    ("fixed_time.py", "down-says-until", "a fixed time"),
    ("only_left.py", "partial-says-done", "only the pods left"),
    ("transport_anywhere.py", "writes-not-repeated", "every transport fault retried"),
    ("unavailable_retried.py", "the-rest-to-the-model", "a service that is down retried"),
];

/// Correct files, each written in words of its own.
const OTHER_WORDS: [&str; 10] = [
    "good_plain.py",
    "good_table.py",
    "good_match.py",
    "good_builder.py",
    "good_terse.py",
    "good_polite.py",
    "good_class.py",
    "good_engineer.py",
    "good_dict_templates.py",
    "good_ids.py",
];

/// The tickets where the learner's sentence reaches the model, and the kind a correct file's
/// sentence is of in each.
const BY_KIND: [(&str, &str); 4] = [
    ("payment-namespace", "names-fix"),
    ("restart-stopped", "names-pods"),
    ("metrics-down", "names-until"),
    ("alerts-stuck", "clean"),
];

fn counts(replay: &Value) -> &Value {
    &replay["verdict"]["counts"]
}

fn note(replay: &Value) -> &str {
    replay["verdict"]["note"].as_str().unwrap_or_default()
}

#[test]
fn the_checks_run_in_order_and_the_solution_passes_every_one() {
    let ws = Workshop::only(LESSON);
    let (run, report) = check_report(&ws, LESSON, SOLUTION);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let ids = check_ids(&report);
    assert_eq!(ids, ALL);
    assert_eq!(ids_with(&report, "pass"), ALL);
}

#[test]
fn the_starter_fails_for_the_raw_text_it_hands_on_and_the_read_it_never_retries() {
    let ws = Workshop::only(LESSON);
    let (run, report) = check_report(&ws, LESSON, STARTER);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(ids_with(&report, "fail"), STARTER_FAILS);
    let first = check(&report, "no-host-or-path");
    assert_eq!(first["guidance"]["mistake"], "the raw text passed on", "{first}");
    assert_eq!(
        check(&report, "retries-transport-reads")["guidance"]["mistake"],
        "nothing retried in code"
    );
}

#[test]
fn each_property_broken_on_its_own_fails_exactly_the_check_that_names_it() {
    let ws = Workshop::only(LESSON);
    for (file, failing, mistake) in ONE_PROPERTY_BROKEN {
        let (run, report) = check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, file));
        assert_eq!(run.code, 1, "{file}: {}", run.stdout);
        assert_eq!(ids_with(&report, "fail"), [failing], "{file}");
        assert_eq!(ids_with(&report, "error"), Vec::<String>::new(), "{file}");
        assert_eq!(check(&report, failing)["guidance"]["mistake"], mistake, "{file}");
    }
}

#[test]
fn ten_correct_files_in_other_words_pass_every_check() {
    let ws = Workshop::only(LESSON);
    let mut sentences = std::collections::BTreeSet::new();
    for file in OTHER_WORDS {
        let (run, report) = check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, file));
        assert_eq!(run.code, 0, "{file}: {}", run.stdout);
        assert_eq!(ids_with(&report, "pass"), ALL, "{file}");
        // Their words really differ: what each sends for Priya's namespace is its own.
        let replayed =
            replay_json(&ws, LESSON, "payment-namespace", &lesson_file(LESSON, FIXTURES, file));
        let sent = events_of_kind(&replayed, "attempt")[0]["wire"]["content"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            sentences.insert(sent.clone()),
            "{file} sends a sentence another file sends: {sent}"
        );
    }
}

#[test]
fn fixed_sentences_fail_every_check_whose_facts_vary() {
    let ws = Workshop::only(LESSON);
    let (run, report) =
        check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, "fixed_sentences.py"));
    assert_eq!(run.code, 1, "{}", run.stdout);
    let failed = ids_with(&report, "fail");
    for id in [
        "names-bad-value",
        "names-nearest",
        "names-valid-values",
        "down-says-until",
        "partial-says-done",
    ] {
        assert!(
            failed.iter().any(|f| f == id),
            "{id} passed a file of fixed sentences: {failed:?}"
        );
    }
    assert_eq!(check(&report, "names-bad-value")["guidance"]["mistake"], "a fixed sentence");
}

#[test]
fn the_named_mistakes_fail_the_checks_of_their_mistake() {
    let ws = Workshop::only(LESSON);
    let cases: [(&str, &[&str]); 3] = [
        (
            "no_fix.py",
            &[
                "names-bad-value",
                "names-the-field",
                "names-nearest",
                "names-valid-values",
                "down-says-until",
                "partial-says-done",
            ],
        ),
        ("retry_all.py", &["writes-not-repeated", "the-rest-to-the-model", "restart-stopped-told"]),
        ("no_retry.py", &["retries-transport-reads", "alerts-reset-read-in-code"]),
    ];
    for (file, failing) in cases {
        let (_, report) = check_report(&ws, LESSON, &format!("lessons/{LESSON}/mistakes/{file}"));
        assert_eq!(ids_with(&report, "fail"), failing, "{file}");
    }
}

#[test]
fn list_places_the_lesson_after_lesson_seven_as_number_eight() {
    let run = Workshop::new().run(&["list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let at = |id: &str| run.stdout.find(&format!(" {id} "));
    let here = at(LESSON).unwrap_or_else(|| panic!("{LESSON} missing:\n{}", run.stdout));
    for before in ["uncertain-state", "confirm-and-degrade"] {
        // Lesson 7 is built beside this one; once it is here, it comes first.
        if let Some(there) = at(before) {
            assert!(there < here, "{before} after {LESSON}:\n{}", run.stdout);
        }
    }
    assert!(at("uncertain-state").is_some(), "{}", run.stdout);
    let line = run.stdout.lines().find(|l| l.contains(LESSON)).unwrap();
    assert!(line.trim_start_matches(['>', ' ']).starts_with('8'), "{line}");
    assert!(line.contains("Messages the model can act on"), "{line}");
}

#[test]
fn doctor_replays_every_code_in_every_ticket_and_tells_starter_from_solution() {
    let run = Workshop::only(LESSON).run(&["doctor", LESSON]);
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    for ticket in
        ["payment-namespace", "restart-stopped", "metrics-down", "alerts-reset", "alerts-stuck"]
    {
        for code in ["starter", "fixed", "no-fix", "retry-all", "no-retry"] {
            let line = format!("✓ harness/{ticket} with {code}: ");
            assert!(run.stdout.contains(&line), "{line} missing from:\n{}", run.stdout);
        }
    }
    assert!(
        run.stdout.contains("✓ check starter fails as it should (7/16 checks pass)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("✓ check fixed passes as it should (16/16 checks pass)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("✓ quiz: 9 questions"), "{}", run.stdout);
}

#[test]
fn learner_written_messages_replay_to_the_end_labelled_as_the_same_kind() {
    let ws = Workshop::only(LESSON);
    // Five learners' files, in words of their own, none of them the reference's.
    for file in &OTHER_WORDS[..5] {
        let path = lesson_file(LESSON, FIXTURES, file);
        for (ticket, kind) in BY_KIND {
            let json = replay_json(&ws, LESSON, ticket, &path);
            assert_eq!(last_event_kind(&json), "reply", "{file} in {ticket}: {json:#}");
            let labels: Vec<&Value> = json["events"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|e| e["by_kind"].as_array())
                .flatten()
                .collect();
            assert!(!labels.is_empty(), "{file} in {ticket}: no turn is labelled by kind");
            for label in labels {
                assert_eq!(label["kind"], kind, "{file} in {ticket}: {label}");
                // The reply was recorded for another sentence, and the label shows both.
                assert_ne!(label["sent"], label["recorded"], "{file} in {ticket}");
                assert!(label["sent"].as_str().unwrap().contains("\"kind\""), "{label}");
            }
            assert!(
                note(&json).starts_with("Gain:") || note(&json).starts_with("The cap"),
                "{file} {ticket}: {}",
                note(&json)
            );
            // The card in words says so too.
            let text = ws.run(&[
                "watch",
                LESSON,
                "--ticket",
                ticket,
                "--code",
                &path,
                "--no-anim",
                "--color",
                "never",
            ]);
            assert!(
                flat(&text.stdout).contains("of the same kind"),
                "{file} {ticket}:\n{}",
                text.stdout
            );
        }
    }
}

#[test]
fn an_exact_match_carries_no_same_kind_label() {
    let ws = Workshop::only(LESSON);
    let json = replay_json(&ws, LESSON, "payment-namespace", "fixed");
    assert_eq!(last_event_kind(&json), "reply");
    assert!(json["events"].as_array().unwrap().iter().all(|e| e["by_kind"].is_null()), "{json:#}");
}

#[test]
fn a_message_that_leaks_puts_the_secret_in_the_models_context_and_the_note_says_so() {
    let ws = Workshop::only(LESSON);
    let starter = replay_json(&ws, LESSON, "restart-stopped", "starter");
    let sent =
        events_of_kind(&starter, "attempt")[0]["wire"]["content"].as_str().unwrap().to_string();
    assert!(sent.contains("tok_live_4f9a2c7e1b"), "{sent}");
    assert!(counts(&starter)["leaks"].as_u64().unwrap() >= 1);
    assert!(
        note(&starter).starts_with("Harm:") && note(&starter).contains("token"),
        "{}",
        note(&starter)
    );
    let fixed = replay_json(&ws, LESSON, "restart-stopped", "fixed");
    assert_eq!(counts(&fixed)["leaks"], 0);
    assert!(!events_of_kind(&fixed, "attempt")[0]["wire"].to_string().contains("tok_live_"));
    // A learner's own sentence that names the host replays too, by kind, with the harm.
    let leaky = replay_json(
        &ws,
        LESSON,
        "alerts-stuck",
        &lesson_file(LESSON, FIXTURES, "host_in_transport.py"),
    );
    assert_eq!(last_event_kind(&leaky), "reply");
    let label = &events_of_kind(&leaky, "reply")[0]["by_kind"][0];
    assert_eq!(label["kind"], "leaks-host", "{leaky:#}");
    assert!(events_of_kind(&leaky, "reply")[0]["text"]
        .as_str()
        .unwrap()
        .contains("metrics-gw.prod.tern.internal"));
    assert!(note(&leaky).starts_with("Harm:"), "{}", note(&leaky));
}

#[test]
fn a_message_that_names_the_fix_is_corrected_and_one_that_does_not_is_guessed_at() {
    let ws = Workshop::only(LESSON);
    let fixed = replay_json(&ws, LESSON, "payment-namespace", "fixed");
    let namespaces: Vec<&str> = events_of_kind(&fixed, "tool_call")
        .iter()
        .map(|c| c["input"]["namespace"].as_str().unwrap())
        .collect();
    assert_eq!(namespaces, ["payment", "payments"]);
    assert!(events_of_kind(&fixed, "reply")[0]["text"].as_str().unwrap().contains("1320 ms"));
    let vague = replay_json(&ws, LESSON, "payment-namespace", "no-fix");
    assert_eq!(events_of_kind(&vague, "tool_call").len(), 3, "the model guesses twice");
    assert!(events_of_kind(&vague, "reply")[0]["text"]
        .as_str()
        .unwrap()
        .contains("exact namespace"));
    assert!(note(&vague).starts_with("Harm:"), "{}", note(&vague));
    // A restart that stopped, told without its pods, is run again by the model.
    let again = replay_json(&ws, LESSON, "restart-stopped", "no-fix");
    assert_eq!(counts(&again)["pods_restarted"], 4);
    assert_eq!(counts(&replay_json(&ws, LESSON, "restart-stopped", "fixed"))["pods_restarted"], 2);
    // Retried in code, a write runs three times.
    assert_eq!(
        counts(&replay_json(&ws, LESSON, "restart-stopped", "retry-all"))["pods_restarted"],
        6
    );
}

#[test]
fn a_dropped_read_is_retried_in_code_and_the_cap_ends_a_stubborn_one() {
    let ws = Workshop::only(LESSON);
    let reset = replay_json(&ws, LESSON, "alerts-reset", "fixed");
    assert_eq!(counts(&reset)["failed"], false);
    assert_eq!(events_of_kind(&reset, "attempt").len(), 3);
    assert!(events_of_kind(&reset, "reply")[0]["text"].as_str().unwrap().contains("ALERT-2294"));
    let unretried = replay_json(&ws, LESSON, "alerts-reset", "no-retry");
    assert_eq!(counts(&unretried)["failed"], true);
    assert!(note(&unretried).starts_with("Harm:"), "{}", note(&unretried));
    let stuck = replay_json(&ws, LESSON, "alerts-stuck", "fixed");
    let attempts = events_of_kind(&stuck, "attempt");
    assert_eq!(attempts.len(), 6, "3 attempts for each of the model's two calls");
    assert_eq!(attempts[5]["capped"], 3, "{}", attempts[5]);
    assert_eq!(last_event_kind(&stuck), "reply");
    assert!(note(&stuck).starts_with("The cap ended it"), "{}", note(&stuck));
}

#[test]
fn the_quiz_has_nine_questions_with_an_explanation_for_every_option() {
    let ws = Workshop::only(LESSON);
    let run = ws.run(&["quiz", LESSON, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let quiz = run.json();
    let questions = quiz["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 9);
    for q in questions {
        for option in q["options"].as_array().unwrap() {
            assert!(!option["explanation"].as_str().unwrap_or_default().is_empty(), "{option}");
        }
    }
    let key: Vec<String> = questions
        .iter()
        .map(|q| q["answer"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect())
        .collect();
    let run = ws.run(&["quiz", LESSON, "--answers", &key.join(",")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.ends_with("score 9/9\n"), "{}", run.stdout);
}

#[test]
fn a_crash_with_its_telling_words_masked_fails_and_the_report_quotes_what_is_left() {
    // The traceback's word, paths, SQL, codes, hosts and tokens masked: what is left of the raw
    // text still reaches the model word for word, and the report shows a piece of it.
    let ws = Workshop::new();
    let (run, report) = check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, "raw_masked.py"));
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(ids_with(&report, "fail"), ["no-trace-or-code"], "{report}");
    let failed = check(&report, "no-trace-or-code");
    let message = failed["message"].as_str().unwrap();
    let piece = "it carries 'line 88, in open_alerts\\n    rows = db.execute'";
    assert!(message.contains(piece), "{message}");
    assert_eq!(failed["guidance"]["mistake"], "part of the raw text kept", "{failed}");
    let (_, solution) = check_report(&ws, LESSON, SOLUTION);
    assert_eq!(ids_with(&solution, "pass"), ALL);
}

/// A leak per kind of failure: the file, and the checks it fails (each names what leaked).
const LEAKS: [(&str, &[&str]); 9] = [
    ("crash_operational.py", &["no-host-or-path", "no-trace-or-code"]),
    ("crash_fixed_line.py", &["no-host-or-path", "no-trace-or-code"]),
    ("crash_code_only.py", &["no-trace-or-code"]),
    ("crash_code_host.py", &["no-host-or-path", "no-trace-or-code"]),
    ("crash_host.py", &["no-host-or-path"]),
    ("unavailable_host.py", &["no-host-or-path"]),
    ("transport_code.py", &["no-trace-or-code"]),
    ("partial_host.py", &["no-host-or-path"]),
    ("invalid_path.py", &["no-host-or-path"]),
];

#[test]
fn a_leak_in_any_kind_of_failure_fails_the_check_that_names_it_in_check_and_in_grade() {
    // Each kind is asked for hosts, paths and codes: a crash's host too, and a dropped read's
    // error name. Graded twice with other samples, the verdicts stay.
    let ws = Workshop::only(LESSON);
    for (file, failing) in LEAKS {
        let path = lesson_file(LESSON, FIXTURES, file);
        let (run, report) = check_report(&ws, LESSON, &path);
        assert_eq!(run.code, 1, "{file}: {}", run.stdout);
        assert_eq!(ids_with(&report, "fail"), failing, "{file}");
        let stem = file.trim_end_matches(".py");
        ws.write(&format!("class/{stem}/messages.py"), &std::fs::read_to_string(&path).unwrap());
    }
    ws.write(
        "class/solution/messages.py",
        &std::fs::read_to_string(repo().join(SOLUTION)).unwrap(),
    );
    for seed in ["1", "5eed5eed5eed5eed"] {
        let mut cmd = crate::grade::command(&ws, &["grade", LESSON, "class"]);
        cmd.env("WORKSHOP_SEED", seed);
        let graded = crate::grade::graded(cmd);
        assert_eq!(graded.code, 0, "{}", graded.stderr);
        let lines = crate::grade::lines(&graded.stdout);
        assert_eq!(lines.len(), LEAKS.len() + 1);
        for line in lines {
            let name = line["file"].as_str().unwrap().to_string();
            let failing = LEAKS
                .iter()
                .find(|(f, _)| name.contains(f.trim_end_matches(".py")))
                .map(|(_, ids)| *ids);
            assert_eq!(ids_with(&line, "fail"), failing.unwrap_or_default(), "seed {seed}: {name}");
        }
    }
}

/// The mistakes named when the pods' lists are swapped, and when the nearest value is said to be
/// one to avoid.
const SWAPPED: &str = "the lists swapped";
const AVOIDED: &str = "the nearest named as one to avoid";

#[test]
fn a_message_that_gives_a_fact_the_wrong_role_fails_its_check_and_no_reply_answers_it() {
    // Every pod named, but the lists swapped; the nearest namespace named, as one never to use.
    // Naming is not enough: each check asks in which role, and so does the kind a reply was
    // recorded for, so the replay stops at no_recording instead of answering the right message.
    let ws = Workshop::only(LESSON);
    let cases = [
        ("partial_swapped.py", "partial-says-done", SWAPPED, "restart-stopped", "checkout-3"),
        ("nearest_avoided.py", "names-nearest", AVOIDED, "payment-namespace", "payments"),
    ];
    // The problem lines lessons/README.md shows.
    let problems = [
        "expected 'checkout-1' named as done: it is named as left, in \
         'Still on the old version: checkout-1, checkout-2'",
        "must not name 'payments' as wrong: it does, in 'Never use namespace \"payments\" either'",
    ];
    for ((file, failing, mistake, ticket, named), problem) in cases.into_iter().zip(problems) {
        let path = lesson_file(LESSON, FIXTURES, file);
        let (run, report) = check_report(&ws, LESSON, &path);
        assert_eq!(run.code, 1, "{file}: {}", run.stdout);
        assert_eq!(ids_with(&report, "fail"), [failing], "{file}");
        let failed = check(&report, failing);
        assert_eq!(failed["guidance"]["mistake"], mistake, "{failed}");
        let message = failed["message"].as_str().unwrap();
        assert!(message.contains(problem), "{file}: {message}");
        let json = replay_json(&ws, LESSON, ticket, &path);
        assert_eq!(last_event_kind(&json), "no_recording", "{file} in {ticket}: {json:#}");
        let events = json["events"].as_array().unwrap();
        assert!(events.iter().all(|e| e["by_kind"].is_null()), "{file}: a reply by kind: {json:#}");
        let words = &events.last().unwrap()["words"][0];
        assert!(words.get("kind").is_none(), "{file}: {words:#}");
        assert!(words["sent"].as_str().unwrap().contains(named), "{words:#}");
    }
}
