//! `workshop list`: the lessons and the learner's progress, kept in a state file that is written
//! atomically and read forgivingly.

use crate::common::*;

const PROGRESS: &str = "work/.progress.json";

fn line_of(w: &Workshop) -> String {
    let run = w.run(&["list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
        .lines()
        .find(|l| l.contains("structured-errors"))
        .unwrap_or_else(|| panic!("{}", run.stdout))
        .to_string()
}

#[test]
fn list_shows_not_started_before_start() {
    let w = Workshop::new();
    let line = line_of(&w);
    assert!(line.ends_with("not started"), "{line}");
    assert!(line.contains("Structured tool errors"), "{line}");
    assert!(!w.path(PROGRESS).exists(), "list writes nothing");
}

#[test]
fn list_shows_started_after_start() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    assert!(line_of(&w).ends_with("started, not checked yet"), "{}", line_of(&w));
}

#[test]
fn list_shows_checks_passed_after_a_failing_check() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    assert_eq!(w.run(&["check", "structured-errors"]).code, 1);
    assert!(line_of(&w).ends_with("2 of 14 checks"), "{}", line_of(&w));
}

#[test]
fn list_shows_done_after_a_green_check() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    w.work_file_from("good_dataclass.py");
    assert_eq!(w.run(&["check", "structured-errors"]).code, 0);
    assert!(line_of(&w).ends_with("done"), "{}", line_of(&w));
}

#[test]
fn list_follows_the_latest_check_not_the_best() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    w.work_file_from("good_dataclass.py");
    assert_eq!(w.run(&["check", "structured-errors"]).code, 0);
    w.work_file_from("bug_no_is_error.py");
    assert_eq!(w.run(&["check", "structured-errors"]).code, 1);
    assert!(line_of(&w).ends_with("13 of 14 checks"), "{}", line_of(&w));
}

#[test]
fn check_of_another_file_leaves_progress_alone() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let file = w.learner("good_match.py");
    assert_eq!(w.run(&["check", "structured-errors", "--file", &file]).code, 0);
    assert!(line_of(&w).ends_with("started, not checked yet"), "{}", line_of(&w));
}

#[test]
fn check_that_cannot_load_the_file_leaves_progress_alone() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    assert_eq!(w.run(&["check", "structured-errors"]).code, 1);
    w.work_file_from("bad_syntax.py");
    assert_eq!(w.run(&["check", "structured-errors"]).code, 2);
    assert!(line_of(&w).ends_with("2 of 14 checks"), "{}", line_of(&w));
}

#[test]
fn state_file_is_written_whole_with_no_temp_file_left() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    assert_eq!(w.run(&["check", "structured-errors"]).code, 1);
    let state: serde_json::Value =
        serde_json::from_str(&w.read(PROGRESS)).expect("the state file is JSON");
    let entry = &state["lessons"]["structured-errors"];
    assert_eq!(entry["started"], true);
    assert_eq!(entry["passed"], 2);
    assert_eq!(entry["total"], 14);
    let leftovers: Vec<String> = std::fs::read_dir(w.path("work"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn state_file_survives_parallel_checks() {
    // Each writer renames a complete file into place, so a reader never sees half of one.
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let children: Vec<_> = (0..4).map(|_| w.command(&["check"]).spawn_piped()).collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1));
    }
    let state: serde_json::Value = serde_json::from_str(&w.read(PROGRESS)).expect("still JSON");
    assert_eq!(state["lessons"]["structured-errors"]["passed"], 2);
}

trait SpawnPiped {
    fn spawn_piped(self) -> std::process::Child;
}

impl SpawnPiped for std::process::Command {
    fn spawn_piped(mut self) -> std::process::Child {
        self.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    }
}

#[test]
fn corrupt_state_file_is_forgiven_and_replaced() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    w.write(PROGRESS, "{ this is not json");
    // Read as no progress: the work file still shows the lesson as started.
    assert!(line_of(&w).ends_with("started, not checked yet"), "{}", line_of(&w));
    assert_eq!(w.run(&["check", "structured-errors"]).code, 1);
    let state: serde_json::Value =
        serde_json::from_str(&w.read(PROGRESS)).expect("rewritten as JSON");
    assert_eq!(state["lessons"]["structured-errors"]["passed"], 2);
}

#[test]
fn state_file_of_the_wrong_shape_is_forgiven() {
    let w = Workshop::new();
    w.write(PROGRESS, "[1, 2, 3]");
    assert!(line_of(&w).ends_with("not started"), "{}", line_of(&w));
}

