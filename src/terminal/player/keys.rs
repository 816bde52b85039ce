//! The player's keys, in one table: what a key press means, before any state is looked at.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyAction {
    Quit,
    PreviousTicket,
    NextTicket,
    /// Cycle the code: starter, the fix (by the lesson's label), yours.
    Code,
    /// Toggle the runtime: harness, sdk.
    Runtime,
    /// Toggle compare: the starter run against the other one.
    Compare,
    /// Pause or resume; at the end, play again.
    Pause,
    Step,
    StepBack,
    Faster,
    Slower,
    /// Show or hide the raw JSON of the selected card.
    Expand,
    Help,
    /// A digit: the answer to a prediction question.
    Answer(u8),
    /// Any other key.
    Other,
}

/// The keys as the help screen lists them.
pub(crate) const HELP: &[(&str, &str)] = &[
    ("← → ↑ ↓ or j k", "previous / next ticket"),
    ("c", "code: starter, the fix, yours"),
    ("r", "runtime: harness, sdk"),
    ("s", "compare the starter run with the other"),
    ("space", "pause / resume (at the end: play again)"),
    (". ,", "step forward / back one card"),
    ("+ -", "faster / slower"),
    ("e", "raw JSON of the selected card (›)"),
    ("1 2 3", "answer a prediction question"),
    ("?", "this help"),
    ("q, Esc, Ctrl-C", "quit"),
];

/// What a key event means. Releases (sent by some terminals) mean nothing.
pub(crate) fn action(key: KeyEvent) -> Option<KeyAction> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return Some(match key.code {
            KeyCode::Char('c') | KeyCode::Char('C') => KeyAction::Quit,
            _ => KeyAction::Other,
        });
    }
    Some(match key.code {
        KeyCode::Char('q') | KeyCode::Char('Q') | KeyCode::Esc => KeyAction::Quit,
        KeyCode::Left | KeyCode::Up | KeyCode::Char('k') => KeyAction::PreviousTicket,
        KeyCode::Right | KeyCode::Down | KeyCode::Char('j') => KeyAction::NextTicket,
        KeyCode::Char('c') => KeyAction::Code,
        KeyCode::Char('r') => KeyAction::Runtime,
        KeyCode::Char('s') => KeyAction::Compare,
        KeyCode::Char(' ') => KeyAction::Pause,
        KeyCode::Char('.') => KeyAction::Step,
        KeyCode::Char(',') => KeyAction::StepBack,
        KeyCode::Char('+') | KeyCode::Char('=') => KeyAction::Faster,
        KeyCode::Char('-') | KeyCode::Char('_') => KeyAction::Slower,
        KeyCode::Char('e') => KeyAction::Expand,
        KeyCode::Char('?') => KeyAction::Help,
        KeyCode::Char(d @ '0'..='9') => KeyAction::Answer(d as u8 - b'0'),
        _ => KeyAction::Other,
    })
}

#[cfg(test)]
mod arrow_tests {
    use super::*;

    #[test]
    fn up_and_down_move_between_tickets_like_left_and_right() {
        let key = |code| action(KeyEvent::new(code, KeyModifiers::NONE));
        assert_eq!(key(KeyCode::Up), Some(KeyAction::PreviousTicket));
        assert_eq!(key(KeyCode::Down), Some(KeyAction::NextTicket));
        assert_eq!(key(KeyCode::Left), key(KeyCode::Up));
    }
}
