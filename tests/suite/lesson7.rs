//! Lesson 7, `confirm-and-degrade`, in the second world (`worlds/oncall/`): its starter fails the
//! checks that teach the lesson, its solution passes, each rule broken on its own fails the one
//! check that names it, other correct styles pass, the world's counts make the ticket checks, and
//! every ticket replays with the starter's harm and the fix's gain in both runtimes.

use crate::common::*;

use serde_json::Value;

const LESSON: &str = "confirm-and-degrade";
const STARTER: &str = "starter/confirm-and-degrade/oncall.py";
const SOLUTION: &str = "lessons/confirm-and-degrade/solution/oncall.py";
/// Learner files of this lesson that only the tests use.
const FIXTURES: &str = "tests/fixtures/confirm-and-degrade";
const TICKETS: [&str; 4] =
    ["scale-declined", "restart-declined", "metrics-down", "down-and-declined"];

/// Every check id, in the order `check` runs them.
const ALL: [&str; 16] = [
    "declined-is-error",
    "declined-own-type",
    "declined-not-retryable",
    "declined-names-change",
    "no-means-no",
    "down-waits",
    "retry-transport",
    "unavailable-kind",
    "unavailable-not-retryable",
    "unavailable-until",
    "unavailable-fallback",
    "unavailable-no-internals",
    "ticket-scale-declined",
    "ticket-restart-declined",
    "ticket-metrics-down",
    "ticket-down-and-declined",
];

/// The starter's three mistakes: a no treated as retryable, the outage's figures dropped, and the
/// gateway's raw text passed on. What it gets right (flags, the change named, a reset read
/// retried) it keeps.
const STARTER_PASSES: [&str; 4] =
    ["declined-is-error", "declined-names-change", "retry-transport", "unavailable-kind"];

/// Each rule broken on its own: the file, the one check it fails and the mistake the report names.
/// `@name` is one of the lesson's own mistakes.
const ONE_RULE_BROKEN: [(&str, &str, &str); 20] = [
    ("declined_not_flagged.py", "declined-is-error", "a no built as a success"),
    ("declined_flag_string.py", "declined-is-error", "the flag as a string"),
    ("declined_type_failed.py", "declined-own-type", "a no filed as a fault"),
    ("declined_type_declined.py", "declined-own-type", "the world's word kept"),
    ("@flag-says-retry.py", "declined-not-retryable", "a no called retryable"),
    ("declined_no_retryable_key.py", "declined-not-retryable", "no flag at all"),
    ("declined_bare_message.py", "declined-names-change", "a message with no change in it"),
    ("step_flag_before_no.py", "no-means-no", "the flag trusted over the no"),
    ("step_retries_outage.py", "down-waits", "an outage retried"),
    ("step_never_retries.py", "retry-transport", "nothing is ever retried"),
    ("step_retries_the_rest.py", "retry-transport", "everything retried"),
    ("unavailable_not_flagged.py", "unavailable-kind", "an outage passed off as data"),
    ("unavailable_retryable.py", "unavailable-not-retryable", "an outage called retryable"),
    ("unavailable_until_in_message_only.py", "unavailable-until", "a time in the message only"),
    ("unavailable_hard_coded_time.py", "unavailable-until", "a time written into the file"),
    ("@no-fallback.py", "unavailable-fallback", "the figures dropped"),
    ("unavailable_figures_without_age.py", "unavailable-fallback", "figures with no age"),
    ("unavailable_raw_message.py", "unavailable-no-internals", "the raw text passed on"),
    ("unavailable_raw_beside.py", "unavailable-no-internals", "the raw text kept beside your own"),
    ("unavailable_raw_clause.py", "unavailable-no-internals", "a piece of the raw text kept"),
];

/// Files that answer correctly in another style: the world's sentence passed on, `match`, helpers.
const OTHER_STYLES: [&str; 2] = ["good_passes_things_on.py", "good_helpers.py"];

#[test]
fn the_checks_run_in_their_declared_order() {
    let ws = Workshop::new();
    let (_, report) = check_report(&ws, LESSON, SOLUTION);
    let ids = check_ids(&report);
    assert_eq!(ids, ALL);
    assert_eq!(report["lesson"], LESSON);
}

