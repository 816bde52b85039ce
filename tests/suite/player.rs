//! The player of `watch`: its screens as `TestBackend` snapshots (plain styles), and its event
//! loop driven by scripted keys, ticks and resizes, with the real lesson, Python and recordings.
//! Replays are computed on the player's worker thread: after each scripted message the tests
//! feed the loop the replays it waits for, so every script runs the same way every time.

use crate::common::*;

use std::path::Path;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

use workshop::testing::player::{self, App, Flow, LessonSource, Msg, Options, Source, Theme};
use workshop::testing::{Context, Glyphs, Runtime, Styles};

fn context(ws: &Workshop) -> Context {
    // Nothing this process starts may write to the real cache: with no folder it can write to,
    // the runner is compiled at each start and the world's host is kept in memory, as in the
    // sandbox's tests.
    workshop::testing::cache_in(std::path::Path::new("/proc/no-cache-here/workshop"));
    Context {
        root: ws.root().to_path_buf(),
        cwd: ws.root().to_path_buf(),
        styles: Styles::plain(),
        glyphs: Glyphs::UNICODE,
        width: 80,
        stdout_terminal: false,
        stdin_terminal: false,
        command: "watch",
    }
}

const STARTER: usize = 0;
const STRUCTURED: usize = 1;
const YOURS: usize = 2;

fn options(code: usize) -> Options {
    Options {
        code,
        runtime: Runtime::Harness,
        compare: false,
        speed: 1.0,
        predict: true,
        expand: false,
    }
}

/// A player on a test terminal.
struct Player<'c> {
    app: App<LessonSource<'c>>,
    term: Terminal<TestBackend>,
    /// Where the worker sends finished replays (the player's channel, in a terminal).
    results: Receiver<Msg>,
    quit: bool,
}

impl<'c> Player<'c> {
    /// A player whose first replay has arrived.
    fn new(ctx: &'c Context, options: Options, width: u16, height: u16) -> Player<'c> {
        let mut p = Player::starting(ctx, options, width, height, Duration::from_secs(2));
        p.send(vec![]);
        p
    }

    /// A player of another lesson whose first replay has arrived.
    fn of(ctx: &'c Context, lesson: &str, options: Options, width: u16, height: u16) -> Player<'c> {
        let mut p =
            Player::starting_lesson(ctx, lesson, options, width, height, Duration::from_secs(2));
        p.send(vec![]);
        p
    }

    /// A player that has asked for its first replay, with this deadline per call.
    fn starting(
        ctx: &'c Context,
        options: Options,
        width: u16,
        height: u16,
        limit: Duration,
    ) -> Player<'c> {
        Player::starting_lesson(ctx, "structured-errors", options, width, height, limit)
    }

    fn starting_lesson(
        ctx: &'c Context,
        lesson: &str,
        options: Options,
        width: u16,
        height: u16,
        limit: Duration,
    ) -> Player<'c> {
        let lesson = ctx.lesson(Some(lesson)).expect("the lesson loads");
        let (tx, results) = mpsc::channel();
        let source = LessonSource::new(ctx, lesson, limit, None, tx).expect("the worker starts");
        let app = App::new(source, options);
        let term = Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
        Player { app, term, results, quit: false }
    }

    /// Run the event loop over these messages (it draws first, then after every change); after
    /// each one, wait for the replays it asked for and run the loop over them too.
    fn send(&mut self, msgs: Vec<Msg>) {
        self.drive(vec![]);
        self.settle();
        for msg in msgs {
            if self.quit {
                return;
            }
            self.drive(vec![msg]);
            self.settle();
        }
    }

    fn drive(&mut self, msgs: Vec<Msg>) {
        let quit = player::drive(&mut self.app, &mut self.term, &Theme::plain(), msgs)
            .expect("drawing never fails");
        self.quit |= quit;
    }

    /// Feed the loop the worker's results until the screen waits for none.
    fn settle(&mut self) {
        while self.app.replaying() && !self.quit {
            let result = self.next_result();
            self.drive(vec![result]);
        }
    }

