//! `workshop quiz`: answers given with --answers, the JSON listing, and bad answers.

use crate::common::*;

/// One token per question: some right, some wrong, in mixed case and spacing.
const MIXED: &str = "C,b,ad,A,B,C,a,b d,BC,AbE,D";

fn quiz_json(w: &Workshop) -> serde_json::Value {
    let run = w.run(&["quiz", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
}

/// The right answers, as `--answers` takes them.
fn answer_key(w: &Workshop) -> String {
    let quiz = quiz_json(w);
    let questions = quiz["questions"].as_array().unwrap();
    questions
        .iter()
        .map(|q| {
            q["answer"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn quiz_answers_print_each_result_and_the_score() {
    let w = Workshop::lesson5();
    let run = w.run(&["quiz", "structured-errors", "--answers", MIXED]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.ends_with("\nscore 8/11\n"), "{}", run.stdout);
    insta::assert_snapshot!("quiz_answers_mixed", run.stdout);
}

#[test]
fn a_quiz_result_names_the_sections_to_read_again() {
    let w = Workshop::lesson5();
    let run = w.run(&["quiz", "--answers", MIXED]);
    let wrong: Vec<usize> = quiz_results(&w)
        .iter()
        .filter(|r| r["right"] == false)
        .map(|r| r["question"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(wrong.len(), 3, "{wrong:?}");
    let tail = &run.stdout[run
        .stdout
        .find("Read again, with ./workshop lesson structured-errors:\n")
        .expect("a list of sections")..];
    let json = w.run(&["quiz", "--answers", MIXED, "--format", "json"]).json();
    let sections: Vec<&str> =
        json["reread"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    assert!(!sections.is_empty());
    for section in &sections {
        assert!(tail.contains(&format!("\"{section}\" (question")), "{section}:\n{tail}");
        let text = w.read("lessons/structured-errors/lesson.md");
        assert!(
            text.contains(&format!("\n## {section}\n")),
            "{section} is a heading of the lesson"
        );
    }
    // Every question answered wrong is listed under its section, and no other.
    let listed: Vec<usize> = tail
        .lines()
        .filter_map(|l| l.split_once("(question").map(|(_, n)| n))
        .flat_map(|n| {
            n.trim_start_matches('s')
                .trim_end_matches(')')
                .split(',')
                .map(|d| d.trim().parse::<usize>().unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    let mut listed = listed;
    listed.sort();
    assert_eq!(listed, wrong, "{tail}");
    // All right: nothing to read again.
    let key = answer_key(&w);
    let all = w.run(&["quiz", "--answers", &key]);
    assert!(!all.stdout.contains("Read again"), "{}", all.stdout);
}

#[test]
fn a_quiz_section_that_is_no_heading_of_the_text_is_corrupt_data() {
    let w = Workshop::lesson5();
    let path = "lessons/structured-errors/quiz.toml";
    let text = w.read(path).replacen(
        "section = \"Four ways a refund can fail\"",
        "section = \"Five ways\"",
        1,
    );
    w.write(path, &text);
    let run = w.run(&["quiz", "--format", "json"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("question 1: its section \"Five ways\" is not a ## heading of lesson.md"),
        "{}",
        run.stderr
    );
    let doctor = w.run(&["doctor"]);
    assert_ne!(doctor.code, 0);
    assert!(doctor.stdout.contains("Five ways"), "{}", doctor.stdout);
}

fn quiz_results(w: &Workshop) -> Vec<serde_json::Value> {
    let json = w.run(&["quiz", "--answers", MIXED, "--format", "json"]).json();
    json["results"].as_array().unwrap().clone()
}

#[test]
fn quiz_answers_save_the_score_to_progress() {
    let w = Workshop::lesson5();
    let key = answer_key(&w);
    let run = w.run(&["quiz", "--answers", &key]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.ends_with("score 11/11\n"), "{}", run.stdout);
    let progress: serde_json::Value = serde_json::from_str(&w.read("work/.progress.json")).unwrap();
    assert_eq!(progress["lessons"]["structured-errors"]["quiz"], serde_json::json!([11, 11]));
}

#[test]
fn quiz_answers_with_the_wrong_count_say_how_many() {
    let w = Workshop::lesson5();
    let run = w.run(&["quiz", "--answers", "B,C,AC"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("has 3 tokens but the quiz has 11 questions"), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "nothing is graded: {}", run.stdout);
}

#[test]
fn quiz_answers_with_a_letter_that_is_not_an_option_name_the_token() {
    let w = Workshop::lesson5();
    let run = w.run(&["quiz", "--answers", "B,C,AC,D,B,A,C,BX,D,AD,B"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("token 8 (\"BX\""), "{}", run.stderr);
    assert!(run.stderr.contains("'X' is not an option"), "{}", run.stderr);
}

#[test]
fn quiz_answers_with_an_empty_token_name_it() {
    let w = Workshop::lesson5();
    let run = w.run(&["quiz", "--answers", "B,C,AC,D,,A,C,BC,D,AD,B"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("token 5") && run.stderr.contains("empty"), "{}", run.stderr);
}

#[test]
fn quiz_json_lists_prompts_options_explanations_and_answers() {
    let w = Workshop::lesson5();
    let quiz = quiz_json(&w);
    let questions = quiz["questions"].as_array().unwrap();
    assert!(questions.len() >= 8);
    let mut multi = 0;
    for q in questions {
        assert!(!q["prompt"].as_str().unwrap().is_empty());
        let letters: Vec<&str> = q["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| {
                assert!(!o["text"].as_str().unwrap().is_empty());
                assert!(!o["explanation"].as_str().unwrap().is_empty());
                o["letter"].as_str().unwrap()
            })
            .collect();
        let answer = q["answer"].as_array().unwrap();
        assert!(!answer.is_empty());
        assert!(answer.iter().all(|a| letters.contains(&a.as_str().unwrap())));
        if answer.len() > 1 {
            multi += 1;
        }
    }
    assert!(multi >= 2, "some questions take more than one answer");
}

#[test]
fn quiz_answers_as_json_give_each_result_and_the_score() {
    let w = Workshop::lesson5();
    let run = w.run(&["quiz", "--answers", MIXED, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = run.json();
    assert_eq!(out["score"], 8);
    assert_eq!(out["total"], 11);
    assert_eq!(out["results"][7]["picked"], serde_json::json!(["B", "D"]));
    assert_eq!(out["results"][7]["right"], false);
}

#[test]
fn quiz_off_a_terminal_lists_the_questions_and_how_to_answer() {
    let w = Workshop::lesson5();
    let run = w.run(&["quiz"]);
    assert_eq!(run.code, 2);
    assert!(run.stdout.starts_with("Question 1 of 11 (pick one)\n"), "{}", run.stdout);
    assert!(run.stdout.contains("Question 3 of 11 (pick 2)"), "{}", run.stdout);
    assert!(run.stderr.contains("--answers \"A,A,AB,"), "{}", run.stderr);
    assert!(!w.path("work/.progress.json").exists(), "nothing was graded, so nothing is saved");
}

#[test]
fn quiz_with_an_answer_that_is_not_an_option_is_corrupt_data() {
    let w = Workshop::lesson5();
    let path = "lessons/structured-errors/quiz.toml";
    let text = w.read(path).replacen("answer = [\"B\"]", "answer = [\"F\"]", 1);
    w.write(path, &text);
    let run = w.run(&["quiz", "--format", "json"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("quiz.toml") && run.stderr.contains("'F' is not one of its options"),
        "{}",
        run.stderr
    );
}

#[test]
fn quiz_for_a_lesson_without_one_says_so() {
    let w = Workshop::lesson5();
    std::fs::remove_file(w.path("lessons/structured-errors/quiz.toml")).unwrap();
    let run = w.run(&["quiz", "--answers", "A"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("has no quiz"), "{}", run.stderr);
}

#[test]
fn no_quiz_shows_a_backslash_before_a_quote() {
    let w = Workshop::new();
    let lessons = std::fs::read_dir(w.path("lessons")).unwrap().flatten();
    for lesson in lessons.filter(|e| e.path().join("quiz.toml").is_file()) {
        let id = lesson.file_name().into_string().unwrap();
        let run = w.run(&["quiz", &id, "--format", "json"]);
        assert_eq!(run.code, 0, "{id}: {}", run.stderr);
        let text = run.json().to_string();
        // In the JSON text an escaped backslash before an escaped quote reads `\\\"`.
        assert!(!text.contains("\\\\\\\""), "{id}: a question shows \\\" as it is");
    }
    let eight = w.run(&["quiz", "messages-that-help", "--format", "json"]).json();
    let seven = eight["questions"][6]["prompt"].as_str().unwrap().to_string();
    assert!(seven.contains("\"Namespace 'paymnts' does not exist."), "{seven}");
}

#[test]
fn a_quiz_written_with_a_quote_escaped_twice_is_refused_with_its_question() {
    let w = Workshop::lesson5();
    let path = "lessons/structured-errors/quiz.toml";
    let quiz = w.read(path);
    let first = quiz.find("prompt = \"").unwrap() + "prompt = \"".len();
    // In TOML, `\\\"` is a backslash, then a quote: what the learner would read.
    w.write(path, &format!("{}It says \\\\\\\"no\\\\\\\". {}", &quiz[..first], &quiz[first..]));
    let run = w.run(&["quiz", "structured-errors", "--format", "json"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let said = "question 1: its prompt shows \\\", a quote escaped twice";
    assert!(run.stderr.contains(said), "{}", run.stderr);
}