#[test]
fn the_solution_passes_every_check() {
    let ws = Workshop::new();
    let (run, report) = check_report(&ws, LESSON, SOLUTION);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(report["status"], "pass");
    assert_eq!(ids_with(&report, "pass"), ALL);
}

#[test]
fn the_starter_fails_every_check_about_its_three_mistakes() {
    let ws = Workshop::new();
    let (run, report) = check_report(&ws, LESSON, STARTER);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(ids_with(&report, "pass"), STARTER_PASSES);
    let failing: Vec<&str> =
        ALL.iter().copied().filter(|id| !STARTER_PASSES.contains(id)).collect();
    assert_eq!(ids_with(&report, "fail"), failing);
    // The ticket checks read the world's counts: the prompt came back, and the yes was worn out of a no.
    let scale = check(&report, "ticket-scale-declined");
    assert_eq!(scale["got"]["prompts_shown"], 2, "{scale}");
    assert_eq!(scale["got"]["prompts_repeated"], 1, "{scale}");
    assert_eq!(scale["got"]["changes_against_no"], 1, "{scale}");
    assert_eq!(scale["guidance"]["mistake"], "a yes worn out of a no", "{scale}");
    let restart = check(&report, "ticket-restart-declined");
    assert_eq!(restart["got"]["prompts_shown"], 3, "{restart}");
    assert_eq!(restart["got"]["pods_restarted"], 3, "{restart}");
    let down = check(&report, "ticket-metrics-down");
    assert_eq!(down["got"]["fallbacks_offered"], 3, "{down}");
    assert_eq!(down["guidance"]["mistake"], "an outage retried", "{down}");
    let both = check(&report, "ticket-down-and-declined");
    assert_eq!(both["got"]["changes_against_no"], 1, "{both}");
    assert_eq!(both["got"]["changes_blind"], 1, "{both}");
    let text = ws.run(&["check", LESSON, "--file", STARTER, "--color", "never"]);
    assert!(text.stdout.contains("4/16 passed"), "{}", text.stdout);
    assert!(
        text.stdout.contains("✗ declined-own-type: a declined call has its own type"),
        "{}",
        text.stdout
    );
}

#[test]
fn each_rule_broken_on_its_own_fails_exactly_the_check_that_names_it() {
    let ws = Workshop::new();
    for (file, failing, mistake) in ONE_RULE_BROKEN {
        let (run, report) = check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, file));
        assert_eq!(run.code, 1, "{file}: {}", run.stdout);
        assert_eq!(ids_with(&report, "fail"), [failing], "{file}");
        assert_eq!(ids_with(&report, "error"), Vec::<String>::new(), "{file}");
        let failed = check(&report, failing);
        assert_eq!(failed["guidance"]["mistake"], mistake, "{file}: {failed}");
    }
}

#[test]
fn files_valid_in_another_style_pass_every_check() {
    let ws = Workshop::new();
    for file in OTHER_STYLES {
        let (run, report) = check_report(&ws, LESSON, &lesson_file(LESSON, FIXTURES, file));
        assert_eq!(run.code, 0, "{file}: {}", run.stdout);
        assert_eq!(ids_with(&report, "pass"), ALL, "{file}");
    }
}

#[test]
fn the_lessons_own_mistakes_fail_what_they_break_and_no_more() {
    let ws = Workshop::new();
    let (_, asks) = check_report(&ws, LESSON, "lessons/confirm-and-degrade/mistakes/asks-again.py");
    assert_eq!(
        ids_with(&asks, "fail"),
        [
            "declined-not-retryable",
            "no-means-no",
            "ticket-scale-declined",
            "ticket-restart-declined",
            "ticket-down-and-declined"
        ]
    );
}

