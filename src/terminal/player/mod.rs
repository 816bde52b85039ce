//! The full-screen player for `watch`: one event loop over one channel. The key reader, the
//! ticker, resizes and the worker thread that computes replays all send a [`Msg`];
//! [`App::update`] decides what changes; [`ui::draw`] draws. Tests drive [`drive`] with
//! scripted messages and a `TestBackend`, and feed it the worker's results as they come.
//!
//! - `app.rs`: the state and every change to it (no terminal).
//! - `ui.rs`: drawing, a pure function of the state.
//! - `spans.rs`: the cards' styled lines in the theme's colours.
//! - `keys.rs`: what each key means.
//! - `source.rs`: where replays come from (the real runtimes and recordings, on a worker thread).
//! - `predict.rs`: the question asked before a first starter replay.
//! - `unplayable.rs`: why there is no replay to show.
//! - `terminal.rs`: raw mode as a guard, the panic hook, the reader and ticker threads.

pub(crate) mod app;
pub(crate) mod keys;
pub(crate) mod predict;
pub(crate) mod source;
pub(crate) mod spans;
pub(crate) mod terminal;
pub(crate) mod ui;
pub(crate) mod unplayable;

use std::sync::mpsc;
use std::time::Duration;

use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::Terminal;

pub use app::{App, Flow, Msg, Options};
pub use source::{LessonSource, Source};
pub use ui::Theme;

use crate::context::Context;
use crate::error::{Error, EXIT_SUCCESS};
use crate::lesson::Lesson;
use crate::lesson::Runtime;
use crate::replay::CodeChoice;

/// How the player starts, decided by the command that opens it.
pub(crate) struct Config {
    pub code: CodeChoice,
    pub runtime: Runtime,
    pub compare: bool,
    pub speed: f64,
    pub predict: bool,
    pub expand: bool,
    /// The deadline of each call of the code under replay.
    pub limit: Duration,
}

/// How often time moves the replay on: often enough to look smooth, rare enough to cost nothing.
pub(crate) const TICK: Duration = Duration::from_millis(40);

/// Draw, then for each message update and redraw when something changed, until quit (true) or
/// the messages end (false).
pub fn drive<B: Backend, S: Source>(
    app: &mut App<S>,
    terminal: &mut Terminal<B>,
    theme: &Theme,
    msgs: impl IntoIterator<Item = Msg>,
) -> Result<bool, B::Error> {
    frame(terminal, app, theme)?;
    for msg in msgs {
        match app.update(msg) {
            Flow::Quit => return Ok(true),
            Flow::Idle => {}
            Flow::Redraw => frame(terminal, app, theme)?,
        }
    }
    Ok(false)
}

/// One frame, unless the workshop is quitting on a signal (see `signals::drawing`).
fn frame<B: Backend, S: Source>(
    terminal: &mut Terminal<B>,
    app: &App<S>,
    theme: &Theme,
) -> Result<(), B::Error> {
    crate::terminal::signals::drawing(|| {
        terminal.draw(|frame| ui::draw(frame, app, theme)).map(|_| ())
    })
    .unwrap_or(Ok(()))
}

pub(crate) fn run(ctx: &Context, lesson: Lesson, config: Config) -> Result<i32, Error> {
    let Config { code: choice, runtime, compare, speed, predict, expand, limit } = config;
    // Yours before `start` is refused up front, as the plain replay refuses it.
    choice.file(&ctx.at(), &lesson)?;
    // A file given by path, or one of the lesson's mistakes, joins the three usual choices.
    let extra = match &choice {
        CodeChoice::Path(_) | CodeChoice::Mistake(_) => Some(choice.clone()),
        _ => None,
    };
    let (tx, rx) = mpsc::channel();
    let source = LessonSource::new(ctx, lesson, limit, extra, tx.clone())
        .map_err(|e| Error::io("could not start the thread that replays tickets", e))?;
    let code = source.index_of(&choice).unwrap_or(0);
    let options = Options { code, runtime, compare, speed, predict, expand };
    let theme = Theme::new(ctx.styles, ctx.glyphs);
    let mut app = App::new(source, options);

    let screen = terminal::Screen::enter(true)
        .map_err(|e| Error::io("could not take over the terminal", e))?;
    let result = event_loop(&mut app, &theme, tx, rx);
    drop(screen);
    // With the terminal back: stop the worker and its Python processes, whatever they are doing.
    drop(app);
    result.map_err(|e| Error::io("the terminal failed", e))?;
    Ok(EXIT_SUCCESS)
}

fn event_loop<S: Source>(
    app: &mut App<S>,
    theme: &Theme,
    tx: mpsc::Sender<Msg>,
    rx: mpsc::Receiver<Msg>,
) -> std::io::Result<()> {
    let mut term = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    let _events = terminal::read_events(tx.clone(), Msg::from_terminal)?;
    let _ticks = terminal::tick(tx, TICK, Msg::Tick)?;
    drive(app, &mut term, theme, rx)?;
    Ok(())
}
