//! Lesson 4, `tool-results`, read as data by the same runner as lessons 5 and 6: its starter fails
//! the checks of the rules it breaks, its solution passes, each rule broken on its own fails the
//! one check that names it, files valid in another style pass every check, and the replays show
//! the API's 400 where a message breaks a rule.

use crate::common::*;

use serde_json::Value;

const LESSON: &str = "tool-results";
const STARTER: &str = "starter/tool-results/results.py";
const SOLUTION: &str = "lessons/tool-results/solution/results.py";
/// Learner files of this lesson, kept at this path in the repository and in every test root (the
/// lesson's script names some of them as codes to record).
const FIXTURES: &str = "tests/fixtures/tool-results";

/// Every check id, in the order `check` runs them.
const ALL: [&str; 12] = [
    "one-message",
    "one-result-per-call",
    "ids-match",
    "results-before-text",
    "note-last",
    "flag-on-failures",
    "no-flag-on-success",
    "success-kept",
    "invalid-call-explained",
    "failed-run-explained",
    "crash-kept-out",
    "crash-explained",
];

/// The checks the starter fails: the four rules it breaks, nothing else.
const STARTER_FAILS: [&str; 4] = ["one-result-per-call", "results-before-text", "flag-on-failures", "crash-kept-out"];

/// Each rule broken on its own: the file, the one check it fails and the mistake the report names.
const ONE_RULE_BROKEN: [(&str, &str, &str); 17] = [
    ("role_tool.py", "one-message", "a role of its own for results"),
    ("only_first_call.py", "one-result-per-call", "only the first call answered"),
    ("one_result_per_tool.py", "one-result-per-call", "one result per tool name"),
    ("id_from_name.py", "ids-match", "the tool's name as the id"),
    ("first_id_for_all.py", "ids-match", "the first id on every result"),
    ("note_first.py", "results-before-text", "the note first"),
    ("note_dropped.py", "note-last", "the note dropped"),
    ("empty_text_without_note.py", "note-last", "a text block with no note"),
    ("no_is_error.py", "flag-on-failures", "no flag on a failure"),
    ("is_error_camel_case.py", "flag-on-failures", "MCP's spelling"),
    ("whole_turn_flagged.py", "no-flag-on-success", "one failure flags the whole turn"),
    ("success_parsed.py", "success-kept", "the result parsed into a dictionary"),
    ("invalid_as_crash.py", "invalid-call-explained", "a wrong call treated as a crash"),
    ("failed_as_crash.py", "failed-run-explained", "a failed run treated as a crash"),
    ("crash_forwarded.py", "crash-kept-out", "the crash forwarded"),
    ("crash_last_line.py", "crash-kept-out", "the traceback's last line kept"),
    ("crash_silent.py", "crash-explained", "silence instead of the trace"),
];

/// Files that answer correctly in another style: text blocks, `is_error: false`, other key orders.
const OTHER_STYLES: [&str; 2] = ["good_blocks.py", "good_match.py"];

/// A root with every lesson, and this lesson's fixture files where the script expects them.
fn workshop() -> Workshop {
    let ws = Workshop::new();
    for entry in std::fs::read_dir(repo().join(FIXTURES)).unwrap().flatten() {
        let name = entry.file_name().into_string().unwrap();
        ws.write(&format!("{FIXTURES}/{name}"), &std::fs::read_to_string(entry.path()).unwrap());
    }
    ws
}

