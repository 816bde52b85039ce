//! The player of `watch`: its screens as `TestBackend` snapshots (plain styles), and its event
//! loop driven by scripted keys, ticks and resizes, with the real lesson, Python and recordings.

mod common;
use common::*;

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

use workshop::agent::Runtime;
use workshop::commands::Context;
use workshop::player::{self, App, Flow, LessonSource, Msg, Options, Source, Theme};
use workshop::render::styles::{Glyphs, Styles};

fn context(ws: &Workshop) -> Context {
    Context {
        root: ws.root().to_path_buf(),
        cwd: ws.root().to_path_buf(),
        styles: Styles::plain(),
        glyphs: Glyphs::UNICODE,
        width: 80,
    }
}

const STARTER: usize = 0;
const STRUCTURED: usize = 1;
const YOURS: usize = 2;

fn options(code: usize) -> Options {
    Options { code, runtime: Runtime::Harness, compare: false, speed: 1.0, predict: true, expand: false }
}

/// A player on a test terminal.
struct Player<'c> {
    app: App<LessonSource<'c>>,
    term: Terminal<TestBackend>,
}

impl<'c> Player<'c> {
    fn new(ctx: &'c Context, options: Options, width: u16, height: u16) -> Player<'c> {
        let lesson = ctx.lesson(Some("structured-errors")).expect("the lesson loads");
        let source = LessonSource::new(ctx, lesson, Duration::from_secs(2), None);
        let app = App::new(source, options);
        let term = Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
        let mut p = Player { app, term };
        p.send(vec![]);
        p
    }

    /// Run the event loop over these messages (it draws first, then after every change).
    fn send(&mut self, msgs: Vec<Msg>) {
        player::drive(&mut self.app, &mut self.term, &Theme::plain(), msgs).expect("drawing never fails");
    }

    fn keys(&mut self, keys: &str) {
        self.send(keys.chars().map(key).collect());
    }

    fn screen(&self) -> String {
        self.term.backend().to_string()
    }
}

fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn special(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn ctrl(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

fn tick(ms: u64) -> Msg {
    Msg::Tick(Duration::from_millis(ms))
}

/// Enough time for any replay to reach its end.
fn to_the_end() -> Msg {
    Msg::Tick(Duration::from_secs(600))
}

fn starter_file() -> String {
    std::fs::read_to_string(repo().join("starter/structured-errors/errors.py")).unwrap()
}

fn solution_file() -> String {
    std::fs::read_to_string(repo().join("lessons/structured-errors/solution/errors.py")).unwrap()
}

// ---- screens ---------------------------------------------------------------------------------

#[test]
fn player_opens_on_the_first_card_with_where_the_replies_come_from() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let p = Player::new(&ctx, options(STRUCTURED), 100, 24);
    let screen = p.screen();
    assert!(screen.contains("Replies:"), "the header always says where the replies come from:\n{screen}");
    assert_eq!(p.app.shown, 1);
    insta::assert_snapshot!("player_opened", screen);
}

#[test]
fn player_structured_replay_at_its_end() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STRUCTURED), 100, 30);
    p.send(vec![to_the_end()]);
    assert!(p.app.finished());
    insta::assert_snapshot!("player_structured_end", p.screen());
}

#[test]
fn player_starter_asks_to_predict_before_it_plays() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STARTER), 100, 30);
    // Time does not move the replay on while the question is open.
    p.send(vec![to_the_end()]);
    assert_eq!(p.app.shown, 1);
    let screen = p.screen();
    assert!(screen.contains("how many times will the tool run"), "{screen}");
    insta::assert_snapshot!("player_predict", screen);
}

#[test]
fn player_judges_a_right_guess_under_the_verdict() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STARTER), 100, 30);
    // old-order with the starter code: the harness tries three times.
    p.send(vec![key('3'), to_the_end()]);
    let screen = p.screen();
    assert!(screen.contains("Right: you said three times, and it ran three times."), "{screen}");
    insta::assert_snapshot!("player_predict_right", screen);
}

