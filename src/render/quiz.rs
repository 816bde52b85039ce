//! The quiz as text for a person (a question, then why every option is right or wrong), or as
//! JSON for machines.

use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::lesson::quiz::{Picks, Quiz, QuizQuestion};
use crate::render::styles::{Glyphs, Styles};

/// Options are indented under the question; their explanations hang under the option text.
const OPTION_INDENT: &str = "  ";

fn wrap_into(out: &mut String, text: &str, width: usize, first: &str, rest: &str) {
    let options = textwrap::Options::new(width)
        .initial_indent(first)
        .subsequent_indent(rest)
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
        .break_words(false);
    for line in textwrap::wrap(text.trim(), options) {
        let _ = writeln!(out, "{line}");
    }
}

/// How many letters to pick, said in words.
pub(crate) fn how_many(question: &QuizQuestion) -> String {
    match question.answer.len() {
        1 => "pick one".to_string(),
        n => format!("pick {n}"),
    }
}

fn joined(letters: impl IntoIterator<Item = char>) -> String {
    letters.into_iter().map(String::from).collect::<Vec<_>>().join(", ")
}

/// A question as asked: its number, prompt and lettered options.
pub(crate) fn question(
    q: &QuizQuestion,
    number: usize,
    total: usize,
    styles: &Styles,
    width: usize,
) -> String {
    let mut out = String::new();
    let head = format!("Question {number} of {total}");
    let _ = writeln!(
        out,
        "{} {}",
        styles.paint(styles.strong, head),
        styles.paint(styles.dim, format!("({})", how_many(q)))
    );
    wrap_into(&mut out, &q.prompt, width, "", "");
    out.push('\n');
    for option in &q.options {
        let first = format!("{OPTION_INDENT}{}  ", option.letter);
        let rest = " ".repeat(first.len());
        wrap_into(&mut out, &option.text, width, &first, &rest);
    }
    out
}

/// The verdict on one answer: right or wrong, then every option with why it is right or wrong.
pub(crate) fn feedback(
    q: &QuizQuestion,
    number: usize,
    picks: &Picks,
    styles: &Styles,
    glyphs: Glyphs,
    width: usize,
) -> String {
    let mut out = String::new();
    let right = q.is_right(picks);
    let verdict = if right {
        format!("{} {number}. Right: {}", glyphs.pass, joined(q.answer_set()))
    } else {
        format!(
            "{} {number}. Not quite: you picked {}, the answer is {}",
            glyphs.fail,
            joined(picks.iter().copied()),
            joined(q.answer_set())
        )
    };
    let _ =
        writeln!(out, "{}", styles.paint(if right { styles.good } else { styles.bad }, verdict));
    wrap_into(&mut out, &q.prompt, width, "   ", "   ");
    out.push('\n');
    let answer = q.answer_set();
    for option in &q.options {
        let correct = answer.contains(&option.letter);
        let mark = if correct {
            styles.paint(styles.good, glyphs.pass)
        } else {
            styles.paint(styles.bad, glyphs.fail)
        };
        // The marks may be wider than one column ("ok" in ASCII); pad to the widest.
        let mark_width = glyphs.pass.chars().count().max(glyphs.fail.chars().count());
        let pad = mark_width - if correct { glyphs.pass } else { glyphs.fail }.chars().count();
        let first = format!("{OPTION_INDENT}{mark}{} {}  ", " ".repeat(pad), option.letter);
        let rest = " ".repeat(OPTION_INDENT.len() + mark_width + 4);
        let text = if picks.contains(&option.letter) {
            format!("{} (your pick)", option.text)
        } else {
            option.text.clone()
        };
        wrap_into(&mut out, &text, width, &first, &rest);
        // The why sits two columns further in, so it reads as a note on the option above it.
        let why_indent = format!("{rest}  ");
        let because = styles.paint(styles.dim, &option.explanation);
        wrap_into(&mut out, &because, width, &why_indent, &why_indent);
    }
    out
}

/// The sections of the lesson's text that teach what was answered wrong, before the score line:
/// `Read again (./workshop lesson <id>):` and one section a line, with its questions.
pub(crate) fn reread(sections: &[(String, Vec<usize>)], lesson: &str, width: usize) -> String {
    if sections.is_empty() {
        return String::new();
    }
    let mut out = format!("Read again, with ./workshop lesson {lesson}:\n");
    for (section, numbers) in sections {
        let which = match numbers.as_slice() {
            [one] => format!("question {one}"),
            more => {
                let listed: Vec<String> = more.iter().map(usize::to_string).collect();
                format!("questions {}", listed.join(", "))
            }
        };
        let line = format!("\"{section}\" ({which})");
        wrap_into(&mut out, &line, width, "  ", "    ");
    }
    out
}

/// The final line, in a fixed form scripts can read: `score N/M`.
pub(crate) fn score_line(score: usize, total: usize, styles: &Styles) -> String {
    let style = if score == total { styles.good } else { styles.strong };
    format!("{}\n", styles.paint(style, format!("score {score}/{total}")))
}

/// The questions without their answers, for reading off a terminal.
pub(crate) fn listing(quiz: &Quiz, styles: &Styles, width: usize) -> String {
    let total = quiz.questions.len();
    quiz.questions
        .iter()
        .enumerate()
        .map(|(i, q)| question(q, i + 1, total, styles, width))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `{"questions": [{"prompt", "options": [{"letter", "text", "explanation"}], "answer": ["C"]}]}`
pub(crate) fn questions_json(quiz: &Quiz) -> Value {
    let questions: Vec<Value> = quiz
        .questions
        .iter()
        .map(|q| {
            json!({
                "prompt": q.prompt,
                "options": q.options.iter().map(|o| json!({
                    "letter": o.letter.to_string(),
                    "text": o.text,
                    "explanation": o.explanation,
                })).collect::<Vec<_>>(),
                "answer": q.answer.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
                "section": q.section,
            })
        })
        .collect();
    json!({ "questions": questions })
}

/// The grading of `--answers` for machines: each answer, whether it is right, the sections to
/// read again, and the score.
pub(crate) fn results_json(quiz: &Quiz, picks: &[Picks], score: usize) -> Value {
    let results: Vec<Value> = quiz
        .questions
        .iter()
        .zip(picks)
        .enumerate()
        .map(|(i, (q, p))| {
            json!({
                "question": i + 1,
                "picked": p.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
                "answer": q.answer.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
                "right": q.is_right(p),
                "section": q.section,
            })
        })
        .collect();
    let reread: Vec<String> =
        quiz.to_reread(picks).into_iter().map(|(section, _)| section).collect();
    json!({ "results": results, "reread": reread, "score": score, "total": quiz.questions.len() })
}
