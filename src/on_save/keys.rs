//! The keys of `check --watch`: single keys on a terminal, or the first letter of each line
//! from a standard input that is not one.

use std::sync::mpsc::Sender;

use crossterm::event::{Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};

use super::msg::WatchEvent;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WatchKey {
    Rerun,
    Hint,
    /// Start the next lesson and watch its file instead (once every check is green).
    Next,
    Quit,
    /// Ctrl-C, read as a key in raw mode: quit as the signal would have.
    Interrupt,
    Other,
}

pub(crate) fn key_of(ev: TermEvent) -> Option<WatchEvent> {
    match ev {
        TermEvent::Key(k) if k.kind != KeyEventKind::Release => {
            let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
            Some(WatchEvent::Key(match k.code {
                KeyCode::Char('c') if ctrl => WatchKey::Interrupt,
                KeyCode::Char('q') | KeyCode::Esc => WatchKey::Quit,
                KeyCode::Char('r') => WatchKey::Rerun,
                KeyCode::Char('h') => WatchKey::Hint,
                KeyCode::Char('n') => WatchKey::Next,
                _ => WatchKey::Other,
            }))
        }
        TermEvent::Resize(..) => Some(WatchEvent::Resize),
        _ => None,
    }
}

fn key_of_line(line: &str) -> Option<WatchKey> {
    Some(match line.trim().chars().next()? {
        'q' | 'Q' => WatchKey::Quit,
        'r' | 'R' => WatchKey::Rerun,
        'h' | 'H' => WatchKey::Hint,
        'n' | 'N' => WatchKey::Next,
        _ => WatchKey::Other,
    })
}

/// Keys as lines from a standard input that is not a terminal. The thread may stay blocked in
/// `read` until the process ends; it holds nothing but a sender.
pub(crate) fn read_lines(tx: Sender<WatchEvent>) -> std::io::Result<()> {
    std::thread::Builder::new().name("check-watch-keys".into()).spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { return };
            if let Some(key) = key_of_line(&line) {
                if tx.send(WatchEvent::Key(key)).is_err() {
                    return;
                }
            }
        }
    })?;
    Ok(())
}