#[test]
fn player_says_when_a_guess_was_wrong() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STARTER), 100, 30);
    p.send(vec![key('1')]);
    // The judgement waits for the verdict, so it does not give the answer away.
    assert!(!p.screen().contains("Not this time"));
    p.send(vec![to_the_end()]);
    let screen = p.screen();
    assert!(screen.contains("Not this time: you said once, and it ran three times."), "{screen}");
}

#[test]
fn player_asks_once_per_ticket_in_a_session() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STARTER), 100, 30);
    assert!(p.app.question.is_some());
    p.send(vec![key('3'), key('j')]);
    assert!(p.app.question.is_some(), "the next ticket gets its own question");
    p.send(vec![key(' '), key('k')]);
    assert!(p.app.question.is_none(), "old-order was answered already");
    p.send(vec![key('j')]);
    assert!(p.app.question.is_none(), "wrong-id was skipped with space");
}

#[test]
fn player_no_predict_plays_the_starter_at_once() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, Options { predict: false, ..options(STARTER) }, 100, 30);
    assert!(p.app.question.is_none());
    p.send(vec![to_the_end()]);
    assert!(p.app.finished());
    assert!(p.screen().contains("Tried 3 times. 2 retries could not have helped."), "{}", p.screen());
}

#[test]
fn player_code_switch_cycles_and_skips_yours_before_start() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, Options { predict: false, ..options(STRUCTURED) }, 100, 30);
    p.keys("c");
    assert_eq!(p.app.code, STARTER, "yours is skipped: there is no work file yet");
    let screen = p.screen();
    assert!(screen.contains("yours skipped"), "the status line says why:\n{screen}");
    insta::assert_snapshot!("player_code_starter_yours_skipped", screen);
}

#[test]
fn player_code_yours_replays_the_learners_file() {
    let ws = Workshop::new();
    ws.write("work/structured-errors/errors.py", &solution_file());
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, Options { predict: false, ..options(STRUCTURED) }, 100, 30);
    p.keys("c");
    assert_eq!(p.app.code, YOURS);
    p.send(vec![to_the_end()]);
    let screen = p.screen();
    assert!(screen.contains("[yours]"), "the switch shows yours chosen:\n{screen}");
    insta::assert_snapshot!("player_code_yours", screen);
}

#[test]
fn player_code_yours_picks_up_a_save_while_it_runs() {
    let ws = Workshop::new();
    ws.write("work/structured-errors/errors.py", &solution_file());
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, Options { predict: false, ..options(YOURS) }, 100, 30);
    p.send(vec![to_the_end()]);
    assert!(p.screen().contains("Tried once"), "{}", p.screen());
    // A save with a new modification time: the next replay loads the new version.
    std::thread::sleep(Duration::from_millis(20));
    ws.write("work/structured-errors/errors.py", &starter_file());
    p.send(vec![key('j'), key('k'), to_the_end()]);
    assert!(p.screen().contains("Tried 3 times"), "{}", p.screen());
}

#[test]
fn player_runtime_sdk() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STRUCTURED), 100, 30);
    p.send(vec![key('r'), to_the_end()]);
    assert_eq!(p.app.runtime, Runtime::Sdk);
    let screen = p.screen();
    assert!(screen.contains("[sdk]"), "the switch shows sdk chosen:\n{screen}");
    insta::assert_snapshot!("player_runtime_sdk", screen);
}

#[test]
fn player_compare_marks_where_the_runs_split() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, Options { predict: false, ..options(STRUCTURED) }, 100, 45);
    p.send(vec![key('s'), to_the_end()]);
    let screen = p.screen();
    assert!(screen.contains("the runs split here"), "{screen}");
    assert!(screen.contains("── starter ──") && screen.contains("── structured ──"), "{screen}");
    insta::assert_snapshot!("player_compare", screen);
}

#[test]
fn player_expand_shows_the_raw_json_of_the_selected_card() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STRUCTURED), 100, 40);
    p.send(vec![to_the_end(), key('e')]);
    let screen = p.screen();
    assert!(screen.contains("\"errorCategory\": \"business\""), "{screen}");
    insta::assert_snapshot!("player_expanded", screen);
    p.keys("e");
    assert!(!p.screen().contains("\"errorCategory\""), "e again folds it");
}