    fn next_result(&self) -> Msg {
        self.results.recv_timeout(Duration::from_secs(60)).expect("the worker sends the replay")
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
    let ws = Workshop::lesson5();
    let ctx = context(&ws);
    let p = Player::new(&ctx, options(STRUCTURED), 100, 24);
    let screen = p.screen();
    assert!(
        screen.contains("Replies:"),
        "the header always says where the replies come from:\n{screen}"
    );
    assert_eq!(p.app.shown, 1);
    insta::assert_snapshot!("player_opened", screen);
}

#[test]
fn player_structured_replay_at_its_end() {
    let ws = Workshop::lesson5();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STRUCTURED), 100, 30);
    p.send(vec![to_the_end()]);
    assert!(p.app.finished());
    insta::assert_snapshot!("player_structured_end", p.screen());
}

#[test]
fn player_starter_asks_to_predict_before_it_plays() {
    let ws = Workshop::lesson5();
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
    let ws = Workshop::lesson5();
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
    let ws = Workshop::lesson5();
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
    let ws = Workshop::lesson5();
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
fn player_remembers_an_answer_when_the_ticket_comes_back() {
    let ws = Workshop::lesson5();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STARTER), 100, 30);
    p.send(vec![key('3'), to_the_end()]);
    assert!(p.screen().contains("Right: you said three times"), "{}", p.screen());
    // Away to the next ticket (its question skipped) and back: not asked again, and the
    // answer given is judged again under the verdict.
    p.send(vec![key('j'), key(' '), key('k')]);
    assert!(p.app.question.is_none(), "{}", p.screen());
    p.send(vec![to_the_end()]);
    let screen = p.screen();
    assert!(screen.contains("Your guess"), "{screen}");
    assert!(screen.contains("Right: you said three times, and it ran three times."), "{screen}");
    // Playing it again keeps it too.
    p.send(vec![key(' '), to_the_end()]);
    assert!(p.screen().contains("Right: you said three times"), "{}", p.screen());
}

#[test]
fn player_says_when_a_ticket_does_not_run_in_a_runtime() {
    let ws = Workshop::lesson5();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, Options { predict: false, ..options(STRUCTURED) }, 100, 30);
    // coordinator, the sixth ticket, runs only in the harness runtime.
    p.send(vec![special(KeyCode::Left)]);
    assert_eq!(p.app.ticket_id(), "coordinator");
    p.send(vec![key('r')]);
    let screen = p.screen();
    assert!(screen.contains("The ticket coordinator runs only in the harness runtime"), "{screen}");
    assert!(!screen.contains("missing") && !screen.contains("Restore"), "{screen}");
    // Back to the harness, it replays.
    p.send(vec![key('r'), to_the_end()]);
    assert!(p.screen().contains("Verdict"), "{}", p.screen());
}

#[test]
fn player_asks_a_tickets_own_question_from_the_lesson_and_judges_it_by_the_run() {
    let ws = Workshop::new();
    let ctx = context(&ws);
    let mut p = Player::of(&ctx, "uncertain-state", options(STARTER), 100, 30);
    let screen = p.screen();
    assert!(screen.contains("how much is Hana paid back in all?"), "{screen}");
    assert!(screen.contains("458.00: the refund is paid twice"), "{screen}");
    insta::assert_snapshot!("player_ticket_question", screen);
    p.send(vec![key('2'), to_the_end()]);
    assert!(p.screen().contains("Right: 458.00: the refund is paid twice."), "{}", p.screen());
    // A question about the fix is asked before the fix's run: dropped-request.
    let mut p = Player::of(&ctx, "uncertain-state", options(STRUCTURED), 100, 30);
    assert!(p.app.question.is_none(), "lost-confirmation asks about the starter's run");
    p.send(vec![key('j')]);
    assert_eq!(p.app.ticket_id(), "dropped-request");
    let screen = p.screen();
    assert!(screen.contains("what happens after the first refund attempt fails?"), "{screen}");
    assert!(screen.contains("next_step answers verify"), "the fix's own context:\n{screen}");
    p.send(vec![key('1'), to_the_end()]);
    let screen = p.screen();
    assert!(
        flat(&screen)
            .contains("Not this time: you said the refund is sent again at once; the run shows find_refund runs first"),
        "{screen}"
    );
    // In the SDK runtime the same ticket asks again: its run is another.
    p.send(vec![key('r')]);
    assert!(p.app.question.is_some(), "{}", p.screen());
}

