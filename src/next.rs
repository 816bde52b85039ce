//! Where the learner stands in the course, and what to do next: read once from the lessons and
//! the progress file, and shared by the greeting, `list`, and the door a green `check` opens.

use crate::context::Context;
use crate::course::progress::{LessonProgress, Progress};
use crate::error::Error;
use crate::lesson::{self, Lesson};
use crate::render::steps::Step;

/// How far the learner is in one lesson.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Standing {
    NotStarted,
    /// Started, never graded.
    Started,
    /// Graded: checks passed of total, at the last `check` of the work file.
    Checked {
        passed: usize,
        total: usize,
    },
    Done,
    /// Green once, and the work file is the starter again (`reset`, `start --force`).
    DoneBeforeReset,
    /// Green once, and the last check of the work file since then was not.
    DoneBefore {
        passed: usize,
        total: usize,
    },
}

impl Standing {
    /// Green at least once: the lesson counts as done for what comes next.
    pub(crate) fn was_green(&self) -> bool {
        matches!(self, Standing::Done | Standing::DoneBeforeReset | Standing::DoneBefore { .. })
    }

    pub(crate) fn started(&self) -> bool {
        *self != Standing::NotStarted
    }

    /// The words `list` shows.
    pub(crate) fn words(&self) -> String {
        match self {
            Standing::NotStarted => "not started".into(),
            Standing::Started => "started, not checked yet".into(),
            Standing::Checked { passed, total } => format!("{passed} of {total} checks"),
            Standing::Done => "done".into(),
            Standing::DoneBeforeReset => "done before; reset".into(),
            Standing::DoneBefore { passed, total } => {
                format!("done before; now {passed} of {total} checks")
            }
        }
    }
}

/// The lessons in course order, each with the learner's standing and record.
pub(crate) struct Course {
    pub lessons: Vec<(Lesson, Standing, LessonProgress)>,
    /// The lessons that do not load, by id, each with its first problem: shown as broken, never
    /// offered as the next step.
    pub broken: Vec<(String, String)>,
    pub preface: crate::course::preface::Preface,
}

impl Course {
    pub(crate) fn read(ctx: &Context) -> Result<Course, Error> {
        let progress = Progress::read(&ctx.root);
        let (lessons, broken) = lesson::all_in_order(&ctx.root);
        let broken = broken.into_iter().map(|(id, e)| (id, first_problem(&e))).collect();
        let lessons = lessons
            .into_iter()
            .map(|lesson| {
                let entry = progress.lessons.get(&lesson.id).cloned().unwrap_or_default();
                let standing = standing(ctx, &lesson, &entry);
                (lesson, standing, entry)
            })
            .collect();
        Ok(Course { lessons, broken, preface: crate::course::preface::Preface::read(&ctx.root)? })
    }

    /// Where the lessons before the first one here are, when the course does not start at 1.
    pub(crate) fn before_first(&self) -> Option<String> {
        let first = self.lessons.first()?.0.number;
        let gap = match first {
            0 | 1 => return None,
            2 => "This workshop starts at lesson 2: lesson 1 is not in it.".to_string(),
            n => {
                let last = n - 1;
                format!("This workshop starts at lesson {n}: lessons 1 to {last} are not in it.")
            }
        };
        Some(match &self.preface.before {
            Some(more) => format!("{gap} {}", more.trim()),
            None => gap,
        })
    }

    /// The lesson to go on to from `id`: the first never green after it in course order, else
    /// the first before it. `None` when every other lesson has been green.
    pub(crate) fn after(&self, id: &str) -> Option<(&Lesson, &Standing)> {
        let from = self.lessons.iter().position(|(l, _, _)| l.id == id).map_or(0, |at| at + 1);
        let (later, earlier) = (&self.lessons[from..], &self.lessons[..from]);
        let open = later.iter().chain(earlier).find(|(l, s, _)| l.id != id && !s.was_green());
        open.map(|(lesson, standing, _)| (lesson, standing))
    }