#[test]
fn player_help_lists_every_key() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STRUCTURED), 100, 30);
    p.keys("?");
    let screen = p.screen();
    for key in ["← → or j k", "space", "q, Esc, Ctrl-C", "raw JSON"] {
        assert!(screen.contains(key), "help lists {key}:\n{screen}");
    }
    insta::assert_snapshot!("player_help", screen);
    p.keys("x");
    assert!(!p.app.help, "any key closes the help");
}

#[test]
fn player_too_small_says_the_size_it_needs() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let p = Player::new(&ctx, options(STRUCTURED), 44, 10);
    let screen = p.screen();
    assert!(screen.contains("44×10") && screen.contains("50×14"), "{screen}");
    insta::assert_snapshot!("player_too_small", screen);
}

#[test]
fn player_narrow_terminal() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STARTER), 60, 20);
    insta::assert_snapshot!("player_narrow_predict", p.screen());
    p.send(vec![key('3'), to_the_end()]);
    insta::assert_snapshot!("player_narrow_end", p.screen());
}

#[test]
fn player_wide_terminal_lists_the_tickets() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STRUCTURED), 140, 45);
    p.send(vec![key('j'), key('j'), key('j'), to_the_end()]);
    let screen = p.screen();
    assert!(screen.contains("Tickets") && screen.contains("› flaky-payment"), "{screen}");
    insta::assert_snapshot!("player_wide", screen);
}

#[test]
fn player_a_ticket_without_recordings_says_why() {
    let ws = Workshop::new();
    std::fs::remove_file(ws.path("recordings/structured-errors/sdk/old-order.jsonl")).unwrap();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STRUCTURED), 100, 24);
    p.keys("r");
    let screen = p.screen();
    assert!(screen.contains("This ticket could not be replayed"), "{screen}");
    assert!(screen.contains("old-order.jsonl"), "it names the missing file:\n{screen}");
    p.keys("r");
    assert!(p.app.show.is_ok(), "the harness recordings are still there");
}

// ---- the event loop --------------------------------------------------------------------------

#[test]
fn player_quits_on_q_esc_and_ctrl_c_and_reads_nothing_after() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    for quit in [key('q'), special(KeyCode::Esc), ctrl('c')] {
        let mut p = Player::new(&ctx, options(STRUCTURED), 100, 24);
        p.send(vec![quit.clone(), key('j'), key('j')]);
        assert_eq!(p.app.ticket, 0, "{quit:?} ended the loop before the next keys");
    }
}

#[test]
fn player_ticket_keys_move_and_wrap() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STRUCTURED), 100, 24);
    let n = p.app.source.tickets().len();
    p.send(vec![key('j'), special(KeyCode::Right)]);
    assert_eq!(p.app.ticket, 2);
    p.send(vec![key('k'), special(KeyCode::Left), special(KeyCode::Left)]);
    assert_eq!(p.app.ticket, n - 1, "← from the first ticket goes to the last");
    p.keys("j");
    assert_eq!(p.app.ticket, 0);
}

#[test]
fn player_reveals_cards_in_time_paced_by_speed() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STRUCTURED), 100, 24);
    p.send(vec![tick(400)]);
    assert_eq!(p.app.shown, 1, "the customer's card stays alone for a moment");
    p.send(vec![tick(400)]);
    assert_eq!(p.app.shown, 2);
    p.keys("++");
    assert_eq!(p.app.speed, 4.0);
    // At 4×, 200 ms of real time is 800 ms of replay: the next card.
    p.send(vec![tick(200)]);
    assert_eq!(p.app.shown, 3);
    p.keys("---");
    assert_eq!(p.app.speed, 0.5);
}

#[test]
fn player_space_pauses_and_steps_move_one_card() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STRUCTURED), 100, 24);
    p.send(vec![key(' '), tick(5000)]);
    assert!(p.app.paused);
    assert_eq!(p.app.shown, 1, "paused: time does not reveal");
    p.keys("..");
    assert_eq!(p.app.shown, 3);
    p.keys(",");
    assert_eq!(p.app.shown, 2);
    p.send(vec![key(' '), to_the_end()]);
    assert!(p.app.finished());
    p.keys(" ");
    assert_eq!(p.app.shown, 1, "space at the end plays again");
    assert!(!p.app.paused);
}