/// A screen's text with the box borders and the wrapping undone.
fn flat(screen: &str) -> String {
    screen.replace(['│', '"'], " ").split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn player_no_predict_plays_the_starter_at_once() {
    let ws = Workshop::lesson5();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, Options { predict: false, ..options(STARTER) }, 100, 30);
    assert!(p.app.question.is_none());
    p.send(vec![to_the_end()]);
    assert!(p.app.finished());
    assert!(
        p.screen().contains("Tried 3 times. 2 retries could not have helped."),
        "{}",
        p.screen()
    );
}

#[test]
fn player_code_switch_cycles_and_skips_yours_before_start() {
    let ws = Workshop::lesson5();
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
    let ws = Workshop::lesson5();
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
    let ws = Workshop::lesson5();
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
    let ws = Workshop::lesson5();
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
    let ws = Workshop::lesson5();
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
    let ws = Workshop::lesson5();
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
    let ws = Workshop::lesson5();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STRUCTURED), 100, 30);
    p.keys("?");
    let screen = p.screen();
    for key in ["← → ↑ ↓ or j k", "space", "q, Esc, Ctrl-C", "raw JSON"] {
        assert!(screen.contains(key), "help lists {key}:\n{screen}");
    }
    insta::assert_snapshot!("player_help", screen);
    p.keys("x");
    assert!(!p.app.help, "any key closes the help");
}

#[test]
fn player_too_small_says_the_size_it_needs() {
    let ws = Workshop::lesson5();
    let ctx = context(&ws);
    let p = Player::new(&ctx, options(STRUCTURED), 44, 10);
    let screen = p.screen();
    assert!(screen.contains("44×10") && screen.contains("50×14"), "{screen}");
    insta::assert_snapshot!("player_too_small", screen);
}

#[test]
fn player_narrow_terminal() {
    let ws = Workshop::lesson5();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STARTER), 60, 20);
    insta::assert_snapshot!("player_narrow_predict", p.screen());
    p.send(vec![key('3'), to_the_end()]);
    insta::assert_snapshot!("player_narrow_end", p.screen());
}

#[test]
fn player_wide_terminal_lists_the_tickets() {
    let ws = Workshop::lesson5();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STRUCTURED), 140, 45);
    p.send(vec![key('j'), key('j'), key('j'), to_the_end()]);
    let screen = p.screen();
    assert!(screen.contains("Tickets") && screen.contains("› flaky-payment"), "{screen}");
    insta::assert_snapshot!("player_wide", screen);
}

#[test]
fn player_a_ticket_without_recordings_says_why() {
    let ws = Workshop::lesson5();
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
    let ws = Workshop::lesson5();
    let ctx = context(&ws);
    for quit in [key('q'), special(KeyCode::Esc), ctrl('c')] {
        let mut p = Player::new(&ctx, options(STRUCTURED), 100, 24);
        p.send(vec![quit.clone(), key('j'), key('j')]);
        assert_eq!(p.app.ticket, 0, "{quit:?} ended the loop before the next keys");
    }
}