#[test]
fn check_of_the_work_file_named_with_file_records_progress() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let root = w.root().to_str().unwrap().to_string();
    let mut cmd = w.command(&[
        "--root",
        &root,
        "check",
        "structured-errors",
        "--file",
        "../work/structured-errors/errors.py",
    ]);
    cmd.current_dir(w.path("lessons"));
    assert_eq!(run(cmd).code, 1);
    assert!(line_of(&w).ends_with("2 of 14 checks"), "{}", line_of(&w));
}

#[test]
fn list_shows_the_last_quiz_score() {
    let w = Workshop::new();
    let quiz = w.run(&["quiz", "structured-errors", "--format", "json"]).json();
    let questions = quiz["questions"].as_array().unwrap();
    let key: Vec<String> = questions
        .iter()
        .map(|q| {
            q["answer"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect::<String>()
        })
        .collect();
    assert_eq!(w.run(&["quiz", "structured-errors", "--answers", &key.join(",")]).code, 0);
    let n = questions.len();
    assert!(line_of(&w).ends_with(&format!("quiz {n}/{n}")), "{}", line_of(&w));
}

#[test]
fn list_keeps_done_after_a_reset_and_says_so() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    w.work_file_from("good_dataclass.py");
    assert_eq!(w.run(&["check", "structured-errors"]).code, 0);
    assert_eq!(w.run(&["reset", "structured-errors", "--yes"]).code, 0);
    assert!(line_of(&w).ends_with("done before; reset"), "{}", line_of(&w));
    // Graded again as the starter: still done before, and solution still opens.
    assert_eq!(w.run(&["check", "structured-errors"]).code, 1);
    assert!(line_of(&w).ends_with("done before; reset"), "{}", line_of(&w));
    assert_eq!(w.run(&["solution", "structured-errors"]).code, 0);
    // Edited since, and failing: done before, with the grade of now.
    w.work_file_from("bug_no_is_error.py");
    assert_eq!(w.run(&["check", "structured-errors"]).code, 1);
    assert!(line_of(&w).ends_with("done before; now 13 of 14 checks"), "{}", line_of(&w));
}

#[test]
fn list_marks_the_lesson_to_do_next_and_names_its_command() {
    let w = Workshop::only("structured-errors");
    let marked = |w: &Workshop| {
        let run = w.run(&["list"]);
        let line = run.stdout.lines().find(|l| l.starts_with('>')).map(str::to_string);
        (line, run.stdout.lines().last().unwrap_or_default().to_string())
    };
    let (line, last) = marked(&w);
    assert!(line.is_some_and(|l| l.contains("structured-errors")));
    assert_eq!(last, "> marks the lesson to do next: ./workshop start structured-errors");
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    assert_eq!(marked(&w).1, "> marks the lesson to do next: ./workshop check structured-errors");
    w.work_file_from("good_dataclass.py");
    assert_eq!(w.run(&["check", "structured-errors"]).code, 0);
    // Nothing left: no mark, no line.
    let (line, last) = marked(&w);
    assert!(line.is_none() && !last.contains("marks"), "{last}");

    // With the whole course, the first lesson never green is marked, in course order.
    let all = Workshop::foundations();
    assert_eq!(all.run(&["start", "structured-errors"]).code, 0);
    all.work_file_from("good_dataclass.py");
    assert_eq!(all.run(&["check", "structured-errors"]).code, 0);
    let run = all.run(&["list"]);
    let line =
        run.stdout.lines().find(|l| l.starts_with('>')).unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(line.contains("tool-results"), "{}", run.stdout);
}

#[test]
fn a_title_too_long_for_the_width_wraps_in_its_column_and_no_row_is_wider() {
    let w = Workshop::new();
    let title = "Structured tool errors, with every category named and every retry decided by \
                 its flag";
    w.write(
        "lessons/structured-errors/lesson.toml",
        &w.read("lessons/structured-errors/lesson.toml").replacen(
            "title = \"Structured tool errors\"",
            &format!("title = \"{title}\""),
            1,
        ),
    );
    for columns in ["60", "80", "120"] {
        let mut cmd = w.command(&["list"]);
        cmd.env("COLUMNS", columns);
        let run = run(cmd);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let width: usize = columns.parse().unwrap();
        for row in run.stdout.lines() {
            assert!(row.chars().count() <= width, "{columns} columns: {row:?}");
        }
        assert!(whole(&run.stdout, title) && !run.stdout.contains('…'), "{}", run.stdout);
        let long = run.stdout.lines().find(|r| r.contains("structured-errors")).unwrap();
        assert!(long.contains("Structured tool") && long.ends_with("not started"), "{long}");
    }
}

