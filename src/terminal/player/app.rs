//! The player's state and everything that changes it. One message in, the new state out: no
//! terminal here, so tests drive it with scripted keys and ticks.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use crossterm::event::{Event as TermEvent, KeyEvent};

use crate::lesson::Runtime;
use crate::replay::events::{self, Event, Run, Told};
use crate::terminal::player::keys::{self, KeyAction};
use crate::terminal::player::predict::{Guess, Question};
use crate::terminal::player::source::{Key, Prediction, Replayed, Source};
use crate::terminal::player::unplayable::Unplayable;

/// Everything the event loop reacts to, from the key reader, the ticker, resizes and the worker
/// that computes replays.
#[derive(Clone, Debug)]
pub enum Msg {
    Key(KeyEvent),
    Resize(u16, u16),
    /// Time passed: this much since the last tick.
    Tick(Duration),
    /// A replay the worker finished; maybe one asked for before the last switch.
    Replayed(Box<Replayed>),
}

impl Msg {
    /// A terminal event as a message; mouse and focus events are not.
    pub fn from_terminal(ev: TermEvent) -> Option<Msg> {
        match ev {
            TermEvent::Key(key) => Some(Msg::Key(key)),
            TermEvent::Resize(w, h) => Some(Msg::Resize(w, h)),
            _ => None,
        }
    }
}

/// What the loop does after a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Redraw,
    Idle,
    Quit,
}

/// One thing the cards area shows, revealed one at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardItem {
    Event {
        run: usize,
        index: usize,
    },
    /// Compare: where the two runs part.
    Split,
    /// Compare: the start of one run's own part.
    RunHead(usize),
    Verdict(usize),
}

/// The replay (or the two) on screen, laid out as items.
#[derive(Clone, Debug)]
pub struct Show {
    pub runs: Vec<Run>,
    pub split: Option<usize>,
    pub items: Vec<CardItem>,
}

impl Show {
    fn new(runs: Vec<Run>) -> Show {
        let mut items = Vec::new();
        let split = match runs.as_slice() {
            [a, b] => events::split_point(a, b),
            _ => None,
        };
        if runs.len() == 2 {
            let common = split.unwrap_or(runs[0].events.len());
            items.extend(
                (0..common.min(runs[0].events.len()))
                    .map(|index| CardItem::Event { run: 0, index }),
            );
            items.push(CardItem::Split);
            for (run, r) in runs.iter().enumerate() {
                items.push(CardItem::RunHead(run));
                items.extend(
                    (common.min(r.events.len())..r.events.len())
                        .map(|index| CardItem::Event { run, index }),
                );
                items.push(CardItem::Verdict(run));
            }
        } else if let Some(r) = runs.first() {
            items.extend((0..r.events.len()).map(|index| CardItem::Event { run: 0, index }));
            items.push(CardItem::Verdict(0));
        }
        Show { runs, split, items }
    }

    pub fn event(&self, item: CardItem) -> Option<&Event> {
        match item {
            CardItem::Event { run, index } => self.runs.get(run)?.events.get(index),
            _ => None,
        }
    }

    /// The item's event with the story's judgement of it, for its card.
    pub fn told(&self, item: CardItem) -> Option<Told<'_>> {
        match item {
            CardItem::Event { run, index } => self.runs.get(run)?.told_at(index),
            _ => None,
        }
    }

    /// Every event of every run, for the provenance line.
    pub fn all_events(&self) -> Vec<Event> {
        self.runs.iter().flat_map(|r| r.events.iter().cloned()).collect()
    }
}

/// Whether a card has raw JSON that `e` can show.
pub(crate) fn has_raw(event: &Event) -> bool {
    match event {
        Event::ToolCall { .. } | Event::Attempt { .. } | Event::Verify { .. } => true,
        // A turn replayed by kind: both sentences.
        Event::Reply { by_kind, .. } => !by_kind.is_empty(),
        _ => false,
    }
}

/// How long an item stays the newest on screen at speed 1.
pub(crate) fn pace(show: &Show, item: CardItem) -> Duration {
    Duration::from_millis(match item {
        CardItem::Event { .. } => match show.event(item) {
            Some(Event::Customer { .. }) => 700,
            Some(Event::ToolCall { .. }) => 800,
            Some(Event::Attempt { .. }) => 700,
            // The harness's real backoff, so a wait looks like one.
            Some(Event::Wait { ms }) => *ms,
            Some(Event::Reply { .. }) => 900,
            Some(Event::NoRecording { .. } | Event::CodeError { .. }) | None => 300,
            // Kinds of card added later get a reading pause of their own.
            Some(_) => 800,
        },
        CardItem::Split => 1200,
        CardItem::RunHead(_) => 400,
        CardItem::Verdict(_) => 900,
    })
}

