//! `workshop doctor`: the maintainer's check that every combination replays, every recorded turn is
//! used and valid, and the checks tell the starter from the solution.

use crate::common::*;

/// The tests that break structured-errors' data give doctor that lesson alone: replaying every
/// lesson costs seconds, and `doctor_passes_on_the_lessons_data` examines them all.
const OLD_ORDER: &str = "recordings/structured-errors/harness/old-order.jsonl";

fn lines(ws: &Workshop, rel: &str) -> Vec<String> {
    ws.read(rel).lines().map(String::from).collect()
}

fn write_lines(ws: &Workshop, rel: &str, lines: &[String]) {
    ws.write(rel, &(lines.join("\n") + "\n"));
}

/// `doctor` with a deadline for each call far past what a busy machine needs: a call that took
/// its default two seconds there would be one more problem on the list.
fn doctor(ws: &Workshop, args: &[&str]) -> Run {
    let mut all = vec!["doctor", "--timeout", "30"];
    all.extend_from_slice(args);
    ws.run(&all)
}

/// The lines doctor marked as problems.
fn problems(run: &Run) -> Vec<&str> {
    run.stdout.lines().filter(|l| l.starts_with('✗')).collect()
}

#[test]
fn doctor_passes_on_the_lessons_data() {
    let run = doctor(&Workshop::new(), &[]);
    assert_eq!(run.code, 0, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    assert!(problems(&run).is_empty(), "{}", run.stdout);
    for runtime in ["harness", "sdk"] {
        for ticket in ["old-order", "wrong-id", "not-yours", "flaky-payment", "no-orders"] {
            for code in ["starter", "structured"] {
                let line = format!("✓ {runtime}/{ticket} with {code}: ");
                assert!(run.stdout.contains(&line), "{line} missing from:\n{}", run.stdout);
            }
        }
    }
    assert!(run.stdout.contains("✓ check starter fails as it should"), "{}", run.stdout);
    assert!(run.stdout.contains("✓ check structured passes as it should"), "{}", run.stdout);
    assert!(
        run.stdout.trim_end().ends_with("the checks tell starter from solution."),
        "{}",
        run.stdout
    );
}

#[test]
fn doctor_of_a_named_lesson_passes() {
    let run = doctor(&Workshop::new(), &["structured-errors"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

#[test]
fn doctor_fails_when_a_recorded_turn_is_missing() {
    let ws = Workshop::lesson5();
    // Line 3 answers the request structured code sends after its one attempt.
    let mut all = lines(&ws, OLD_ORDER);
    all.remove(2);
    write_lines(&ws, OLD_ORDER, &all);
    let run = doctor(&ws, &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(
        problems(&run),
        // The closest left is the no-category mistake's, line 4 before the removal: the same
        // refusal, one key short.
        ["✗ harness/old-order with structured: a request has no recording (closest: recordings/structured-errors/harness/old-order.jsonl:3)"],
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("doctor: 1 problem."), "{}", run.stdout);
    assert!(run.stdout.contains("workshop record"), "{}", run.stdout);
}

#[test]
fn doctor_fails_when_a_recorded_turn_is_never_used() {
    let ws = Workshop::lesson5();
    // A valid turn, recorded from another ticket's request: it loads, and nothing asks for it.
    let stray = lines(&ws, "recordings/structured-errors/harness/wrong-id.jsonl").remove(0);
    let mut all = lines(&ws, OLD_ORDER);
    all.push(stray);
    write_lines(&ws, OLD_ORDER, &all);
    let watch = ws.run(&["watch", "structured-errors", "--ticket", "old-order", "--timeout", "30"]);
    assert_eq!(watch.code, 0, "the file itself is valid");
    let run = doctor(&ws, &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let stray = all.len();
    assert_eq!(
        problems(&run),
        [format!("✗ {OLD_ORDER}:{stray}: this recorded turn is never replayed")],
        "{}",
        run.stdout
    );
}

#[test]
fn doctor_names_a_corrupt_recording_and_goes_on() {
    let ws = Workshop::lesson5();
    ws.copy_watch_fixture("recordings/not_json.jsonl", OLD_ORDER);
    let run = doctor(&ws, &[]);
    // Data that cannot be read: "could not run", after examining everything else.
    assert_eq!(run.code, 2, "{}", run.stdout);
    let found = problems(&run);
    assert_eq!(found.len(), 1, "{}", run.stdout);
    assert!(found[0].contains(&format!("{OLD_ORDER}:2:")), "{}", found[0]);
    // The other tickets were still examined.
    assert!(run.stdout.contains("✓ harness/wrong-id with structured"), "{}", run.stdout);
}

#[test]
fn doctor_fails_when_the_starter_already_passes() {
    let ws = Workshop::lesson5();
    ws.write(
        "starter/structured-errors/errors.py",
        &ws.read("lessons/structured-errors/solution/errors.py"),
    );
    let run = doctor(&ws, &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("✗ check starter fails as it should ("), "{}", run.stdout);
    // Its replays now follow the structured turns, so the tool counts differ from the script.
    assert!(
        run.stdout
            .contains("✗ harness/old-order with starter: the tool ran 1 time, the script says 3"),
        "{}",
        run.stdout
    );
}

#[test]
fn doctor_says_once_that_the_recordings_folder_is_missing() {
    let ws = Workshop::lesson5();
    std::fs::remove_dir_all(ws.path("recordings/structured-errors")).unwrap();
    let run = doctor(&ws, &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let found = problems(&run);
    assert_eq!(found.len(), 1, "{}", run.stdout);
    assert!(found[0].contains("recordings/structured-errors is missing"), "{}", found[0]);
    assert!(found[0].contains("workshop record"), "{}", found[0]);
}

#[test]
fn doctor_reports_a_lesson_without_its_text_or_its_quiz() {
    let ws = Workshop::only("structured-errors");
    std::fs::remove_file(ws.path("lessons/structured-errors/lesson.md")).unwrap();
    std::fs::remove_file(ws.path("lessons/structured-errors/quiz.toml")).unwrap();
    let run = doctor(&ws, &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let found = problems(&run);
    assert_eq!(found.len(), 2, "{}", run.stdout);
    assert!(found[0].contains("lessons/structured-errors/lesson.md is missing"), "{}", found[0]);
    assert!(found[0].contains("## heading"), "{}", found[0]);
    assert!(found[1].contains("lessons/structured-errors/quiz.toml is missing"), "{}", found[1]);
    assert!(
        found[1].contains("./workshop quiz structured-errors has no questions"),
        "{}",
        found[1]
    );
}

#[test]
fn doctor_reports_a_quiz_question_whose_section_is_not_a_heading() {
    let ws = Workshop::only("structured-errors");
    let quiz = ws.read("lessons/structured-errors/quiz.toml");
    let quiz =
        quiz.replacen("section = \"Four ways a refund can fail\"", "section = \"Five ways\"", 1);
    ws.write("lessons/structured-errors/quiz.toml", &quiz);
    let run = doctor(&ws, &[]);
    // A quiz that cannot be used is data that cannot be read: "could not run".
    assert_eq!(run.code, 2, "{}", run.stdout);
    let found = problems(&run);
    assert_eq!(found.len(), 1, "{}", run.stdout);
    assert!(found[0].contains("lessons/structured-errors/quiz.toml"), "{}", found[0]);
    assert!(
        found[0].contains("its section \"Five ways\" is not a ## heading of lesson.md"),
        "{}",
        found[0]
    );
}

#[test]
fn doctor_reports_a_check_without_hints_with_its_line() {
    let ws = Workshop::only("structured-errors");
    let manifest = ws.read("lessons/structured-errors/lesson.toml");
    let start = manifest.find("hints = [").unwrap();
    let end = start + manifest[start..].find("\n]").unwrap() + 2;
    let manifest = format!("{}hints = []{}", &manifest[..start], &manifest[end..]);
    ws.write("lessons/structured-errors/lesson.toml", &manifest);
    let run = doctor(&ws, &["structured-errors"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let found = problems(&run);
    assert_eq!(found.len(), 1, "{}", run.stdout);
    assert!(found[0].contains("lessons/structured-errors/lesson.toml"), "{}", found[0]);
    assert!(found[0].contains("has no hints"), "{}", found[0]);
    assert!(found[0].contains("line "), "{}", found[0]);
}
