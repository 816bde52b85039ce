//! `workshop doctor`: for lesson authors. Every ticket replays end to end in every runtime with
//! both codes (and with any other code the script records for it, such as a mistake file), every
//! recorded turn is valid and used, the starter fails `check` and the reference solution passes it.

use std::collections::HashSet;

use crate::checks::Status;
use crate::cli::DoctorArgs;
use crate::commands::Context;
use crate::error::{CourseError, Error, EXIT_COULD_NOT_RUN, EXIT_FAILED, EXIT_SUCCESS};
use crate::lesson::Runtime;
use crate::lesson::{self, Lesson};
use crate::outln;
use crate::replay::events::Event;
use crate::replay::recordings::Provenance;
use crate::replay::{CodeChoice, Replayer};

/// The codes doctor replays: the starter, the fix, and the lesson's named mistakes.
fn choices(lesson: &Lesson) -> Vec<CodeChoice> {
    let mut codes = vec![CodeChoice::Starter, CodeChoice::Solution];
    codes.extend(lesson.mistakes.iter().map(|m| CodeChoice::Mistake(m.label.clone())));
    codes
}

/// What doctor found in one lesson.
#[derive(Default)]
struct Findings {
    problems: usize,
    /// Of those, files that cannot be read at all (a broken manifest, a corrupt recording).
    corrupt: usize,
}

pub(super) fn run(ctx: &Context, args: DoctorArgs) -> Result<i32, Error> {
    let ids = match &args.lesson {
        Some(word) => vec![lesson::resolve(&ctx.root, word)?],
        None => lesson::known_ids(&ctx.root),
    };
    if ids.is_empty() {
        let dir = ctx.root.join("lessons").display().to_string();
        return Err(CourseError::NoLessons { dir }.into());
    }
    let s = &ctx.styles;
    let mut found = Findings::default();
    for id in ids {
        let lesson = match Lesson::load(&ctx.root, &id).and_then(Lesson::opened) {
            Ok(lesson) => lesson,
            // A broken lesson is a finding; the others are still examined.
            Err(e @ Error::Corrupt(_)) => {
                outln!(
                    "{}\n{} {}",
                    s.paint(s.strong, &id),
                    s.paint(s.bad, ctx.glyphs.fail),
                    e.relative_to(&ctx.root)
                )?;
                found.problems += 1;
                found.corrupt += 1;
                continue;
            }
            Err(e) => return Err(e),
        };
        let more = examine(ctx, &lesson, args.timeout)?;
        found.problems += more.problems;
        found.corrupt += more.corrupt;
    }
    if found.problems == 0 {
        let all_good = "doctor: everything replays, every recording is used, the checks tell \
                        starter from solution.";
        outln!("\n{}", s.paint(s.good, all_good))?;
        return Ok(EXIT_SUCCESS);
    }
    let problems = found.problems;
    let broken = match found.corrupt {
        0 => String::new(),
        n if n == problems => {
            format!(" ({} data that cannot be read)", if n == 1 { "it is" } else { "all are" })
        }
        n => format!(" ({n} of them data that cannot be read)"),
    };
    outln!(
        "\n{}",
        s.paint(
            s.bad,
            format!(
                "doctor: {}{broken}. Fix {}, or run ./workshop record after changing the lesson.",
                crate::render::count(problems, "problem"),
                if problems == 1 { "it" } else { "them" }
            )
        )
    )?;
    // Corrupt data means the lesson cannot run at all: the "could not run" status.
    Ok(if found.corrupt > 0 { EXIT_COULD_NOT_RUN } else { EXIT_FAILED })
}

/// One lesson's examination: what is printed, and what was found.
struct Exam<'c> {
    ctx: &'c Context,
    found: Findings,
}

impl Exam<'_> {
    fn report(&mut self, ok: bool, text: String) -> Result<(), Error> {
        let s = &self.ctx.styles;
        if !ok {
            self.found.problems += 1;
        }
        let mark = if ok {
            s.paint(s.good, self.ctx.glyphs.pass)
        } else {
            s.paint(s.bad, self.ctx.glyphs.fail)
        };
        outln!("{mark} {text}")
    }
}

