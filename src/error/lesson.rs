//! A lesson, or a part of one (a ticket, a check, a mistake, its quiz), named on the command line
//! and not there: what was asked, and what there is to choose from.

/// A lesson as an error lists it: its number (none when its manifest cannot be read) and its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Numbered {
    pub number: Option<u32>,
    pub id: String,
}

#[derive(Debug, thiserror::Error)]
pub enum LessonError {
    #[error(
        "'{id}' is not a lesson id: ids are plain names, the folders under lessons/, with no path \
         in them. Run ./workshop list to see them."
    )]
    NotAnId { id: String },
    /// A number no lesson has; `lessons` in course order.
    #[error("there is no lesson {number} here.\n{}", listed(lessons))]
    NoNumber { number: u32, lessons: Vec<Numbered> },
    /// A name no lesson has; `guess` is the nearest id, when one is near.
    #[error(
        "there is no lesson '{word}'.{}\n{}",
        guess.as_ref().map(|id| format!("\nDid you mean {id}?")).unwrap_or_default(),
        listed(lessons)
    )]
    Unknown { word: String, guess: Option<String>, lessons: Vec<Numbered> },
    /// No lesson named and none started; `listing` is the course's lessons as `list` lays them
    /// out (with titles, loaded): one block of text, one meaning.
    #[error("name a lesson, since you have not started one yet:\n{listing}")]
    NoneStarted { listing: String },
    /// `start` with no lesson; `listing` as in [`LessonError::NoneStarted`].
    #[error("which lesson? The lessons here:\n{listing}")]
    WhichLesson { listing: String },
    #[error("the lesson {lesson} has no mistake '{label}'")]
    NoMistake { lesson: String, label: String },
    #[error("there is no ticket '{id}' in {lesson}: choose one of {}.", ids.join(", "))]
    NoTicket { lesson: String, id: String, ids: Vec<String> },
    /// A ticket asked for in a runtime it does not run in; `runtimes` are the ones it runs in.
    #[error(
        "the ticket {ticket} runs only in the {} runtime: add --runtime {}.",
        runtimes.join(" or "),
        runtimes.first().map(String::as_str).unwrap_or("harness")
    )]
    WrongRuntime { ticket: String, runtimes: Vec<String> },
    #[error("the lesson {lesson} has no quiz (there is no lessons/{lesson}/quiz.toml).")]
    NoQuiz { lesson: String },
    /// `path` as the message shows it.
    #[error("the lesson {lesson} has no text yet (there is no {path}).")]
    NoText { lesson: String, path: String },
    #[error("the lesson {lesson} has no hints.")]
    NoHints { lesson: String },
    #[error("there is no check '{id}' in {lesson}. Checks: {}.", ids.join(", "))]
    NoCheck { lesson: String, id: String, ids: Vec<String> },
    /// A `--code` word that is no choice and no path; `choices` are the lesson's code words.
    #[error(
        "unknown code '{name}': choose {choices}, yours (your work file), or the path of a Python \
         file."
    )]
    UnknownCode { name: String, choices: String },
}

/// The lessons, one a line with its number, after a line that asks for one.
fn listed(lessons: &[Numbered]) -> String {
    if lessons.is_empty() {
        return "There are no lessons under lessons/ here.".into();
    }
    let lines: Vec<String> = lessons
        .iter()
        .map(|lesson| match lesson.number {
            Some(n) => format!("  {n:>3}  {}", lesson.id),
            None => format!("       {}", lesson.id),
        })
        .collect();
    format!("Name a lesson by its number or its name:\n{}", lines.join("\n"))
}
