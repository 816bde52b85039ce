//! The keys of `check --watch`: single keys on a terminal, or the first letter of each line
//! from a standard input that is not one.

use std::sync::mpsc::Sender;

use crossterm::event::{Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};

use super::msg::Msg;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    Rerun,
    Hint,
    /// Start the next lesson and watch its file instead (once every check is green).
    Next,
    Quit,
    /// Ctrl-C, read as a key in raw mode: quit as the signal would have.
    Interrupt,
    Other,
}

pub(crate) fn key_of(ev: TermEvent) -> Option<Msg> {
    match ev {
        TermEvent::Key(k) if k.kind != KeyEventKind::Release => {
            let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
            Some(Msg::Key(match k.code {
                KeyCode::Char('c') if ctrl => Key::Interrupt,
                KeyCode::Char('q') | KeyCode::Esc => Key::Quit,
                KeyCode::Char('r') => Key::Rerun,
                KeyCode::Char('h') => Key::Hint,
                KeyCode::Char('n') => Key::Next,
                _ => Key::Other,
            }))
        }
        TermEvent::Resize(..) => Some(Msg::Resize),
        _ => None,
    }
}

fn key_of_line(line: &str) -> Option<Key> {
    Some(match line.trim().chars().next()? {
        'q' | 'Q' => Key::Quit,
        'r' | 'R' => Key::Rerun,
        'h' | 'H' => Key::Hint,
        'n' | 'N' => Key::Next,
        _ => Key::Other,
    })
}

/// Keys as lines from a standard input that is not a terminal. The thread may stay blocked in
/// `read` until the process ends; it holds nothing but a sender.
pub(crate) fn read_lines(tx: Sender<Msg>) -> std::io::Result<()> {
    std::thread::Builder::new().name("check-watch-keys".into()).spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { return };
            if let Some(key) = key_of_line(&line) {
                if tx.send(Msg::Key(key)).is_err() {
                    return;
                }
            }
        }
    })?;
    Ok(())
}
