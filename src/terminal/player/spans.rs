//! The cards' styled lines as the player draws them: each role in the theme's colours (none
//! when colour is off, as on a terminal without it), so the player shows exactly the cards
//! `watch` prints, from the same lines.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::render::styled;
use crate::render::styles::Role;

/// The style a card's role is drawn in: the colours `Styles::colored` paints on a terminal.
pub(crate) fn style(role: Role, color: bool) -> Style {
    if !color {
        return Style::default();
    }
    let bold = |c: Color| Style::default().fg(c).add_modifier(Modifier::BOLD);
    match role {
        Role::Plain => Style::default(),
        Role::Good => bold(Color::Green),
        Role::Bad => bold(Color::Red),
        Role::Warn => bold(Color::Yellow),
        Role::Dim => Style::default().add_modifier(Modifier::DIM),
        Role::Strong => Style::default().add_modifier(Modifier::BOLD),
        Role::Emphasis => Style::default().add_modifier(Modifier::ITALIC),
        Role::Label => Style::default().fg(Color::Cyan),
        Role::Code => Style::default().fg(Color::Magenta),
    }
}

/// Styled lines as ratatui lines. A tab is four spaces; any other control character is shown
/// escaped, never drawn (the cards have already escaped the learner's).
pub(crate) fn lines(lines: &[styled::Line], color: bool) -> Vec<Line<'static>> {
    lines
        .iter()
        .map(|line| {
            let spans: Vec<Span<'static>> = line
                .spans
                .iter()
                .filter(|span| !span.text.is_empty())
                .map(|span| Span::styled(drawable(&span.text), style(span.role, color)))
                .collect();
            Line::from(spans)
        })
        .collect()
}

/// Text that cannot move the cursor under ratatui's feet.
fn drawable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\t' => out.push_str("    "),
            c => match crate::text::inert::escape(c) {
                Some(escaped) => out.push_str(&escaped),
                None => out.push(c),
            },
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::styled::Line as Styled;

    #[test]
    fn roles_take_the_colours_the_terminal_paints_them_in() {
        let card = [Styled::styled(Role::Good, "ok").with(Role::Plain, " plain")];
        let lines = lines(&card, true);
        assert_eq!(lines.len(), 1);
        let spans = &lines[0].spans;
        assert_eq!(spans[0].content, "ok");
        assert_eq!(spans[0].style, Style::default().fg(Color::Green).add_modifier(Modifier::BOLD));
        assert_eq!(spans[1].content, " plain");
        assert_eq!(spans[1].style, Style::default());
        assert_eq!(super::lines(&card, false)[0].spans[0].style, Style::default());
    }

    #[test]
    fn control_characters_are_never_drawn() {
        let lines = lines(&[Styled::plain("a\x1b]0;title\x07b\tc"), Styled::plain("d")], false);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].spans[0].content, "a\\x1b]0;title\\x07b    c");
        assert_eq!(lines[1].spans[0].content, "d");
    }
}