#[test]
fn player_changing_a_switch_replays_from_the_start() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, Options { predict: false, ..options(STRUCTURED) }, 100, 24);
    for switch in ['r', 's', 'c', 'j'] {
        p.send(vec![to_the_end()]);
        assert!(p.app.finished());
        p.send(vec![key(switch)]);
        assert_eq!(p.app.shown, 1, "after {switch} the replay starts again");
        assert!(!p.app.finished());
    }
}

#[test]
fn player_redraws_at_the_new_size_on_resize() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STRUCTURED), 100, 30);
    p.term.backend_mut().resize(60, 20);
    p.send(vec![Msg::Resize(60, 20)]);
    let screen = p.screen();
    assert_eq!(screen.lines().count(), 20);
    assert!(screen.lines().all(|l| l.chars().count() == 62), "60 columns and the quotes:\n{screen}");
    assert!(screen.contains("Replies:"), "{screen}");
    p.term.backend_mut().resize(30, 8);
    p.send(vec![Msg::Resize(30, 8)]);
    assert!(p.screen().contains("30×8"), "{}", p.screen());
}

// ---- benchmark (not a timed test: run it to see the figures) ----------------------------------

/// Key press to a finished redraw, on the render path: `update` plus `draw` into a terminal
/// backend whose output is produced and dropped. `cargo test --release --test player -- --ignored --nocapture`
#[test]
#[ignore]
fn bench_key_to_redraw() {
    use ratatui::backend::CrosstermBackend;
    use ratatui::layout::Rect;
    use ratatui::{TerminalOptions, Viewport};

    let ws = Workshop::new();
    let ctx = context(&ws);
    for (w, h) in [(60u16, 20u16), (140, 45)] {
        // A fresh session per size: no Python started and no replay cached yet.
        let lesson = ctx.lesson(Some("structured-errors")).unwrap();
        let mut source = LessonSource::new(&ctx, lesson, Duration::from_secs(2), None);
        // As `watch` does before it takes over the screen.
        let began = Instant::now();
        source.warm();
        println!("start-up at {w}x{h}: Python for every code in {:.0} ms", began.elapsed().as_secs_f64() * 1e3);
        let mut app = App::new(source, Options { predict: false, ..options(STRUCTURED) });
        // The escape sequences are produced as for a terminal, then dropped.
        let backend = CrosstermBackend::new(std::io::sink());
        let viewport = Viewport::Fixed(Rect::new(0, 0, w, h));
        let mut term = Terminal::with_options(backend, TerminalOptions { viewport }).unwrap();
        let theme = Theme::new(Styles::colored(), Glyphs::UNICODE);
        // Every ticket in both runtimes and two codes: the first time, a key that changes the
        // replay runs it (Python and the recordings); after that it comes from the cache.
        let mut cold = Vec::new();
        for c in "jjjjjjrjjjjjjcjjjjjjrjjjjjj".chars() {
            let began = Instant::now();
            if app.update(key(c)) == Flow::Redraw {
                term.draw(|frame| player::ui::draw(frame, &app, &theme)).unwrap();
            }
            cold.push(began.elapsed());
        }
        cold.sort();
        println!(
            "key -> redraw at {w}x{h}, a replay not seen before in the session: median {:.2} ms, max {:.2} ms over {} keys",
            cold[cold.len() / 2].as_secs_f64() * 1e3,
            cold.last().unwrap().as_secs_f64() * 1e3,
            cold.len()
        );
        let script = "  ..,e.e+-  jkjk".repeat(20);
        let mut times = Vec::new();
        for c in script.chars() {
            let began = Instant::now();
            if app.update(key(c)) == Flow::Redraw {
                term.draw(|frame| player::ui::draw(frame, &app, &theme)).unwrap();
            }
            times.push(began.elapsed());
        }
        times.sort();
        let median = times[times.len() / 2];
        let p95 = times[times.len() * 95 / 100];
        println!(
            "key -> redraw at {w}x{h}: median {:.2} ms, p95 {:.2} ms, max {:.2} ms over {} keys (target: one frame, 16 ms)",
            median.as_secs_f64() * 1e3,
            p95.as_secs_f64() * 1e3,
            times.last().unwrap().as_secs_f64() * 1e3,
            times.len()
        );
    }
}