    /// What to do next, as one command and the lesson it is about: the lesson started last that
    /// was never green is checked; else the first lesson never green is started.
    pub(crate) fn next_step(&self) -> Option<Next<'_>> {
        let open = self
            .lessons
            .iter()
            .filter(|(_, s, _)| s.started() && !s.was_green())
            .max_by_key(|(_, _, p)| p.started_at.unwrap_or(0));
        if let Some((lesson, _, _)) = open {
            return Some(Next {
                lesson,
                command: format!("./workshop check {}", lesson.id),
                starts: false,
            });
        }
        // Every lesson started and never green was `open`: this one was never started.
        let (lesson, _, _) = self.lessons.iter().find(|(_, s, _)| !s.was_green())?;
        Some(Next { lesson, command: format!("./workshop start {}", lesson.id), starts: true })
    }

    /// The command that takes the learner from a green `id` into the lesson to do next: `start`,
    /// or `check` when it was started already (start would refuse an edited file).
    pub(crate) fn on_from(&self, id: &str) -> Option<Next<'_>> {
        let (next, standing) = self.after(id)?;
        let started = standing.started();
        let verb = if started { "check" } else { "start" };
        Some(Next {
            lesson: next,
            command: format!("./workshop {verb} {}", next.id),
            starts: !started,
        })
    }
}

/// The first problem of a lesson that does not load, in one line, saying how many more there are.
fn first_problem(e: &Error) -> String {
    let text = e.to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default().to_string();
    match lines.count() {
        0 => first,
        more => format!("{first} (and {})", crate::render::count(more, "more problem")),
    }
}

/// One next command.
pub(crate) struct Next<'c> {
    pub lesson: &'c Lesson,
    pub command: String,
    /// The command starts the lesson (rather than grading it where the learner left it).
    pub starts: bool,
}

fn standing(ctx: &Context, lesson: &Lesson, entry: &LessonProgress) -> Standing {
    let started = entry.started || lesson.work_file(&ctx.root).exists();
    let checked = match (entry.passed, entry.total) {
        (Some(passed), Some(total)) => Some((passed, total)),
        _ => None,
    };
    let green_now = checked.is_some_and(|(p, t)| p == t && t > 0);
    if entry.green {
        if !crate::course::starter::edited(&ctx.at(), lesson)
            && lesson.work_file(&ctx.root).is_file()
        {
            return Standing::DoneBeforeReset;
        }
        return match checked {
            Some((passed, total)) if !green_now => Standing::DoneBefore { passed, total },
            _ => Standing::Done,
        };
    }
    match checked {
        Some(_) if green_now => Standing::Done,
        Some((passed, total)) => Standing::Checked { passed, total },
        None if started => Standing::Started,
        None => Standing::NotStarted,
    }
}

/// What a green lesson opens, in order: the learner's code replayed beside the starter, the quiz,
/// then the next unfinished lesson by name. The text ends with a line when every lesson is done.
pub(crate) fn door(ctx: &Context, lesson: &Lesson) -> Result<Door, Error> {
    let course = Course::read(ctx)?;
    let mut ways = vec![Step {
        word: "see",
        command: format!("./workshop watch {} --compare", lesson.id),
        why: "your code replayed beside the starter".into(),
    }];
    if let Ok(quiz) = crate::lesson::quiz::Quiz::load(lesson) {
        let last =
            course.lessons.iter().find(|(l, _, _)| l.id == lesson.id).and_then(|(_, _, p)| p.quiz);
        let why = match last {
            Some((right, of)) => format!("test yourself (last score {right}/{of})"),
            None => {
                format!("test yourself: {}", crate::render::count(quiz.questions.len(), "question"))
            }
        };
        ways.push(Step { word: "quiz", command: format!("./workshop quiz {}", lesson.id), why });
    }
    let next = course.on_from(&lesson.id);
    if let Some(next) = &next {
        let why = if next.starts {
            format!("lesson {}: {}", next.lesson.number, next.lesson.title)
        } else {
            format!("lesson {}, where you left it", next.lesson.number)
        };
        ways.push(Step { word: "next", command: next.command.clone(), why });
    }
    let mut text = crate::render::steps::text(&ways, false, &ctx.styles, ctx.width);
    if next.is_none() {
        text.push_str("  Every lesson of the course is done.\n");
    }
    Ok(Door { text, next: next.is_some() })
}

/// The next steps at green, and whether one of them goes on to another lesson.
#[derive(Clone, Debug)]
pub(crate) struct Door {
    pub text: String,
    pub next: bool,
}
