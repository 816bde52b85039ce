//! A lesson's quiz as data: `lessons/<id>/quiz.toml`, loaded and validated, and the grading of
//! answers given as letters.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Corrupt, Error, FlagError, Flaw, LessonError};
use crate::lesson::Lesson;

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Quiz {
    pub questions: Vec<QuizQuestion>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct QuizQuestion {
    pub prompt: String,
    pub options: Vec<QuizOption>,
    /// The letters of every right option: one for a single-answer question, more for a multi-answer one.
    pub answer: Vec<char>,
    /// The heading of the lesson's text (`## ...` in lesson.md) that teaches what this asks: a
    /// wrong answer sends the learner back there.
    pub section: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct QuizOption {
    pub letter: char,
    pub text: String,
    /// Why this option is right or wrong: shown after the learner answers.
    pub explanation: String,
}

/// The letters a learner picked for one question, sorted and without repeats.
pub(crate) type Picks = BTreeSet<char>;

/// What is wrong with a quiz file, in words that follow its path. Questions are numbered from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Invalid {
    #[error("has no questions")]
    NoQuestions,
    #[error("question {0} has an empty prompt")]
    EmptyPrompt(usize),
    #[error("question {0} has an empty section: name the heading of lesson.md it asks about")]
    EmptySection(usize),
    #[error("question {0} needs at least two options")]
    TooFewOptions(usize),
    #[error(
        "question {question}: option {position} is lettered '{letter}', but options go A, B, C... in order, so it should be '{expected}'"
    )]
    OutOfOrder { question: usize, position: usize, letter: char, expected: char },
    #[error("question {question}: option {letter} needs both a text and an explanation")]
    Unexplained { question: usize, letter: char },
    #[error("question {0} has no answer")]
    NoAnswer(usize),
    #[error("question {question}: the answer '{letter}' is not one of its options ({letters})")]
    NotAnOption { question: usize, letter: char, letters: String },
    #[error("question {0} lists an answer letter twice")]
    AnswerTwice(usize),
    /// A backslash before a quote in the text: a quote escaped twice in the TOML source, which
    /// the learner would read as it is.
    #[error("question {question}: its {field} shows \\\", a quote escaped twice: write \\\" or '")]
    EscapedQuote { question: usize, field: &'static str },
    /// A question's section is no heading of the lesson's text (`text`, whose headings are listed).
    #[error("question {question}: its section \"{section}\" is not a ## heading of {text} (they are: {headings})")]
    UnknownSection { question: usize, section: String, text: String, headings: String },
}

/// Why one answer's letters cannot be read (the caller knows which answer it was).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Unreadable {
    #[error("'{letter}' is not an option here: pick from {letters}")]
    NotAnOption { letter: char, letters: String },
    #[error("it is empty: pick at least one letter from {letters}")]
    Empty { letters: String },
}

pub(crate) fn path(lesson: &Lesson) -> PathBuf {
    lesson.dir.join("quiz.toml")
}

impl Quiz {
    /// Load the quiz of a lesson. A lesson without a quiz file is a usage error that says so.
    pub(crate) fn load(lesson: &Lesson) -> Result<Quiz, Error> {
        let path = path(lesson);
        if !path.is_file() {
            return Err(LessonError::NoQuiz { lesson: lesson.id.clone() }.into());
        }
        let text = crate::files::read_data_text(&path, crate::files::DATA_CAP)
            .map_err(|e| Corrupt::new(&path, Flaw::Unreadable(e)))?;
        let quiz = Quiz::parse(&text, &path)?;
        let text_path = lesson.dir.join("lesson.md");
        let headings = crate::files::read_data_text(&text_path, crate::files::DATA_CAP)
            .map(|t| sections(&t))
            .unwrap_or_default();
        quiz.sections_exist(&headings, "lesson.md")
            .map_err(|why| Corrupt::new(&path, Flaw::QuizRules(why.into())))?;
        Ok(quiz)
    }