#[test]
fn player_ticket_keys_move_and_wrap() {
    let ws = Workshop::lesson5();
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
    let ws = Workshop::lesson5();
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
    let ws = Workshop::lesson5();
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
    let ws = Workshop::lesson5();
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
    let ws = Workshop::lesson5();
    let ctx = context(&ws);
    let mut p = Player::new(&ctx, options(STRUCTURED), 100, 30);
    p.term.backend_mut().resize(60, 20);
    p.send(vec![Msg::Resize(60, 20)]);
    let screen = p.screen();
    assert_eq!(screen.lines().count(), 20);
    assert!(
        screen.lines().all(|l| l.chars().count() == 62),
        "60 columns and the quotes:\n{screen}"
    );
    assert!(screen.contains("Replies:"), "{screen}");
    p.term.backend_mut().resize(30, 8);
    p.send(vec![Msg::Resize(30, 8)]);
    assert!(p.screen().contains("30×8"), "{}", p.screen());
}

// ---- a learner's file that loops forever -----------------------------------------------------

/// A learner's file whose `fail` never returns; it writes its process id to `marker` first, so a
/// test knows the worker is inside the endless call, and which process it is.
fn looping_file(marker: &Path) -> String {
    format!(
        "import os\n\n\ndef fail(category, message):\n    with open({marker:?} + '.tmp', 'w') as out:\n        out.write(str(os.getpid()))\n    os.rename({marker:?} + '.tmp', {marker:?})\n    while True:\n        pass\n\n\ndef should_retry(error):\n    return True\n"
    )
}

