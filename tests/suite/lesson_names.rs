//! A lesson is named by its id or by its number, as `list` shows it, wherever a command takes
//! one; a name no lesson has gets the nearest id and the lessons in course order.

use crate::common::*;

fn at(w: &Workshop, columns: usize, args: &[&str]) -> Run {
    let mut cmd = w.command(args);
    cmd.env("COLUMNS", columns.to_string());
    run(cmd)
}

#[test]
fn a_lesson_is_named_by_its_number_wherever_its_name_is_taken() {
    let w = Workshop::new();
    let text = w.run(&["lesson", "7", "--no-pager"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(text.stdout.contains("Foundations, lesson 7."), "{}", text.stdout);
    let start = w.run(&["start", "5"]);
    assert_eq!(start.code, 0, "{}", start.stderr);
    assert!(w.path("work/structured-errors/errors.py").is_file());
    let check = w.run(&["check", "5"]);
    assert_eq!(check.code, 1, "{}", check.stderr);
    let head = "structured-errors · work/structured-errors/errors.py";
    assert!(check.stdout.contains(head), "{}", check.stdout);
    let hint = w.run(&["hint", "5"]);
    assert_eq!(hint.code, 0, "{}", hint.stderr);
    let watch = w.run(&["watch", "5", "--ticket", "old-order", "--no-anim", "--code", "starter"]);
    assert_eq!(watch.code, 0, "{}", watch.stderr);
    assert!(watch.stdout.contains("structured-errors · ticket old-order"), "{}", watch.stdout);
    let quiz = w.run(&["quiz", "8", "--format", "json"]);
    assert_eq!(quiz.code, 0, "{}", quiz.stderr);
}

#[test]
fn a_number_no_lesson_has_lists_the_lessons_by_number() {
    let w = Workshop::new();
    let run = w.run(&["lesson", "3", "--no-pager"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.starts_with("error: there is no lesson 3 here."), "{}", run.stderr);
    assert!(run.stderr.contains("    7  confirm-and-degrade"), "{}", run.stderr);
}

#[test]
fn an_unknown_lesson_suggests_the_nearest_and_lists_in_course_order() {
    let w = Workshop::new();
    let run = w.run(&["check", "confirm-and-degrad"]);
    assert_eq!(run.code, 2);
    let words = flat(&run.stderr);
    let said = "there is no lesson 'confirm-and-degrad'. Did you mean confirm-and-degrade?";
    assert!(words.contains(said), "{words}");
    let course = ["tool-results", "structured-errors", "uncertain-state", "confirm-and-degrade"];
    let order: Vec<usize> = course
        .iter()
        .chain(&["messages-that-help"])
        .map(|id| run.stderr.find(&format!("  {id}")))
        .map(|at| at.unwrap_or_else(|| panic!("each lesson listed: {}", run.stderr)))
        .collect();
    assert!(order.windows(2).all(|p| p[0] < p[1]), "course order: {}", run.stderr);
    // Nothing near: no guess, the list all the same.
    let far = w.run(&["start", "quantum"]);
    assert_eq!(far.code, 2);
    assert!(!far.stderr.contains("Did you mean"), "{}", far.stderr);
    assert!(far.stderr.contains("  messages-that-help"), "{}", far.stderr);
    assert!(!w.path("work/quantum").exists());
}

#[test]
fn a_near_miss_reads_right_at_sixty_eighty_and_a_hundred_and_twenty_columns() {
    let w = Workshop::new();
    for columns in [60, 80, 120] {
        let run = at(&w, columns, &["check", "confirm-and-degrad"]);
        assert_eq!(run.code, 2);
        for line in run.stderr.lines() {
            assert!(line.chars().count() <= columns, "{columns}: {line}");
        }
        insta::assert_snapshot!(format!("check_near_miss_{columns}"), run.stderr.text());
    }
}

#[test]
fn lesson_by_number_reads_right_at_sixty_eighty_and_a_hundred_and_twenty_columns() {
    let w = Workshop::new();
    for columns in [60, 80, 120] {
        let run = at(&w, columns, &["lesson", "7"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        // Code blocks (indented by four) and a command in the text are kept whole, to be copied.
        let code = |l: &str| l.starts_with("    ") && !l.starts_with("    -");
        let prose = |l: &&str| !code(l) && !l.contains("`./workshop ");
        for line in run.stdout.lines().filter(prose) {
            assert!(line.chars().count() <= columns, "{columns}: {line}");
        }
        let head: String = run.stdout.lines().take(16).map(|l| format!("{l}\n")).collect();
        insta::assert_snapshot!(format!("lesson_7_head_{columns}"), head);
    }
}