/// How the player starts.
#[derive(Clone, Debug)]
pub struct Options {
    pub code: usize,
    pub runtime: Runtime,
    pub compare: bool,
    pub speed: f64,
    pub predict: bool,
    /// Every card's JSON shown from the start (`--expand`).
    pub expand: bool,
}

/// The note for keys that need cards while there are none yet.
const STILL_REPLAYING: &str = "Still replaying: the cards come when it is done.";

pub(crate) const MIN_SPEED: f64 = 0.125;
pub(crate) const MAX_SPEED: f64 = 64.0;

pub struct App<S: Source> {
    pub source: S,
    pub ticket: usize,
    pub code: usize,
    pub runtime: Runtime,
    pub compare: bool,
    /// What is on screen, or why nothing could be replayed.
    pub show: Result<Show, Unplayable>,
    /// While the worker computes: the replays the next show needs, those already here filled.
    pending: Vec<(Key, Option<Run>)>,
    /// How many items are revealed.
    pub shown: usize,
    /// Time spent on the newest item, scaled by speed.
    clock: Duration,
    pub paused: bool,
    pub speed: f64,
    expanded: HashSet<usize>,
    pub expand_all: bool,
    pub help: bool,
    predict: bool,
    /// Tickets (in a runtime) whose question was answered or skipped in this session.
    asked: HashSet<(String, &'static str)>,
    /// The answers given, shown again under the verdict whenever that run is replayed.
    guesses: HashMap<(String, &'static str), Guess>,
    pub question: Option<Question>,
    pub guess: Option<Guess>,
    /// A short message for the status line, until the next key.
    pub note: Option<String>,
}

impl<S: Source> App<S> {
    pub fn new(source: S, options: Options) -> App<S> {
        let mut app = App {
            source,
            ticket: 0,
            code: options.code,
            runtime: options.runtime,
            compare: options.compare,
            show: Err(Unplayable::NotYet),
            pending: Vec::new(),
            shown: 0,
            clock: Duration::ZERO,
            paused: false,
            speed: options.speed.clamp(MIN_SPEED, MAX_SPEED),
            expanded: HashSet::new(),
            expand_all: options.expand,
            help: false,
            predict: options.predict,
            asked: HashSet::new(),
            guesses: HashMap::new(),
            question: None,
            guess: None,
            note: None,
        };
        app.replay();
        app
    }

    /// The codes this replay runs: one, or the starter and the other for compare.
    pub fn codes_to_run(&self) -> Vec<usize> {
        if !self.compare {
            return vec![self.code];
        }
        // Compare sets the starter against the chosen code, or the reference fix when the
        // starter is chosen.
        let other = if self.code == 0 { 1 } else { self.code };
        vec![0, other]
    }

    /// Replay the current ticket with the current switches: at once from the cache, else when
    /// the worker has computed what is missing (see `Msg::Replayed`). The keys work meanwhile.
    pub fn replay(&mut self) {
        let (ticket, runtime) = (self.ticket, self.runtime);
        // A ticket this runtime does not run has no replay to wait for: say so, truthfully.
        if let Some(Err(why)) = self.source.tickets().get(ticket).map(|t| t.runs_in(runtime)) {
            self.source.request(Vec::new());
            self.pending.clear();
            self.present(Err(why));
            return;
        }
        let keys = self.codes_to_run().into_iter().map(|code| Key { ticket, code, runtime });
        self.pending = keys.map(|key| (key, self.source.cached(key))).collect();
        self.guess = None;
        self.question = None;
        let missing: Vec<Key> =
            self.pending.iter().filter(|(_, r)| r.is_none()).map(|(k, _)| *k).collect();
        let ready = missing.is_empty();
        // Asked even when empty: it drops the requests of earlier switches that have not started.
        self.source.request(missing);
        if ready {
            self.present_pending();
        }
    }

    /// Whether the worker is computing what the screen should show.
    pub fn replaying(&self) -> bool {
        !self.pending.is_empty()
    }

    /// A replay arrived: keep it, and show it when the screen waits for it. One asked for
    /// before the last switch is only kept.
    fn arrived(&mut self, done: Replayed) -> Flow {
        self.source.keep(&done);
        let Some(slot) = self.pending.iter().position(|(k, r)| *k == done.key && r.is_none())
        else {
            return Flow::Idle;
        };
        match done.replay {
            Ok(replay) => {
                self.pending[slot].1 = Some(replay);
                if self.pending.iter().all(|(_, r)| r.is_some()) {
                    self.present_pending();
                }
            }
            Err(why) => {
                self.pending.clear();
                self.present(Err(why));
            }
        }
        Flow::Redraw
    }

    fn present_pending(&mut self) {
        let runs = std::mem::take(&mut self.pending).into_iter().filter_map(|(_, r)| r).collect();
        self.present(Ok(runs));
    }

    /// Show these runs and start revealing from the top.
    fn present(&mut self, runs: Result<Vec<Run>, Unplayable>) {
        if self.note.as_deref() == Some(STILL_REPLAYING) {
            self.note = None;
        }
        self.show = runs.map(Show::new);
        self.shown = usize::from(self.show.as_ref().is_ok_and(|s| !s.items.is_empty()));
        self.clock = Duration::ZERO;
        self.paused = false;
        self.expanded.clear();
        self.guess = None;
        self.question = None;
        self.ask();
    }

    /// The question before this replay, or the answer given to it before.
    fn ask(&mut self) {
        let Ok(show) = &self.show else { return };
        if !self.predict {
            return;
        }
        let key = (self.ticket_id().to_string(), self.runtime.name());
        let codes = self.codes_to_run();
        let question = match self.source.prediction(self.ticket, self.runtime) {
            Prediction::Count { ask, context } => {
                (codes[0] == 0).then(|| Question::for_run(&show.runs[0], 0, &ask, &context))
            }
            Prediction::Ticket { code, predict, context } => codes
                .iter()
                .position(|c| *c == code)
                .and_then(|run| Question::for_ticket(show.runs.get(run)?, run, &predict, &context)),
        };
        let Some(question) = question else { return };
        if let Some(guess) = self.guesses.get(&key) {
            self.guess = Some(guess.clone().against(question.run));
        } else if !self.asked.contains(&key) {
            self.question = Some(question);
        }
    }

    pub fn ticket_id(&self) -> &str {
        self.source.tickets().get(self.ticket).map(|t| t.id.as_str()).unwrap_or("")
    }

    pub fn items(&self) -> &[CardItem] {
        self.show.as_ref().map(|s| s.items.as_slice()).unwrap_or(&[])
    }

    pub fn finished(&self) -> bool {
        self.shown >= self.items().len()
    }

    /// The card `e` acts on: the newest revealed card that carries raw JSON.
    pub fn selected(&self) -> Option<usize> {
        let show = self.show.as_ref().ok()?;
        (0..self.shown).rev().find(|&i| show.event(show.items[i]).is_some_and(has_raw))
    }

    pub fn is_expanded(&self, item: usize) -> bool {
        self.expand_all != self.expanded.contains(&item)
    }

    /// Whether the judgement of a guess is due: the predicted run's verdict is on screen.
    pub fn judged(&self) -> Option<&Guess> {
        let guess = self.guess.as_ref()?;
        self.items()[..self.shown].contains(&CardItem::Verdict(guess.run)).then_some(guess)
    }

    /// Let time pass: reveal what is due. True when something new is on screen.
    fn advance(&mut self, dt: Duration) -> bool {
        if self.paused
            || self.help
            || self.question.is_some()
            || self.replaying()
            || self.finished()
        {
            return false;
        }
        let Ok(show) = &self.show else { return false };
        self.clock += dt.mul_f64(self.speed);
        let before = self.shown;
        while self.shown < show.items.len() {
            let due = pace(show, show.items[self.shown - 1]);
            if self.clock < due {
                break;
            }
            self.clock -= due;
            self.shown += 1;
        }
        self.shown != before
    }

    pub fn update(&mut self, msg: Msg) -> Flow {
        match msg {
            Msg::Tick(dt) => {
                if self.advance(dt) {
                    Flow::Redraw
                } else {
                    Flow::Idle
                }
            }
            Msg::Resize(..) => Flow::Redraw,
            Msg::Replayed(done) => self.arrived(*done),
            Msg::Key(key) => match keys::action(key) {
                Some(action) => self.act(action),
                None => Flow::Idle,
            },
        }
    }

    fn act(&mut self, action: KeyAction) -> Flow {
        if action == KeyAction::Quit {
            return Flow::Quit;
        }
        self.note = None;
        if self.help {
            // Any key closes the help; only `?` and quitting mean anything there.
            self.help = false;
            return Flow::Redraw;
        }
        if let Some(flow) = self.answer(action) {
            return flow;
        }
        if self.replaying()
            && matches!(
                action,
                KeyAction::Pause
                    | KeyAction::Step
                    | KeyAction::StepBack
                    | KeyAction::Expand
                    | KeyAction::Answer(_)
            )
        {
            self.note = Some(STILL_REPLAYING.into());
            return Flow::Redraw;
        }
        self.apply(action)
    }

    /// A key while a question is open: an answer, a skip, or a note to answer first. `None`:
    /// no question is open, or the key means what it always does.
    fn answer(&mut self, action: KeyAction) -> Option<Flow> {
        let question = self.question.as_ref()?;
        match action {
            KeyAction::Answer(key) => match question.answer(key) {
                Some(guess) => {
                    let asked = (question.ticket.clone(), self.runtime.name());
                    self.asked.insert(asked.clone());
                    self.guesses.insert(asked, guess.clone());
                    self.guess = Some(guess);
                    self.question = None;
                    self.clock = Duration::ZERO;
                }
                None => self.note = Some(format!("Answer with {}.", question.keys())),
            },
            KeyAction::Pause => {
                // Skip the question: watch without guessing.
                self.asked.insert((question.ticket.clone(), self.runtime.name()));
                self.question = None;
            }
            KeyAction::Step
            | KeyAction::StepBack
            | KeyAction::Expand
            | KeyAction::Faster
            | KeyAction::Slower => {
                self.note =
                    Some(format!("Answer first with {}, or press space to skip.", question.keys()));
            }
            _ => return None,
        }
        Some(Flow::Redraw)
    }

    /// What a key does to the replay on screen.
    fn apply(&mut self, action: KeyAction) -> Flow {
        match action {
            KeyAction::Quit => return Flow::Quit,
            KeyAction::PreviousTicket | KeyAction::NextTicket => {
                let n = self.source.tickets().len().max(1);
                self.ticket = if action == KeyAction::NextTicket {
                    (self.ticket + 1) % n
                } else {
                    (self.ticket + n - 1) % n
                };
                self.replay();
            }
            KeyAction::Code => self.next_code(),
            KeyAction::Runtime => {
                self.runtime = match self.runtime {
                    Runtime::Harness => Runtime::Sdk,
                    Runtime::Sdk => Runtime::Harness,
                };
                self.replay();
            }
            KeyAction::Compare => {
                self.compare = !self.compare;
                self.replay();
            }
            KeyAction::Pause | KeyAction::Step | KeyAction::StepBack => self.step(action),
            KeyAction::Faster => self.speed = (self.speed * 2.0).min(MAX_SPEED),
            KeyAction::Slower => self.speed = (self.speed / 2.0).max(MIN_SPEED),
            KeyAction::Expand => match self.selected() {
                Some(item) => {
                    if !self.expanded.remove(&item) {
                        self.expanded.insert(item);
                    }
                }
                None => {
                    self.note = Some(
                        "No tool call or attempt on screen yet: its raw JSON is what e shows."
                            .into(),
                    )
                }
            },
            KeyAction::Help => self.help = true,
            KeyAction::Answer(_) => {
                self.note = Some("No question is open. Press ? for the keys.".into())
            }
            KeyAction::Other => self.note = Some("Press ? for the keys.".into()),
        }
        Flow::Redraw
    }

    /// Pause (or replay a finished show from the top), or step one card on or back.
    fn step(&mut self, action: KeyAction) {
        match action {
            KeyAction::Pause if self.finished() => {
                self.shown = self.shown.min(1);
                self.clock = Duration::ZERO;
                self.paused = false;
            }
            KeyAction::Pause => self.paused = !self.paused,
            KeyAction::Step => {
                self.paused = true;
                self.shown = (self.shown + 1).min(self.items().len());
                self.clock = Duration::ZERO;
            }
            _ => {
                self.paused = true;
                self.shown = self.shown.saturating_sub(1).max(1).min(self.items().len());
                self.clock = Duration::ZERO;
            }
        }
    }

    /// The next code that can run; a code that cannot (yours before `start`) is skipped, and
    /// the status line says why.
    fn next_code(&mut self) {
        let n = self.source.codes().len();
        let mut next = self.code;
        for _ in 0..n {
            next = (next + 1) % n;
            match self.source.available(next) {
                Ok(()) => break,
                Err(why) => {
                    self.note = Some(format!("{} skipped: {why}", self.source.codes()[next]))
                }
            }
        }
        if next != self.code {
            self.code = next;
            self.replay();
        }
    }
}