fn wait_for(marker: &Path) {
    let until = Instant::now() + Duration::from_secs(60);
    while !marker.exists() {
        assert!(Instant::now() < until, "the replay never reached the looping call");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn player_quits_at_once_while_a_looping_file_replays_and_leaves_no_python() {
    let ws = Workshop::lesson5();
    let marker = ws.path("fail-was-called");
    ws.write("work/structured-errors/errors.py", &looping_file(&marker));
    let ctx = context(&ws);
    // A deadline far longer than the test: waiting for it anywhere would show.
    let limit = Duration::from_secs(120);
    let mut p =
        Player::starting(&ctx, Options { predict: false, ..options(YOURS) }, 100, 24, limit);
    wait_for(&marker);
    p.drive(vec![key('j')]);
    assert_eq!(p.app.ticket, 1, "a key is handled while the replay runs");
    let screen = p.screen();
    assert!(
        screen.contains("replaying with yours"),
        "the status says what is being replayed:\n{screen}"
    );
    p.drive(vec![key('q'), key('k')]);
    assert!(p.quit);
    assert_eq!(p.app.ticket, 1, "q ended the loop before the next key");
    assert!(p.app.replaying());
    assert!(
        matches!(p.results.try_recv(), Err(TryRecvError::Empty)),
        "the loop returned after q before the worker finished"
    );
    let worker = pid_in(&marker);
    assert!(alive(worker), "until the player goes, Python is in the endless call");
    let began = Instant::now();
    drop(p);
    assert!(began.elapsed() < limit / 4, "the player went without waiting out the call's deadline");
    eventually("the Python running the learner's file to end with the player", || !alive(worker));
}

#[test]
fn player_a_switch_during_a_slow_replay_wins_over_the_stale_result() {
    let ws = Workshop::lesson5();
    let marker = ws.path("fail-was-called");
    ws.write("work/structured-errors/errors.py", &looping_file(&marker));
    let ctx = context(&ws);
    // A short deadline, so the stale replay with yours ends after a few calls.
    let limit = Duration::from_millis(300);
    let mut p =
        Player::starting(&ctx, Options { predict: false, ..options(YOURS) }, 100, 30, limit);
    wait_for(&marker);
    p.drive(vec![key('c')]);
    assert_eq!(p.app.code, STARTER, "from yours, c goes round to the starter");
    assert!(p.screen().contains("replaying with starter"), "{}", p.screen());
    // The worker runs one replay at a time: the one with yours, asked for first, comes first.
    let stale = p.next_result();
    assert!(matches!(&stale, Msg::Replayed(r) if r.key.code == YOURS), "{stale:?}");
    p.drive(vec![stale]);
    assert!(p.app.replaying(), "the stale replay is not shown");
    assert!(p.screen().contains("replaying with starter"), "{}", p.screen());
    let fresh = p.next_result();
    p.drive(vec![fresh]);
    assert!(!p.app.replaying());
    p.send(vec![to_the_end()]);
    assert_eq!(p.app.show.as_ref().map(|s| s.runs[0].code.as_str()), Ok("starter"));
    let screen = p.screen();
    assert!(screen.contains("[starter]") && screen.contains("Tried 3 times"), "{screen}");
}

// ---- benchmark (not a timed test: run it to see the figures) ----------------------------------

/// Key press to a finished redraw, on the render path: `update` plus `draw` into a terminal
/// backend whose output is produced and dropped. `cargo test --release --test suite player::bench_ -- --ignored --nocapture`
#[test]
#[ignore]
fn bench_key_to_redraw() {
    use ratatui::backend::CrosstermBackend;
    use ratatui::layout::Rect;
    use ratatui::{TerminalOptions, Viewport};

    let ws = Workshop::lesson5();
    let ctx = context(&ws);
    for (w, h) in [(60u16, 20u16), (140, 45)] {
        let (mut app, results) = bench_start(&ctx, w, h);
        // The escape sequences are produced as for a terminal, then dropped.
        let backend = CrosstermBackend::new(std::io::sink());
        let viewport = Viewport::Fixed(Rect::new(0, 0, w, h));
        let mut term = Terminal::with_options(backend, TerminalOptions { viewport }).unwrap();
        let theme = Theme::new(Styles::colored(), Glyphs::UNICODE);
        // Every ticket in both runtimes and two codes: the first time, a key that changes the
        // replay has the worker run it (Python and the recordings), and the figure is the time
        // until it is drawn; after that it comes from the cache.
        let mut cold =
            bench_keys(&mut app, Some(&results), &mut term, &theme, "jjjjjjrjjjjjjcjjjjjjrjjjjjj");
        cold.sort();
        println!(
            "key -> redraw at {w}x{h}, a replay not seen before in the session: median {:.2} ms, max {:.2} ms over {} keys",
            cold[cold.len() / 2].as_secs_f64() * 1e3,
            cold.last().unwrap().as_secs_f64() * 1e3,
            cold.len()
        );
        let mut times =
            bench_keys(&mut app, None, &mut term, &theme, &"  ..,e.e+-  jkjk".repeat(20));
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

/// A fresh player session for the benchmark: no Python started and no replay cached yet. The
/// worker starts Python for every code, then computes the first replay.
fn bench_start<'c>(ctx: &'c Context, w: u16, h: u16) -> (App<LessonSource<'c>>, Receiver<Msg>) {
    let lesson = ctx.lesson(Some("structured-errors")).unwrap();
    let (tx, results) = mpsc::channel();
    let began = Instant::now();
    let source = LessonSource::new(ctx, lesson, Duration::from_secs(2), None, tx).unwrap();
    let mut app = App::new(source, Options { predict: false, ..options(STRUCTURED) });
    while app.replaying() {
        app.update(results.recv().unwrap());
    }
    println!(
        "start-up at {w}x{h}: Python for every code and the first replay in {:.0} ms",
        began.elapsed().as_secs_f64() * 1e3
    );
    (app, results)
}

/// How long each key of `script` takes from the press to a finished redraw; with `results`,
/// until the replay it asked for arrived and was drawn.
fn bench_keys<B: ratatui::backend::Backend>(
    app: &mut App<LessonSource<'_>>,
    results: Option<&Receiver<Msg>>,
    term: &mut Terminal<B>,
    theme: &Theme,
    script: &str,
) -> Vec<Duration> {
    let mut times = Vec::new();
    for c in script.chars() {
        let began = Instant::now();
        let mut flow = app.update(key(c));
        while let Some(results) = results.filter(|_| app.replaying()) {
            flow = app.update(results.recv().unwrap());
        }
        if flow == Flow::Redraw {
            term.draw(|frame| player::draw(frame, app, theme)).unwrap();
        }
        times.push(began.elapsed());
    }
    times
}