fn examine(ctx: &Context, lesson: &Lesson, limit: std::time::Duration) -> Result<Findings, Error> {
    let s = &ctx.styles;
    let mut exam = Exam { ctx, found: Findings::default() };
    outln!("{}", s.paint(s.strong, &lesson.id))?;
    let replayer = Replayer::new(ctx.at(), lesson, limit);
    let dir = lesson.recordings_dir(&ctx.root);
    if dir.is_dir() {
        replay_all(&mut exam, lesson, &replayer)?;
    } else {
        // Said once, not once for every ticket in every runtime.
        exam.report(
            false,
            format!(
                "{} is missing, so nothing can be replayed. Restore it (git checkout -- recordings) or make it with ./workshop record.",
                ctx.shown(&dir)
            ),
        )?;
    }
    // A mistake is a file stopped half way: it fails the checks as the starter does.
    let graded = choices(lesson).into_iter().map(|c| {
        let want = if c == CodeChoice::Solution { Status::Pass } else { Status::Fail };
        (c, want)
    });
    for (code, want) in graded {
        let file = code.file(&ctx.at(), lesson)?;
        let graded = crate::checks::one_file::to_the_end(&ctx.at(), lesson, &file, limit)?;
        let word = if want == Status::Pass { "passes" } else { "fails" };
        let label = code.label(&ctx.at(), lesson);
        let text = format!(
            "check {label} {word} as it should ({}/{} checks pass)",
            graded.passed, graded.total
        );
        exam.report(graded.status == want, text)?;
    }
    text_and_quiz(&mut exam, lesson)?;
    Ok(exam.found)
}

/// The lesson's text and its quiz: both there, the quiz loading.
fn text_and_quiz(exam: &mut Exam<'_>, lesson: &Lesson) -> Result<(), Error> {
    let ctx = exam.ctx;
    let text = lesson.dir.join("lesson.md");
    if !text.is_file() {
        exam.report(
            false,
            format!(
                "{} is missing, so ./workshop lesson {} has nothing to show and no quiz question has a section to name. Write the lesson's text there, with a ## heading per section.",
                ctx.shown(&text),
                lesson.id
            ),
        )?;
    }
    if !crate::lesson::quiz::path(lesson).is_file() {
        exam.report(
            false,
            format!(
                "{} is missing, so ./workshop quiz {} has no questions. Add a few, each naming the ## heading of lesson.md it asks about (see lessons/README.md).",
                ctx.shown(&crate::lesson::quiz::path(lesson)),
                lesson.id
            ),
        )?;
    } else {
        match crate::lesson::quiz::Quiz::load(lesson) {
            Ok(quiz) => {
                let questions = crate::render::count(quiz.questions.len(), "question");
                exam.report(
                    true,
                    format!(
                        "quiz: {questions}, each naming the section of lesson.md it asks about"
                    ),
                )?;
            }
            Err(e) => {
                exam.found.corrupt += 1;
                exam.report(false, e.relative_to(&ctx.root).to_string())?;
            }
        }
    }
    Ok(())
}

/// Every ticket in every runtime with every code, from the shipped recordings; every recorded
/// turn must be used.
fn replay_all(exam: &mut Exam<'_>, lesson: &Lesson, replayer: &Replayer<'_>) -> Result<(), Error> {
    let script =
        crate::replay::turns::Script::load(&exam.ctx.root, &lesson.recordings_dir(&exam.ctx.root))?;
    let mut codes = Vec::new();
    for choice in &choices(lesson) {
        codes.push(replayer.code(choice)?);
    }
    let mut others = scripted_others(exam, lesson, replayer, script.as_ref())?;
    for runtime in Runtime::ALL {
        for ticket in lesson.tickets_for(runtime.name()) {
            let cassette = match replayer.cassette(runtime, ticket) {
                Ok(c) => c,
                Err(e) => {
                    if matches!(e, Error::Corrupt(_)) {
                        exam.found.corrupt += 1;
                    }
                    exam.report(false, format!("{}/{}: {e}", runtime.name(), ticket.id))?;
                    continue;
                }
            };
            let mut used = HashSet::new();
            let scripted =
                others.iter_mut().filter(|(r, t, _)| *r == runtime.name() && *t == ticket.id);
            for code in codes.iter_mut().chain(scripted.map(|(_, _, code)| code)) {
                let (replay, keys) = replayer.strict(ticket, runtime, code, &cassette);
                // A world that broke is its author's error: said once, with its file and line.
                if let Some(e) = lesson.world_error() {
                    return Err(e);
                }
                used.extend(keys);
                judge(exam, script.as_ref(), runtime, ticket, &code.label, &replay)?;
            }
            unused(exam, runtime, ticket, &cassette, &used)?;
        }
    }
    Ok(())
}

/// Any other code the script records (a mistake file, by its path) replays the tickets it is
/// scripted for, found as `record` finds it: (runtime, ticket, code).
fn scripted_others(
    exam: &mut Exam<'_>,
    lesson: &Lesson,
    replayer: &Replayer<'_>,
    script: Option<&crate::replay::turns::Script>,
) -> Result<Vec<(String, String, crate::replay::Coded)>, Error> {
    let mut others = Vec::new();
    for run in script.iter().flat_map(|s| &s.runs) {
        let choice = match super::scripted_code(exam.ctx, lesson, &run.code) {
            Ok(choice) if choices(lesson).contains(&choice) => continue,
            Ok(choice) => choice,
            Err(e) => {
                exam.found.corrupt += 1;
                exam.report(false, e.relative_to(&exam.ctx.root).to_string())?;
                continue;
            }
        };
        let mut code = replayer.code(&choice)?;
        code.label = run.code.clone();
        others.push((run.runtime.clone(), run.ticket.clone(), code));
    }
    Ok(others)
}

