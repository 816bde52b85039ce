//! `workshop watch`: replay tickets as cards, with the model's turns from the recordings and the
//! tools, harness and code running for real.

use std::time::Duration;

use serde_json::json;

use crate::cli::CodeArg;
use crate::cli::{Format, WatchArgs};
use crate::commands::Context;
use crate::error::{Error, EXIT_COULD_NOT_RUN, EXIT_SUCCESS};
use crate::lesson::Lesson;
use crate::output;
use crate::render::cards::{self, Look};
use crate::replay::events::{self, Event, Run};
use crate::replay::{self, CodeChoice, Coded, Live, Replayer};

/// How long a card stays alone on screen before the next, at speed 1.
fn pause(event: &Event) -> Duration {
    Duration::from_millis(match event {
        Event::Customer { .. } | Event::Note { .. } => 700,
        Event::ToolCall { .. } => 800,
        Event::Attempt { .. } | Event::Report { .. } | Event::Verify { .. } => 700,
        Event::Rpc { .. } => 700,
        Event::Wait { ms } => *ms,
        Event::Reply { .. } | Event::Told { .. } => 900,
        Event::HostError { .. } | Event::Capped { .. } => 700,
        Event::NoRecording { .. } | Event::CodeError { .. } | Event::ApiError { .. } => 300,
        Event::RpcEnded { .. } => 300,
    })
}

/// One ticket replayed with every code asked for.
struct TicketReplay {
    runs: Vec<Run>,
    split: Option<usize>,
}

pub(crate) fn run(ctx: &Context, args: WatchArgs) -> Result<i32, Error> {
    // The full-screen player is for a person at a terminal who did not pick one ticket.
    let interactive = ctx.stdout_terminal && ctx.stdin_terminal;
    // The player replays offline; with --live the cards are printed instead.
    let page = args.html.is_some();
    if interactive
        && args.ticket.is_none()
        && args.format == Format::Text
        && !args.no_anim
        && !args.live.live
        && !page
    {
        let lesson = ctx.lesson(args.lesson.as_deref())?;
        let compare = args.compare || first_look(ctx, &lesson, &args.code);
        let code = if compare {
            compared_with(ctx, &lesson, &args.code)?
        } else {
            super::code(ctx, &lesson, &args.code)?
        };
        let config = crate::terminal::player::Config {
            compare,
            code,
            runtime: args.runtime,
            speed: args.speed,
            predict: !args.no_predict,
            expand: args.expand,
            limit: args.timeout,
        };
        return crate::terminal::player::run(ctx, lesson, config);
    }
    plain(ctx, args)
}

/// The replay printed as cards (or JSON): off a terminal, or for one ticket.
pub(crate) fn plain(ctx: &Context, args: WatchArgs) -> Result<i32, Error> {
    let lesson = ctx.lesson(args.lesson.as_deref())?;
    let runtime = args.runtime;
    let chosen = replay::tickets(&lesson, args.ticket.as_deref(), runtime)?;
    let live = match args.live.live {
        true => Some(Live::new(args.live.max_requests, args.live.request_timeout)?),
        false => None,
    };
    let mut replayer = Replayer::new(ctx.at(), &lesson, args.timeout).with_live(live);
    // Before the lesson is started, the fix is never shown alone: first what goes wrong.
    let compare =
        args.compare || (first_look(ctx, &lesson, &args.code) && args.format == Format::Text);
    let (codes, note, said) = codes_and_note(ctx, &lesson, &args, compare)?;
    // The recordings are read now, while Python starts: starting the codes waits for it.
    let cassettes: Vec<_> =
        chosen.iter().map(|t| replayer.cassette(runtime, t)).collect::<Result<_, _>>()?;
    let mut coded: Vec<Coded> = codes.iter().map(|c| replayer.code(c)).collect::<Result<_, _>>()?;
    crate::bridge::take_turns_on_one_core();

    // A page is written instead of cards.
    let text = args.format == Format::Text && args.html.is_none();
    let animate = text && !args.no_anim && ctx.stdout_terminal;
    let look =
        Look { styles: ctx.styles, glyphs: ctx.glyphs, width: ctx.width, expand: args.expand };
    let mut pacer = animate.then(|| Pacer::new(ctx.stdin_terminal, args.speed));
    let mut shown = Vec::new();
    for (i, (ticket, cassette)) in chosen.iter().zip(&cassettes).enumerate() {
        let mut runs: Vec<Run> = Vec::new();
        for code in coded.iter_mut() {
            runs.push(replayer.replay(ticket, runtime, code, cassette)?);
        }
        let split = match runs.as_slice() {
            [a, b] => events::split_point(a, b),
            _ => None,
        };
        let one = TicketReplay { runs, split };
        if text && i == 0 && !note.is_empty() {
            output::print(&note)?;
        }
        if text && !print_one(&one, i, &look, pacer.as_mut())? {
            break;
        }
        shown.push(one);
    }
    if let Some(to) = &args.html {
        let shown: Vec<super::pages::Shown> =
            shown.iter().map(|s| super::pages::Shown { runs: &s.runs, split: s.split }).collect();
        let asked = super::pages::PageRequest {
            codes: &codes,
            runtime,
            predict: !args.no_predict,
            note: said.as_deref(),
        };
        super::pages::replay(ctx, &lesson, &shown, &asked, to)?;
    }
    if args.format == Format::Json {
        print_json(&shown, args.ticket.is_some())?;
    }
    // A replay the code broke (did not load, raised, hung) could not run; one that reached a
    // request nobody recorded is an answer, and exits 0.
    let broke = shown
        .iter()
        .flat_map(|s| &s.runs)
        .any(|r| r.events.iter().any(|e| matches!(e, Event::CodeError { .. })));
    Ok(if broke { EXIT_COULD_NOT_RUN } else { EXIT_SUCCESS })
}

