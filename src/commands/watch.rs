//! `workshop watch`: replay tickets as cards, with the model's turns from the recordings and the
//! tools, harness and code running for real.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use serde_json::json;

use crate::agent::Runtime;
use crate::cli::{Format, WatchArgs};
use crate::commands::own_replay;
use crate::commands::replaying::{self, CodeChoice};
use crate::commands::Context;
use crate::error::{Error, EXIT_COULD_NOT_RUN, EXIT_SUCCESS};
use crate::lesson::{Lesson, Ticket};
use crate::render::cards::{self, Look};
use crate::replay::{self, Event, Replay};

/// The valid runtime names, for messages.
fn runtimes() -> String {
    Runtime::ALL.map(Runtime::name).join(", ")
}

pub fn runtime(text: &str) -> Result<Runtime, Error> {
    Runtime::parse(text).ok_or_else(|| Error::usage(format!("unknown runtime '{text}': choose one of {}.", runtimes())))
}

/// `--speed`, validated: the player and the printed replay accept the same range.
pub fn speed(factor: f64) -> Result<f64, Error> {
    if !(factor.is_finite() && factor > 0.0 && factor <= 100.0) {
        return Err(Error::usage(format!(
            "--speed {factor} is out of range: give a factor above 0 and at most 100, such as 0.5 or 2."
        )));
    }
    Ok(factor)
}

/// The tickets to replay in a runtime: the one named, or all that run there.
pub fn tickets<'l>(lesson: &'l Lesson, id: Option<&str>, runtime: Runtime) -> Result<Vec<&'l Ticket>, Error> {
    let Some(id) = id else {
        return Ok(lesson.tickets_for(runtime.name()));
    };
    let ticket = lesson.ticket(id).ok_or_else(|| {
        let ids: Vec<&str> = lesson.tickets.iter().map(|t| t.id.as_str()).collect();
        Error::usage(format!("there is no ticket '{id}' in {}: choose one of {}.", lesson.id, ids.join(", ")))
    })?;
    if !ticket.runs_in(runtime.name()) {
        return Err(Error::usage(format!(
            "the ticket {id} runs only in the {} runtime: add --runtime {}.",
            ticket.runtimes.join(" or "),
            ticket.runtimes.first().map(String::as_str).unwrap_or("harness")
        )));
    }
    Ok(vec![ticket])
}

/// How long a card stays alone on screen before the next, at speed 1.
fn pause(event: &Event) -> Duration {
    Duration::from_millis(match event {
        Event::Customer { .. } => 700,
        Event::ToolCall { .. } => 800,
        Event::Attempt { .. } | Event::Report { .. } => 700,
        Event::Wait { ms } => *ms,
        Event::Reply { .. } => 900,
        Event::NoRecording { .. } | Event::CodeError { .. } => 300,
    })
}

/// One ticket replayed with every code asked for.
struct Shown {
    runs: Vec<Replay>,
    split: Option<usize>,
}

pub fn run(ctx: &Context, args: WatchArgs) -> Result<i32, Error> {
    // The full-screen player is for a person at a terminal who did not pick one ticket.
    let interactive = std::io::stdout().is_terminal() && std::io::stdin().is_terminal();
    // The player replays offline; with --live the cards are printed instead.
    if interactive && args.ticket.is_none() && args.format == Format::Text && !args.no_anim && !args.live.live {
        return crate::player::run(ctx, args);
    }
    plain(ctx, args)
}