/// One replay's line: what is wrong with it, or its verdict; then whether its question can be asked.
fn judge(
    exam: &mut Exam<'_>,
    script: Option<&crate::replay::turns::Script>,
    runtime: Runtime,
    ticket: &crate::lesson::Ticket,
    label: &str,
    replay: &crate::replay::events::Run,
) -> Result<(), Error> {
    let name = format!("{}/{} with {}", runtime.name(), ticket.id, label);
    // Live turns are the model's own choices: the authored script's count does not bind them.
    let live =
        replay.events.iter().any(|e| matches!(e.provenance(), Some(Provenance::Live { .. })));
    let expected = script.filter(|_| !live).and_then(|s| {
        s.runs
            .iter()
            .find(|r| r.runtime == runtime.name() && r.ticket == ticket.id && r.code == label)
            .map(|r| r.tool_calls)
    });
    match wrong(replay, expected) {
        Some(why) => exam.report(false, format!("{name}: {why}"))?,
        None => exam.report(true, format!("{name}: {}", replay.verdict.text))?,
    }
    if let Some(why) = unanswerable(ticket, label, replay) {
        exam.report(false, format!("{name}: {why}"))?;
    }
    Ok(())
}

/// Recorded turns no replay used, and kinds of words with no recorded reply.
fn unused(
    exam: &mut Exam<'_>,
    runtime: Runtime,
    ticket: &crate::lesson::Ticket,
    cassette: &crate::replay::recordings::Cassette,
    used: &HashSet<String>,
) -> Result<(), Error> {
    for turn in &cassette.turns {
        if !used.contains(&turn.used_key()) {
            exam.report(
                false,
                format!("{}: this recorded turn is never replayed", turn.file_line(&exam.ctx.root)),
            )?;
        }
    }
    for (words, kind) in cassette.kinds_without_reply() {
        exam.report(
            false,
            format!(
                "{}/{}: no recorded reply answers a {words} of the kind {kind}, so a learner's words of that kind stop at No recording. Script a run whose code sends such words, and record it; or drop the kind.",
                runtime.name(),
                ticket.id
            ),
        )?;
    }
    Ok(())
}

/// Why a ticket's own question about this run could not be asked: the player asks it only when
/// exactly one of its choices holds of the run.
fn unanswerable(
    ticket: &crate::lesson::Ticket,
    label: &str,
    replay: &crate::replay::events::Run,
) -> Option<String> {
    let predict = ticket.predict.as_ref().filter(|p| p.code == label)?;
    let facts = replay.verdict.counts.value();
    let right: Vec<&str> = predict
        .choices
        .iter()
        .filter(|c| crate::replay::story::holds(&c.when, &facts))
        .map(|c| c.says.as_str())
        .collect();
    match right.as_slice() {
        [_] => None,
        [] => Some(format!(
            "no choice of the ticket's question holds of this run (its counts: {facts}), so the player will not ask it"
        )),
        many => Some(format!(
            "{} choices of the ticket's question hold of this run ({}), so the player will not ask it",
            many.len(),
            many.join("; ")
        )),
    }
}

/// What is wrong with a replay, if anything: it stopped, ran the tools another number of times
/// than the script says, or ended without a reply.
fn wrong(replay: &crate::replay::events::Run, expected: Option<usize>) -> Option<String> {
    let stopped = replay.events.iter().find_map(|e| match e {
        Event::NoRecording { closest, .. } => Some(format!(
            "a request has no recording (closest: {})",
            closest.as_deref().unwrap_or("none")
        )),
        Event::CodeError { message, .. } => Some(message.clone()),
        _ => None,
    });
    let calls = replay.verdict.tool_calls;
    match (stopped, expected) {
        (Some(why), _) => Some(why),
        (None, Some(want)) if want != calls => Some(format!(
            "the tool ran {}, the script says {want}",
            crate::render::count(calls, "time")
        )),
        // A run may end in the API's refusal: the code under replay built a request the API
        // does not accept, which is what that code does.
        // So may a run that the host ended: by a cap, on an API error it did not send again
        // (what it told the person comes last), or on an MCP server's error (`[mcp] on_error`).
        _ if !ends_well(replay) => Some("the replay does not end in a reply".into()),
        _ => None,
    }
}

/// Whether a run ends as a run may: in a reply, the API's refusal, or the host's stop after an
/// API error or by a cap (what the host told the person comes after it).
fn ends_well(replay: &crate::replay::events::Run) -> bool {
    use Event::{ApiError, Capped, HostError, Reply, RpcEnded};
    let last = replay.events.iter().rev().find(|e| !matches!(e, Event::Told { .. }));
    matches!(
        last,
        Some(Reply { .. } | ApiError { .. } | HostError { .. } | Capped { .. } | RpcEnded { .. })
    )
}
