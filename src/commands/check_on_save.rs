//! `workshop check --watch`: grade once, then again on every save, until `q`.
//!
//! The machinery is in `on_save`: one event loop over one channel, grading on a worker thread.
//! This command sets up the terminal, the key reader and the ticker, and watches one lesson's
//! file after another (`n`). On `q` (or Ctrl-C, exit 130) the learner's Python is killed at
//! once, and nothing is reported.
//!
//! Keys: on a terminal, single keys (`r` re-run, `h` hint, `n` next lesson once green, `q`, Esc
//! or Ctrl-C quit). When standard input is not a terminal (a script, an editor's task, a test)
//! keys are read as lines and each line's first letter counts: `printf 'h\nq\n' | workshop check
//! --watch`. End of input stops the keys, not the watching.
//!
//! Output: on a terminal each redraw replaces the screen. Otherwise each redraw is printed in
//! turn, starting with a marker line `── run N · why · HH:MM:SS · checked in T ms ──` and ending
//! with the line that starts `Watching `.

use std::sync::mpsc;
use std::time::Duration;

use crate::cli::{CheckArgs, CheckFormat};
use crate::commands::Context;
use crate::error::{Error, FlagError, EXIT_SUCCESS};
use crate::lesson::Lesson;
use crate::on_save::keys::{key_of, read_lines};
use crate::on_save::msg::{Ended, WatchEvent};
use crate::on_save::note::WatchNote;
use crate::on_save::output::Output;
use crate::on_save::session::Session;
use crate::saves;
use crate::terminal::player::terminal;

/// How often the loop looks at the file itself, to notice saves whose events never came.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// The exit status of a Ctrl-C, as if SIGINT had ended the process.
const EXIT_INTERRUPTED: i32 = 128 + libc::SIGINT;

pub(super) fn run(ctx: &Context, args: CheckArgs) -> Result<i32, Error> {
    if args.format != CheckFormat::Text {
        return Err(FlagError::WatchWithFormat.into());
    }
    let mut lesson = ctx.lesson(args.lesson.as_deref())?;
    let limit = args.timeout;
    let mut file = ctx.learner_file(&lesson, args.file.as_deref())?;
    let keys_on_terminal = ctx.stdin_terminal;
    let out_terminal = ctx.stdout_terminal;

    // One channel, one key reader and one ticker for the whole session, across lessons (`n`).
    let (tx, rx) = mpsc::channel();
    // Raw mode only where keys come from a terminal; restored on every way out of this function.
    let (screen, _keys) = keys(keys_on_terminal, &tx)?;
    let _ticks = terminal::tick(tx.clone(), LOOK_EVERY, |_| WatchEvent::Tick)
        .map_err(|e| Error::io("could not start the timer", e))?;

    let output = Output { terminal: out_terminal, raw: keys_on_terminal && out_terminal };
    let (mut runs, mut notes) = (0, Vec::new());
    let result = loop {
        let to_loop = tx.clone();
        let watching = saves::listen(&file, args.poll, move |change| {
            let _ = to_loop.send(WatchEvent::File(change));
        })?;
        let mut session =
            Session::new(ctx, &lesson, file.clone(), limit, watching.polling, output, tx.clone());
        session.run = runs;
        session.notes = std::mem::take(&mut notes);
        let ended = std::thread::scope(|scope| session.run(scope, &rx));
        runs = session.run;
        drop(watching);
        match ended {
            Ok(Ended::Next(id)) => {
                let next = Lesson::load(&ctx.root, &id)?;
                notes.push(WatchNote::Moved(go_on(ctx, &next)?));
                file = next.work_file(&ctx.root);
                lesson = next;
                // What the last lesson's watcher and graders sent is of no use now; keys still are.
                for msg in rx.try_iter().collect::<Vec<_>>() {
                    if let WatchEvent::Key(key) = msg {
                        let _ = tx.send(WatchEvent::Key(key));
                    }
                }
            }
            Ok(Ended::Quit) => break Ok(EXIT_SUCCESS),
            Ok(Ended::Interrupted) => break Ok(EXIT_INTERRUPTED),
            Err(e) => break Err(e),
        }
    };
    drop(screen);
    result
}

/// Start the next lesson for `n`: the starter copied in, unless the learner's file is there with
/// their edits, which is kept as it is. The note says which.
fn go_on(ctx: &Context, next: &Lesson) -> Result<String, Error> {
    let shown = ctx.shown(&next.work_file(&ctx.root));
    let how = match super::start::begin(ctx, next, false) {
        Ok(_) => format!("the starter is in {shown}"),
        Err(Error::Refused(_)) => {
            super::start::mark_started(ctx, next);
            format!("{shown} has your edits, so it is graded as it is")
        }
        Err(e) => return Err(e),
    };
    Ok(format!(
        "Lesson {}, {}: {how}. Read it with ./workshop lesson {}.",
        next.number, next.title, next.id
    ))
}

/// Where the session's keys come from: a terminal in raw mode (the screen, restored when
/// dropped, and its key reader), else lines read from standard input.
fn keys(
    on_terminal: bool,
    tx: &mpsc::Sender<WatchEvent>,
) -> Result<(Option<terminal::Screen>, Option<terminal::BackgroundThread>), Error> {
    if !on_terminal {
        read_lines(tx.clone()).map_err(|e| Error::io("could not start the key reader", e))?;
        return Ok((None, None));
    }
    let screen = terminal::Screen::enter(false)
        .map_err(|e| Error::io("could not read keys from the terminal", e))?;
    let events = terminal::read_events(tx.clone(), key_of)
        .map_err(|e| Error::io("could not start the key reader", e))?;
    Ok((Some(screen), Some(events)))
}