fn fixture_file(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

fn grade(ws: &Workshop, file: &str) -> (Run, Value) {
    let run = ws.run(&["check", LESSON, "--file", file, "--format", "json"]);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let report = run.json();
    (run, report)
}

fn ids_with(report: &Value, status: &str) -> Vec<String> {
    report["checks"]
        .as_array()
        .expect("checks is a list")
        .iter()
        .filter(|c| c["status"] == status)
        .map(|c| c["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn check<'r>(report: &'r Value, id: &str) -> &'r Value {
    report["checks"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap_or_else(|| panic!("no check {id}"))
}

#[test]
fn the_checks_run_in_their_declared_order() {
    let ws = workshop();
    let (_, report) = grade(&ws, SOLUTION);
    let ids: Vec<&str> = report["checks"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ALL);
    assert_eq!(report["lesson"], LESSON);
}

#[test]
fn the_solution_passes_every_check() {
    let ws = workshop();
    let (run, report) = grade(&ws, SOLUTION);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(report["status"], "pass");
    assert_eq!(ids_with(&report, "pass"), ALL);
}

#[test]
fn the_starter_fails_the_checks_of_the_rules_it_breaks_and_names_them() {
    let ws = workshop();
    let (run, report) = grade(&ws, STARTER);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(report["status"], "fail");
    assert_eq!(ids_with(&report, "fail"), STARTER_FAILS);
    assert_eq!(report["passed"], ALL.len() - STARTER_FAILS.len());
    let first = check(&report, "one-result-per-call");
    assert_eq!(first["guidance"]["mistake"], "only the first call answered", "{first}");
    assert_eq!(first["message"], "content.1.type: expected 'tool_result', got missing", "{first}");
    let crash = check(&report, "crash-kept-out");
    assert_eq!(crash["guidance"]["mistake"], "the crash forwarded", "{crash}");
    let text = ws.run(&["check", LESSON, "--file", STARTER, "--color", "never"]);
    assert_eq!(text.code, 1);
    for id in STARTER_FAILS {
        assert!(text.stdout.contains(&format!("✗ {id}")), "{id} not marked failed:\n{}", text.stdout);
    }
    assert!(text.stdout.contains("8/12 passed"), "{}", text.stdout);
}

#[test]
fn each_rule_broken_on_its_own_fails_exactly_the_check_that_names_it() {
    let ws = workshop();
    for (file, failing, mistake) in ONE_RULE_BROKEN {
        let (run, report) = grade(&ws, &fixture_file(file));
        assert_eq!(run.code, 1, "{file}: {}", run.stdout);
        assert_eq!(ids_with(&report, "fail"), [failing], "{file}");
        assert_eq!(ids_with(&report, "error"), Vec::<String>::new(), "{file}");
        let failed = check(&report, failing);
        assert_eq!(failed["guidance"]["mistake"], mistake, "{file}: {failed}");
    }
}

#[test]
fn files_valid_in_another_style_pass_every_check() {
    let ws = workshop();
    for file in OTHER_STYLES {
        let (run, report) = grade(&ws, &fixture_file(file));
        assert_eq!(run.code, 0, "{file}: {}", run.stdout);
        assert_eq!(ids_with(&report, "pass"), ALL, "{file}");
    }
}

#[test]
fn a_hard_coded_crash_filter_does_not_pass_the_crash_check() {
    // A file that hides only crashes that look like the lesson's own still forwards another one.
    let ws = workshop();
    let solution = std::fs::read_to_string(repo().join(SOLUTION)).unwrap();
    let filtered = solution.replace(
        "        block[\"content\"] = CRASHED",
        "        block[\"content\"] = CRASHED if \"postgresql://\" in outcome[\"message\"] else outcome[\"message\"]",
    );
    assert_ne!(filtered, solution, "the solution's crash line moved");
    ws.write("learners/filtered.py", &filtered);
    let (_, report) = grade(&ws, "learners/filtered.py");
    assert_eq!(ids_with(&report, "fail"), ["crash-kept-out"]);
}

#[test]
fn start_copies_the_lesson_file_and_check_grades_it() {
    let ws = workshop();
    assert_eq!(ws.run(&["start", LESSON]).code, 0);
    assert_eq!(ws.read("work/tool-results/results.py"), std::fs::read_to_string(repo().join(STARTER)).unwrap());
    let run = ws.run(&["check", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.json()["lesson"], LESSON);
}

#[test]
fn list_shows_the_lessons_in_course_order() {
    let run = Workshop::new().run(&["list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    for (line, (number, id)) in lines.iter().zip([(4, LESSON), (5, "structured-errors"), (6, "uncertain-state")]) {
        assert!(line.contains(&number.to_string()) && line.contains(id), "{number} {id} in:\n{}", run.stdout);
    }
    assert!(lines[0].contains("Every call answered, results first"), "{}", run.stdout);
}