/// One ticket replayed with the starter against the fix, in one runtime: each run's verdict.
fn compared(ws: &Workshop, ticket: &str, runtime: &str) -> (Value, Value) {
    let run = ws.run(&[
        "watch",
        LESSON,
        "--ticket",
        ticket,
        "--runtime",
        runtime,
        "--compare",
        "--code",
        "careful",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{ticket} {runtime}: {}", run.stderr);
    let both = run.json();
    assert!(both["split_at"].as_u64().is_some(), "{ticket} {runtime}: the runs never split");
    let verdict = |code: &str| {
        let replay =
            both["runs"].as_array().unwrap().iter().find(|r| r["code"] == code).unwrap().clone();
        let last = replay["events"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["kind"], "reply", "{ticket} {runtime} {code} ends in a reply: {last}");
        replay["verdict"].clone()
    };
    (verdict("starter"), verdict("careful"))
}

#[test]
fn every_ticket_shows_the_starters_harm_and_the_fixs_gain_in_both_runtimes() {
    let ws = Workshop::new();
    for runtime in ["harness", "sdk"] {
        for ticket in TICKETS {
            let (starter, careful) = compared(&ws, ticket, runtime);
            let (s, c) = (&starter["counts"], &careful["counts"]);
            let at = format!("{ticket} {runtime}");
            // The fix: one prompt at most, never a repeated one, no change against a no or blind.
            assert_eq!(c["prompts_repeated"], 0, "{at}: {careful}");
            assert_eq!(c["changes_made"], 0, "{at}: {careful}");
            assert!(c["fallbacks_offered"].as_u64().unwrap() <= 1, "{at}: {careful}");
            assert_eq!(c["leaks"], 0, "{at}: {careful}");
            // The starter: the harm the ticket is about, named in the verdict's own words.
            let harm = starter["text"].as_str().unwrap();
            match ticket {
                "scale-declined" | "restart-declined" => {
                    assert!(s["prompts_repeated"].as_u64().unwrap() >= 1, "{at}: {starter}");
                    assert!(harm.contains("after already saying no"), "{at}: {harm}");
                }
                "metrics-down" => {
                    assert_eq!(s["changes_blind"], 1, "{at}: {starter}");
                    assert!(s["leaks"].as_u64().unwrap() >= 1, "{at}: {starter}");
                    assert!(harm.contains("Production was changed blind"), "{at}: {harm}");
                }
                _ => {
                    assert_eq!(s["changes_against_no"], 1, "{at}: {starter}");
                    assert_eq!(s["changes_blind"], 1, "{at}: {starter}");
                }
            }
            assert!(
                careful["text"].as_str().unwrap().contains("Tried once") || c["prompts_shown"] == 1,
                "{at}"
            );
        }
    }
    // The harness retries the starter's no until Priya gives in; the SDK's model tries once more.
    let (harness, _) = compared(&ws, "restart-declined", "harness");
    assert_eq!(harness["counts"]["changes_against_no"], 1, "{harness}");
    let (sdk, _) = compared(&ws, "restart-declined", "sdk");
    assert_eq!(sdk["counts"]["prompts_shown"], 2, "{sdk}");
    assert_eq!(sdk["counts"]["changes_made"], 0, "{sdk}");
}

#[test]
fn the_approval_prompt_is_a_line_of_the_worlds_own_on_the_card() {
    let ws = Workshop::new();
    let run = ws.run(&[
        "watch",
        LESSON,
        "--ticket",
        "scale-declined",
        "--compare",
        "--code",
        "careful",
        "--no-anim",
        "--color",
        "never",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let words = flat(&run.stdout);
    assert!(
        words.contains(
            "Priya was asked to approve scaling checkout from 4 to 8 replicas: declined."
        ),
        "{words}"
    );
    assert!(
        words
            .contains("Priya was asked again (after a no) to approve scaling checkout from 4 to 8 replicas: approved."),
        "{words}"
    );
    let starter = run.stdout.find("── starter ──").unwrap();
    let careful = run.stdout.find("── careful ──").unwrap();
    let again = run.stdout.find("asked again (after a no)").unwrap();
    assert!(
        starter < again && again < careful,
        "the repeated prompt is the starter's:\n{}",
        run.stdout
    );
}

#[test]
fn a_learners_own_sentences_replay_by_kind() {
    // good_helpers.py writes every sentence in its own words: each ticket still replays to the end.
    let ws = Workshop::new();
    let file = lesson_file(LESSON, FIXTURES, "good_helpers.py");
    for runtime in ["harness", "sdk"] {
        for ticket in TICKETS {
            let run = ws.run(&[
                "watch",
                LESSON,
                "--ticket",
                ticket,
                "--runtime",
                runtime,
                "--code",
                &file,
                "--format",
                "json",
            ]);
            assert_eq!(run.code, 0, "{ticket} {runtime}: {}", run.stderr);
            let replay = run.json();
            let events = replay["events"].as_array().unwrap();
            assert_eq!(events.last().unwrap()["kind"], "reply", "{ticket} {runtime}: {replay}");
            assert!(
                replay.to_string().contains("by_kind"),
                "{ticket} {runtime}: not replayed by kind"
            );
        }
    }
}

#[test]
fn doctor_passes_for_the_lesson() {
    let run = Workshop::new().run(&["doctor", LESSON]);
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    for runtime in ["harness", "sdk"] {
        for ticket in TICKETS {
            for code in ["starter", "careful", "asks-again", "no-fallback", "flag-says-retry"] {
                let line = format!("✓ {runtime}/{ticket} with {code}: ");
                assert!(run.stdout.contains(&line), "{line} missing from:\n{}", run.stdout);
            }
        }
    }
    assert!(
        run.stdout.contains("✓ check starter fails as it should (4/16 checks pass)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("✓ check careful passes as it should (16/16 checks pass)"),
        "{}",
        run.stdout
    );
}

#[test]
fn list_shows_lesson_7_after_lesson_6() {
    let run = Workshop::new().run(&["list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().filter(|l| !l.trim().is_empty()).collect();
    let at = |id: &str| {
        lines.iter().position(|l| l.contains(id)).unwrap_or_else(|| panic!("{id}: {}", run.stdout))
    };
    let (six, seven) = (at("uncertain-state"), at(LESSON));
    assert!(six < seven, "{}", run.stdout);
    assert!(
        lines[seven].contains('7') && lines[seven].contains("A no is an answer"),
        "{}",
        run.stdout
    );
}

#[test]
fn start_copies_the_starter_and_check_grades_it() {
    let ws = Workshop::new();
    assert_eq!(ws.run(&["start", LESSON]).code, 0);
    assert_eq!(
        ws.read("work/confirm-and-degrade/oncall.py"),
        std::fs::read_to_string(repo().join(STARTER)).unwrap()
    );
    let run = ws.run(&["check", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.json()["lesson"], LESSON);
    assert!(
        run.stderr.contains("(lesson confirm-and-degrade: the one you started last."),
        "{}",
        run.stderr
    );
}

#[test]
fn every_quiz_question_explains_every_option() {
    let quiz: toml::Value = toml::from_str(
        &std::fs::read_to_string(repo().join("lessons/confirm-and-degrade/quiz.toml")).unwrap(),
    )
    .unwrap();
    let questions = quiz["questions"].as_array().unwrap();
    assert!(questions.len() >= 8, "{}", questions.len());
    for q in questions {
        for option in q["options"].as_array().unwrap() {
            assert!(option["explanation"].as_str().is_some_and(|e| e.len() > 20), "{option}");
        }
    }
}

#[test]
fn a_clause_of_the_gateways_text_kept_word_for_word_fails_and_is_quoted() {
    // No host, ticket or status code, only "serving stale cache snapshot 13:52Z": still the
    // gateway's words. The time is a fact the message may name, so the piece stops before it.
    let ws = Workshop::new();
    let file = lesson_file(LESSON, FIXTURES, "unavailable_raw_clause.py");
    let (run, report) = check_report(&ws, LESSON, &file);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(ids_with(&report, "fail"), ["unavailable-no-internals"], "{report}");
    let failed = check(&report, "unavailable-no-internals");
    let message = failed["message"].as_str().unwrap();
    // The words first, then the value, cut.
    let piece = "it carries 'serving stale cache snapshot', word for word; unavailable returned";
    assert!(message.starts_with("must not quote") && message.contains(piece), "{message}");
    let (_, solution) = check_report(&ws, LESSON, SOLUTION);
    assert_eq!(solution["status"], "pass", "{solution}");
}