/// The codes replayed (the starter and another with `compare`), the note above the first cards
/// (styled, empty for none) and the part of it a page shows.
fn codes_and_note(
    ctx: &Context,
    lesson: &crate::lesson::Lesson,
    args: &WatchArgs,
    compare: bool,
) -> Result<(Vec<CodeChoice>, String, Option<String>), Error> {
    if !compare {
        return Ok((vec![super::code(ctx, lesson, &args.code)?], String::new(), None));
    }
    // Whose run is beside the starter's, said above the first cards (not before an error).
    let other = compared_with(ctx, lesson, &args.code)?;
    let (mut note, mut said) = (String::new(), None);
    if args.format == Format::Text && args.code == CodeArg::Auto {
        let (fact, how) = compare_note(ctx, lesson, &other);
        let words = format!("{fact} {how}");
        said = Some(fact);
        let lines = textwrap::wrap(&words, crate::render::plain_words(ctx.width));
        note = lines.iter().map(|l| ctx.styles.paint(ctx.styles.dim, l) + "\n").collect::<String>()
            + "\n";
    }
    Ok((vec![CodeChoice::Starter, other], note, said))
}

/// Print one ticket's cards, the `i`-th, paced or at once; false when the learner ended the replay.
fn print_one(
    one: &TicketReplay,
    i: usize,
    look: &Look,
    pacer: Option<&mut Pacer>,
) -> Result<bool, Error> {
    match pacer {
        Some(pacer) => {
            if i > 0 {
                pacer.show("\n")?;
            }
            if !print_paced(one, look, pacer)? {
                pacer.show("\n(replay ended)\n")?;
                return Ok(false);
            }
        }
        None => {
            if i > 0 {
                output::line("")?;
            }
            print_all(one, look)?;
        }
    }
    Ok(true)
}

/// The replays as JSON: an object for the ticket asked for, a list when none was.
fn print_json(shown: &[TicketReplay], one_asked: bool) -> Result<(), Error> {
    let values: Vec<serde_json::Value> = shown.iter().map(json_of).collect();
    // One shape per question: an object for the ticket asked for, a list when none was.
    let out = match (one_asked, values.as_slice()) {
        (true, [one]) => one.clone(),
        _ => serde_json::Value::Array(values),
    };
    let json = serde_json::to_string_pretty(&out).unwrap_or_default();
    output::line_as_is(&crate::text::inert::json(json))
}

/// What `--compare` sets beside the starter. Unless `--code` says otherwise: the fix while the
/// learner's file is still the starter (or not there), yours once it differs.
fn compared_with(
    ctx: &Context,
    lesson: &crate::lesson::Lesson,
    code: &CodeArg,
) -> Result<CodeChoice, Error> {
    Ok(match code {
        CodeArg::Auto if crate::course::starter::edited(&ctx.at(), lesson) => CodeChoice::Yours,
        CodeArg::Auto => CodeChoice::Solution,
        other => match super::code(ctx, lesson, other)? {
            CodeChoice::Starter => CodeChoice::Solution,
            chosen => chosen,
        },
    })
}

/// The line above an automatic comparison: whose run is beside the starter's, then (for the
/// terminal only: a page has no command line) how to see the other.
fn compare_note(ctx: &Context, lesson: &Lesson, other: &CodeChoice) -> (String, String) {
    let fix = &lesson.solution_label;
    let beside_fix = format!("The starter beside the reference fix ({fix})");
    let start = format!("./workshop start {}", lesson.id);
    match other {
        CodeChoice::Yours => (
            format!("The starter beside yours ({}).", ctx.shown(&lesson.work_file(&ctx.root))),
            format!("The reference fix instead: --code {fix}"),
        ),
        _ if lesson.work_file(&ctx.root).is_file() => (
            format!("{beside_fix}: your file is still the starter."),
            "Once you edit it, --compare shows yours.".into(),
        ),
        _ => {
            let then = format!("After {start}, --compare shows yours once you edit it.");
            (format!("{beside_fix}."), then)
        }
    }
}