/// The replay printed as cards (or JSON): off a terminal, or for one ticket.
pub fn plain(ctx: &Context, args: WatchArgs) -> Result<i32, Error> {
    let lesson = ctx.lesson(args.lesson.as_deref())?;
    let runtime = runtime(&args.runtime)?;
    let chosen = tickets(&lesson, args.ticket.as_deref(), runtime)?;
    speed(args.speed)?;
    let limit = super::check::timeout(args.timeout)?;
    let mut live = own_replay::Live::from_args(&args.live)?;
    let mut codes = vec![CodeChoice::parse(ctx, &lesson, &args.code)?];
    if args.compare {
        let other = if codes[0] == CodeChoice::Starter { CodeChoice::Structured } else { codes.remove(0) };
        codes = vec![CodeChoice::Starter, other];
    }
    let files = codes.iter().map(|c| c.file(ctx, &lesson)).collect::<Result<Vec<_>, _>>()?;
    let labels: Vec<String> = codes.iter().map(|c| c.label(ctx)).collect();
    let mut bridges: Vec<_> = files.iter().map(|f| replaying::open(ctx, &lesson, f, limit)).collect();

    let animate = args.format == Format::Text && !args.no_anim && std::io::stdout().is_terminal();
    let look = Look { styles: ctx.styles, glyphs: ctx.glyphs, width: ctx.width, expand: args.expand };
    let mut shown = Vec::new();
    for (i, ticket) in chosen.iter().enumerate() {
        let cassette = replaying::cassette(ctx, &lesson, runtime, ticket)?;
        let mut own = own_replay::Own::load(ctx, &lesson, runtime, ticket)?;
        let mut runs: Vec<Replay> = Vec::new();
        for (bridge, label) in bridges.iter_mut().zip(&labels) {
            let asker = live.as_mut();
            runs.push(own_replay::replay(ctx, &lesson, ticket, runtime, label, bridge, &cassette, &mut own, asker)?);
        }
        let split = match runs.as_slice() {
            [a, b] => replay::split_point(&a.events, &b.events),
            _ => None,
        };
        let one = Shown { runs, split };
        if args.format == Format::Text {
            if i > 0 {
                println!();
            }
            print_shown(&one, &look, animate, args.speed);
        }
        shown.push(one);
    }
    if args.format == Format::Json {
        let values: Vec<serde_json::Value> = shown.iter().map(json_of).collect();
        // One shape per question: an object for the ticket asked for, a list when none was.
        let out = match (args.ticket.is_some(), values.as_slice()) {
            (true, [one]) => one.clone(),
            _ => serde_json::Value::Array(values),
        };
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    }
    // A replay the code broke (did not load, raised, hung) could not run; one that reached a
    // request nobody recorded is an answer, and exits 0.
    let broke =
        shown.iter().flat_map(|s| &s.runs).any(|r| r.events.iter().any(|e| matches!(e, Event::CodeError { .. })));
    Ok(if broke { EXIT_COULD_NOT_RUN } else { EXIT_SUCCESS })
}

fn json_of(shown: &Shown) -> serde_json::Value {
    match shown.runs.as_slice() {
        [a, b] => json!({
            "lesson": a.lesson,
            "ticket": a.ticket,
            "runtime": a.runtime,
            "compare": true,
            "split_at": shown.split,
            "runs": [a, b],
        }),
        [one] => serde_json::to_value(one).unwrap_or_default(),
        _ => serde_json::Value::Null,
    }
}

fn print_shown(shown: &Shown, look: &Look, animate: bool, speed: f64) {
    let mut out = std::io::stdout().lock();
    if !animate {
        let text = match shown.runs.as_slice() {
            [a, b] => cards::compare(a, b, shown.split, look),
            [one] => cards::replay(one, look),
            _ => String::new(),
        };
        let _ = out.write_all(text.as_bytes());
        return;
    }
    let wait = |event: &Event| std::thread::sleep(pause(event).div_f64(speed));
    let mut show = |text: String| {
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    };
    match shown.runs.as_slice() {
        [one] => {
            show(cards::header(one, look) + "\n");
            for event in &one.events {
                show(cards::event(event, look));
                wait(event);
            }
            show(cards::run_verdict(one, look));
        }
        [a, b] => {
            // Paced compare: the whole block at once would hide where the runs part.
            let text = cards::compare(a, b, shown.split, look);
            for line in text.lines() {
                show(format!("{line}\n"));
                std::thread::sleep(Duration::from_millis(120).div_f64(speed));
            }
        }
        _ => {}
    }
}