    /// Every question's section is a heading of the lesson's text.
    fn sections_exist(&self, headings: &[String], text: &str) -> Result<(), Invalid> {
        for (i, q) in self.questions.iter().enumerate() {
            if !headings.contains(&q.section) {
                return Err(Invalid::UnknownSection {
                    question: i + 1,
                    section: q.section.clone(),
                    text: text.to_string(),
                    headings: headings
                        .iter()
                        .map(|h| format!("\"{h}\""))
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
        Ok(())
    }

    /// The sections to read again after these answers: each with the numbers of the questions
    /// answered wrong, in the order the questions first name them.
    pub(crate) fn to_reread(&self, picks: &[Picks]) -> Vec<(String, Vec<usize>)> {
        let mut sections: Vec<(String, Vec<usize>)> = Vec::new();
        for (i, (q, p)) in self.questions.iter().zip(picks).enumerate() {
            if q.is_right(p) {
                continue;
            }
            match sections.iter_mut().find(|(s, _)| *s == q.section) {
                Some((_, numbers)) => numbers.push(i + 1),
                None => sections.push((q.section.clone(), vec![i + 1])),
            }
        }
        sections
    }

    pub(crate) fn parse(text: &str, path: &Path) -> Result<Quiz, Error> {
        let quiz: Quiz = toml::from_str(text).map_err(|e| {
            let at = e.span().map(|s| text[..s.start.min(text.len())].lines().count().max(1));
            Corrupt::new(path, Flaw::Quiz { at, source: e })
        })?;
        quiz.validate().map_err(|why| Corrupt::new(path, Flaw::QuizRules(why.into())))?;
        Ok(quiz)
    }

    fn validate(&self) -> Result<(), Invalid> {
        if self.questions.is_empty() {
            return Err(Invalid::NoQuestions);
        }
        for (i, q) in self.questions.iter().enumerate() {
            q.validate(i + 1)?;
        }
        Ok(())
    }
}

impl QuizQuestion {
    /// Whether question `n` is well formed: a prompt, a section, options lettered in order and
    /// explained, and answers among them, each once.
    fn validate(&self, n: usize) -> Result<(), Invalid> {
        if self.prompt.trim().is_empty() {
            return Err(Invalid::EmptyPrompt(n));
        }
        if self.section.trim().is_empty() {
            return Err(Invalid::EmptySection(n));
        }
        if self.options.len() < 2 {
            return Err(Invalid::TooFewOptions(n));
        }
        for (j, option) in self.options.iter().enumerate() {
            let expected = char::from(b'A' + j as u8);
            if option.letter != expected {
                return Err(Invalid::OutOfOrder {
                    question: n,
                    position: j + 1,
                    letter: option.letter,
                    expected,
                });
            }
            if option.text.trim().is_empty() || option.explanation.trim().is_empty() {
                return Err(Invalid::Unexplained { question: n, letter: expected });
            }
        }
        if self.answer.is_empty() {
            return Err(Invalid::NoAnswer(n));
        }
        let escaped = |text: &str| text.contains("\\\"");
        if escaped(&self.prompt) {
            return Err(Invalid::EscapedQuote { question: n, field: "prompt" });
        }
        if self.options.iter().any(|o| escaped(&o.text) || escaped(&o.explanation)) {
            return Err(Invalid::EscapedQuote { question: n, field: "options" });
        }
        if let Some(letter) = self.answer.iter().find(|l| self.option(**l).is_none()) {
            return Err(Invalid::NotAnOption {
                question: n,
                letter: *letter,
                letters: self.letters(),
            });
        }
        if self.answer.iter().collect::<BTreeSet<_>>().len() != self.answer.len() {
            return Err(Invalid::AnswerTwice(n));
        }
        Ok(())
    }

    pub(crate) fn option(&self, letter: char) -> Option<&QuizOption> {
        self.options.iter().find(|o| o.letter == letter)
    }

    /// The option letters, for messages: "A-D".
    pub(crate) fn letters(&self) -> String {
        match (self.options.first(), self.options.last()) {
            (Some(first), Some(last)) => format!("{}-{}", first.letter, last.letter),
            _ => String::new(),
        }
    }

    pub(crate) fn answer_set(&self) -> Picks {
        self.answer.iter().copied().collect()
    }

    pub(crate) fn is_right(&self, picks: &Picks) -> bool {
        *picks == self.answer_set()
    }

    /// Read the letters of one answer, such as "bd" or "B, D": case and spaces do not matter.
    /// The error says what is wrong, without saying where: the caller knows the position.
    pub(crate) fn parse_picks(&self, token: &str) -> Result<Picks, Unreadable> {
        let mut picks = Picks::new();
        for c in token.chars().filter(|c| !c.is_whitespace() && *c != ',') {
            let letter = c.to_ascii_uppercase();
            if self.option(letter).is_none() {
                return Err(Unreadable::NotAnOption { letter: c, letters: self.letters() });
            }
            picks.insert(letter);
        }
        if picks.is_empty() {
            return Err(Unreadable::Empty { letters: self.letters() });
        }
        Ok(picks)
    }
}

/// The `## ` headings of a lesson's text, in order.
pub(crate) fn sections(markdown: &str) -> Vec<String> {
    markdown.lines().filter_map(|l| l.strip_prefix("## ")).map(|h| h.trim().to_string()).collect()
}

/// Split `--answers` into one set of picks per question, or say which token is wrong.
pub(crate) fn parse_answers(quiz: &Quiz, answers: &str) -> Result<Vec<Picks>, Error> {
    let tokens: Vec<&str> = answers.split(',').map(str::trim).collect();
    let asked = quiz.questions.len();
    if tokens.len() != asked {
        return Err(FlagError::AnswerCount { given: tokens.len(), asked }.into());
    }
    quiz.questions
        .iter()
        .zip(&tokens)
        .enumerate()
        .map(|(i, (q, token))| {
            q.parse_picks(token).map_err(|why| {
                let token = token.to_string();
                FlagError::AnswerToken { number: i + 1, token, source: why.into() }.into()
            })
        })
        .collect()
}

/// How many of the picks are right.
pub(crate) fn score(quiz: &Quiz, picks: &[Picks]) -> usize {
    quiz.questions.iter().zip(picks).filter(|(q, p)| q.is_right(p)).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"
[[questions]]
prompt = "Which?"
answer = ["B"]
section = "One"
options = [
  { letter = "A", text = "one", explanation = "no" },
  { letter = "B", text = "two", explanation = "yes" },
]

[[questions]]
prompt = "Which two?"
answer = ["A", "C"]
section = "Two"
options = [
  { letter = "A", text = "one", explanation = "yes" },
  { letter = "B", text = "two", explanation = "no" },
  { letter = "C", text = "three", explanation = "yes" },
]
"#;

    fn small() -> Quiz {
        Quiz::parse(SMALL, Path::new("quiz.toml")).unwrap()
    }

    #[test]
    fn answers_are_read_case_and_space_insensitively() {
        let quiz = small();
        let picks = parse_answers(&quiz, "b, c a").unwrap();
        assert_eq!(score(&quiz, &picks), 2);
        assert_eq!(score(&quiz, &parse_answers(&quiz, "A,AC").unwrap()), 1);
    }

    #[test]
    fn a_wrong_count_of_tokens_is_named() {
        let err = parse_answers(&small(), "B").unwrap_err().to_string();
        assert!(err.contains("has 1 token but the quiz has 2 questions"), "{err}");
    }

    #[test]
    fn a_letter_that_is_not_an_option_names_its_token() {
        let err = parse_answers(&small(), "C,AB").unwrap_err().to_string();
        assert!(err.contains("token 1 (\"C\""), "{err}");
        let err = parse_answers(&small(), "A, ").unwrap_err().to_string();
        assert!(err.contains("token 2") && err.contains("empty"), "{err}");
    }

    #[test]
    fn an_answer_outside_the_options_is_corrupt_data_naming_the_file() {
        let bad = SMALL.replace(r#"answer = ["B"]"#, r#"answer = ["E"]"#);
        let err = Quiz::parse(&bad, Path::new("lessons/x/quiz.toml")).unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("lessons/x/quiz.toml:") && text.contains("'E'"), "{text}");
        assert!(matches!(err, Error::Corrupt(_)));
    }

    #[test]
    fn a_section_must_be_a_heading_of_the_text() {
        let quiz = small();
        assert!(quiz.sections_exist(&sections("# T\n## One\ntext\n## Two\n"), "lesson.md").is_ok());
        let err = quiz
            .sections_exist(&sections("## One\n## Three\n"), "lesson.md")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("question 2: its section \"Two\""), "{err}");
        assert!(err.contains("\"One\", \"Three\""), "{err}");
    }

    #[test]
    fn the_sections_to_reread_are_those_of_the_missed_questions() {
        let quiz = small();
        let picks = parse_answers(&quiz, "A,AC").unwrap();
        assert_eq!(quiz.to_reread(&picks), vec![("One".to_string(), vec![1])]);
        assert!(quiz.to_reread(&parse_answers(&quiz, "B,AC").unwrap()).is_empty());
    }

    #[test]
    fn options_must_be_lettered_in_order() {
        let bad = SMALL.replace(
            r#"{ letter = "B", text = "two", explanation = "yes" }"#,
            r#"{ letter = "D", text = "two", explanation = "yes" }"#,
        );
        let err = Quiz::parse(&bad, Path::new("quiz.toml")).unwrap_err().to_string();
        assert!(err.contains("should be 'B'"), "{err}");
    }
}
