//! `workshop quiz`: one question at a time on a terminal, or graded from `--answers`.

use std::io::BufRead;

use crate::cli::{Format, QuizArgs};
use crate::commands::Context;
use crate::course::progress::Progress;
use crate::error::{Error, EXIT_COULD_NOT_RUN, EXIT_FAILED, EXIT_SUCCESS};
use crate::lesson::quiz::{self, Picks, Quiz};
use crate::lesson::Lesson;
use crate::output;
use crate::render::quiz as show;

pub(super) fn run(ctx: &Context, args: QuizArgs) -> Result<i32, Error> {
    let lesson = ctx.lesson(args.lesson.as_deref())?;
    let quiz = Quiz::load(&lesson)?;
    if let Some(answers) = args.answers.as_deref() {
        let picks = quiz::parse_answers(&quiz, answers)?;
        let score = quiz::score(&quiz, &picks);
        // Saved first: the score counts even when nobody reads all of it (`| head -1`).
        save(&lesson, ctx, score, quiz.questions.len());
        match args.format {
            Format::Json => {
                output::line(&format!("{:#}", show::results_json(&quiz, &picks, score)))?
            }
            Format::Text => {
                for (i, (q, p)) in quiz.questions.iter().zip(&picks).enumerate() {
                    output::line(&show::feedback(q, i + 1, p, &ctx.styles, ctx.glyphs, ctx.width))?;
                }
                output::print(&show::reread(&quiz.to_reread(&picks), &lesson.id, ctx.width))?;
                output::print(&show::score_line(score, quiz.questions.len(), &ctx.styles))?;
            }
        }
        return Ok(EXIT_SUCCESS);
    }
    if args.format == Format::Json {
        output::line(&format!("{:#}", show::questions_json(&quiz)))?;
        return Ok(EXIT_SUCCESS);
    }
    if ctx.stdin_terminal && ctx.stdout_terminal {
        return interactive(ctx, &lesson, &quiz);
    }
    // Off a terminal nobody can answer a prompt: show the questions and how to answer them.
    output::print(&show::listing(&quiz, &ctx.styles, ctx.width))?;
    crate::errln!(
        "\nNot a terminal, so no question was asked. Answer them all at once with one token per question, in order:\n  ./workshop quiz {} --answers \"{}\"",
        lesson.id,
        example_answers(&quiz)
    );
    Ok(EXIT_COULD_NOT_RUN)
}

/// A well-formed `--answers` for this quiz that gives nothing away: the first options everywhere.
fn example_answers(quiz: &Quiz) -> String {
    quiz.questions
        .iter()
        .map(|q| q.options.iter().take(q.answer.len()).map(|o| o.letter).collect::<String>())
        .collect::<Vec<_>>()
        .join(",")
}

fn save(lesson: &Lesson, ctx: &Context, score: usize, total: usize) {
    if let Err(e) = Progress::update(&ctx.root, &lesson.id, |p| p.quiz = Some((score, total))) {
        crate::errln!("warning: your score was not saved ({e}).");
    }
}

fn interactive(ctx: &Context, lesson: &Lesson, quiz: &Quiz) -> Result<i32, Error> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let total = quiz.questions.len();
    let mut score = 0;
    let mut answered = Vec::new();
    output::line(&format!(
        "{} questions. Type the letters of your answer and press Enter (q to stop).\n",
        total
    ))?;
    for (i, q) in quiz.questions.iter().enumerate() {
        output::print(&show::question(q, i + 1, total, &ctx.styles, ctx.width))?;
        let Some(picks) = ask_picks(&mut input, q)? else {
            output::line(&format!("\nStopped after {i} of {total} questions; no score saved."))?;
            return Ok(EXIT_FAILED);
        };
        output::line("")?;
        output::print(&show::feedback(q, i + 1, &picks, &ctx.styles, ctx.glyphs, ctx.width))?;
        if q.is_right(&picks) {
            score += 1;
        }
        answered.push(picks);
        if i + 1 < total {
            prompt("\nPress Enter for the next question. ")?;
            if read_line(&mut input)?.is_none_or(|l| l.trim().eq_ignore_ascii_case("q")) {
                output::line(&format!(
                    "\nStopped after {} of {total} questions; no score saved.",
                    i + 1
                ))?;
                return Ok(EXIT_FAILED);
            }
            output::line("")?;
        }
    }
    output::line("")?;
    output::print(&show::reread(&quiz.to_reread(&answered), &lesson.id, ctx.width))?;
    output::print(&show::score_line(score, total, &ctx.styles))?;
    save(lesson, ctx, score, total);
    if score < total {
        output::line(&format!("Then retake it: ./workshop quiz {}", lesson.id))?;
    }
    Ok(EXIT_SUCCESS)
}

/// Ask until the learner gives a usable answer. `None` when they stop (q or end of input).
fn ask_picks(input: &mut impl BufRead, q: &quiz::QuizQuestion) -> Result<Option<Picks>, Error> {
    loop {
        prompt(&format!("\nYour answer ({}): ", show::how_many(q)))?;
        let Some(line) = read_line(input)? else { return Ok(None) };
        if line.trim().eq_ignore_ascii_case("q") {
            return Ok(None);
        }
        match q.parse_picks(&line) {
            Ok(picks) if picks.len() == q.answer.len() => return Ok(Some(picks)),
            Ok(_) => output::line(&match q.answer.len() {
                1 => format!("This question has 1 right option: {}.", show::how_many(q)),
                n => format!("This question has {n} right options: {}.", show::how_many(q)),
            })?,
            Err(why) => output::line(&format!("That answer cannot be read: {why}."))?,
        }
    }
}

fn prompt(text: &str) -> Result<(), Error> {
    output::print(text)
}

fn read_line(input: &mut impl BufRead) -> Result<Option<String>, Error> {
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) => Ok(None),
        Ok(_) => Ok(Some(line)),
        Err(e) => Err(Error::io("cannot read your answer", e)),
    }
}