/// A learner who has not started the lesson and did not pick a code.
fn first_look(ctx: &Context, lesson: &crate::lesson::Lesson, code: &CodeArg) -> bool {
    *code == CodeArg::Auto && !lesson.work_file(&ctx.root).is_file()
}

fn json_of(shown: &TicketReplay) -> serde_json::Value {
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

/// What a key does during an animated replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PaceKey {
    /// Space or enter: skip the current pause.
    Skip,
    /// q, Esc or Ctrl-C: end the replay.
    Quit,
}

fn key_of(event: crossterm::event::Event) -> Option<PaceKey> {
    use crossterm::event::{Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};
    let TermEvent::Key(key) = event else { return None };
    if key.kind == KeyEventKind::Release {
        return None;
    }
    match key.code {
        KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => Some(PaceKey::Quit),
        KeyCode::Char('q') | KeyCode::Esc => Some(PaceKey::Quit),
        KeyCode::Char(' ') | KeyCode::Enter => Some(PaceKey::Skip),
        _ => None,
    }
}

/// The animated replay's pacing: pauses a key can cut short, and a key that ends it. The
/// terminal is raw meanwhile (with keys on a terminal), so keys are read, not echoed.
struct Pacer {
    keys: Option<std::sync::mpsc::Receiver<PaceKey>>,
    _reader: Option<crate::terminal::player::terminal::BackgroundThread>,
    _screen: Option<crate::terminal::player::terminal::Screen>,
    speed: f64,
    quit: bool,
}

impl Pacer {
    fn new(keys: bool, speed: f64) -> Pacer {
        let mut pacer = Pacer { keys: None, _reader: None, _screen: None, speed, quit: false };
        if !keys {
            return pacer;
        }
        // Without a raw terminal the replay still plays, only without keys.
        if let Ok(screen) = crate::terminal::player::terminal::Screen::enter(false) {
            let (tx, rx) = std::sync::mpsc::channel();
            if let Ok(reader) = crate::terminal::player::terminal::read_events(tx, key_of) {
                pacer._screen = Some(screen);
                pacer._reader = Some(reader);
                pacer.keys = Some(rx);
            }
        }
        pacer
    }

    /// Wait `pause` (scaled by the speed), unless a key says otherwise. A speed near zero makes
    /// the wait a day, not an overflow.
    fn wait(&mut self, pause: Duration) {
        const LONGEST: Duration = Duration::from_secs(24 * 60 * 60);
        let pause = Duration::try_from_secs_f64(pause.as_secs_f64() / self.speed)
            .map_or(LONGEST, |p| p.min(LONGEST));
        match &self.keys {
            None => std::thread::sleep(pause),
            Some(keys) => {
                if let Ok(PaceKey::Quit) = keys.recv_timeout(pause) {
                    self.quit = true;
                }
            }
        }
    }

    fn show(&self, text: &str) -> Result<(), Error> {
        // Raw mode leaves a bare newline without its carriage return.
        let text = if self.keys.is_some() { text.replace('\n', "\r\n") } else { text.to_string() };
        // Cards carry what the model said and the learner's code printed: never rewritten.
        output::as_is(&text)
    }
}

/// Print one ticket's runs, paced; `false` when the learner ended the replay.
fn print_paced(shown: &TicketReplay, look: &Look, pacer: &mut Pacer) -> Result<bool, Error> {
    match shown.runs.as_slice() {
        [one] => {
            pacer.show(&(cards::header(one, look) + "\n"))?;
            for event in one.told() {
                pacer.show(&cards::event(&event, look))?;
                pacer.wait(pause(&event));
                if pacer.quit {
                    return Ok(false);
                }
            }
            pacer.show(&cards::run_verdict(one, look))?;
        }
        [a, b] => {
            // Paced compare: the whole block at once would hide where the runs part.
            let text = cards::compare(a, b, shown.split, look);
            for line in text.lines() {
                pacer.show(&format!("{line}\n"))?;
                pacer.wait(Duration::from_millis(120));
                if pacer.quit {
                    return Ok(false);
                }
            }
        }
        _ => {}
    }
    Ok(true)
}

/// Print one ticket's runs at once.
fn print_all(shown: &TicketReplay, look: &Look) -> Result<(), Error> {
    let text = match shown.runs.as_slice() {
        [a, b] => cards::compare(a, b, shown.split, look),
        [one] => cards::replay(one, look),
        _ => String::new(),
    };
    output::as_is(&text)
}