/// Every word of `title` is in `text`, in order, each line holding a run of them: the title was
/// wrapped in its column (beside other columns), not cut.
fn whole(text: &str, title: &str) -> bool {
    let words: Vec<&str> = title.split(' ').collect();
    let mut at = 0;
    for line in text.lines() {
        let cells: Vec<&str> = line.split_whitespace().collect();
        let Some(from) = cells.iter().position(|c| Some(c) == words.get(at)) else { continue };
        for cell in &cells[from..] {
            if words.get(at) != Some(cell) {
                break;
            }
            at += 1;
        }
    }
    at == words.len()
}

fn at(w: &Workshop, columns: usize, args: &[&str]) -> Run {
    let mut cmd = w.command(args);
    cmd.env("COLUMNS", columns.to_string());
    run(cmd)
}

/// The whole course, lesson 7 green once and then reset: its status is the widest there is.
fn seven_done_and_reset() -> Workshop {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "confirm-and-degrade"]).code, 0);
    let solution = w.read("lessons/confirm-and-degrade/solution/oncall.py");
    w.write("work/confirm-and-degrade/oncall.py", &solution);
    assert_eq!(w.run(&["check", "confirm-and-degrade"]).code, 0);
    assert_eq!(w.run(&["reset", "confirm-and-degrade", "--yes"]).code, 0);
    w
}

#[test]
fn a_title_wraps_before_it_is_cut_at_sixty_eighty_and_a_hundred_and_twenty_columns() {
    let w = seven_done_and_reset();
    let title = "A no is an answer, and a service that is down still helps";
    for columns in [60, 80, 120] {
        for (name, args) in [("list", vec!["list"]), ("welcome", vec![])] {
            let run = at(&w, columns, &args);
            assert_eq!(run.code, 0, "{}", run.stderr);
            assert!(!run.stdout.contains('…'), "{name} at {columns} cut a title: {}", run.stdout);
            assert!(whole(&run.stdout, title), "{name} at {columns}:\n{}", run.stdout);
            assert!(run.stdout.contains("done before; reset"), "{}", run.stdout);
            for line in run.stdout.lines() {
                assert!(line.chars().count() <= columns, "{name} at {columns}: {line}");
            }
            insta::assert_snapshot!(format!("{name}_{columns}"), run.stdout);
        }
    }
}

/// The course with structured-errors broken: a later check takes the first check's id.
fn one_lesson_broken() -> Workshop {
    let w = Workshop::foundations();
    let path = "lessons/structured-errors/lesson.toml";
    let text = w.read(path);
    w.write(path, &text.replace("id = \"retry-transient\"", "id = \"fail-flags-failure\""));
    w
}

#[test]
fn list_shows_a_broken_lesson_as_broken_and_lists_the_rest() {
    let w = one_lesson_broken();
    let run = w.run(&["list"]);
    // A list that shows every lesson, broken or not, did what was asked: doctor fails for it.
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    insta::assert_snapshot!("list_one_lesson_broken", run.stdout);
    let said = flat(&run.stdout);
    assert!(said.contains("> 4 tool-results"), "{said}");
    assert!(said.contains("6 uncertain-state A timeout is not a no not started"), "{said}");
    assert!(
        said.contains(
            "! structured-errors broken: lessons/structured-errors/lesson.toml: line 506: check \
             fail-flags-failure is declared twice ./workshop doctor structured-errors says what is wrong"
        ),
        "{said}"
    );
    for columns in [60, 120] {
        let run = at(&w, columns, &["list"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        for line in run.stdout.lines() {
            assert!(line.chars().count() <= columns, "list at {columns}: {line}");
        }
        assert!(
            flat(&run.stdout).contains("./workshop doctor structured-errors says what is wrong")
        );
    }
    let run = w.run(&["doctor", "structured-errors"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stdout.contains("line 506: check fail-flags-failure is declared twice"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_message_that_lists_the_lessons_names_a_broken_one_too() {
    let w = one_lesson_broken();
    // Nothing started and no lesson named: check asks for one, from the list.
    let run = w.run(&["check"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run
        .stderr
        .contains("structured-errors  (broken: ./workshop doctor structured-errors)"));
    assert!(run.stderr.contains("tool-results"), "{}", run.stderr);
}
