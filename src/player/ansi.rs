//! The cards are text with SGR colour codes (plain when colour is off); the player draws them
//! with ratatui styles. This reads the few codes our `Styles` write, so the player shows exactly
//! the cards `watch` prints, from the same code.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// Text with SGR codes as styled lines. Unknown escape sequences are dropped, never drawn; other
/// control characters are shown escaped (the cards have already escaped the learner's).
pub fn lines(text: &str) -> Vec<Line<'static>> {
    let mut style = Style::default();
    let mut out = Vec::new();
    for raw in text.lines() {
        let mut spans = Vec::new();
        let mut plain = String::new();
        let mut chars = raw.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\t' {
                plain.push_str("    ");
                continue;
            }
            if c != '\x1b' {
                // Control characters would move the cursor under ratatui's feet: shown escaped.
                match crate::inert::escape(c) {
                    Some(escaped) => plain.push_str(&escaped),
                    None => plain.push(c),
                }
                continue;
            }
            if chars.peek() != Some(&'[') {
                continue;
            }
            chars.next();
            let mut params = String::new();
            let mut end = None;
            for c in chars.by_ref() {
                if c.is_ascii_digit() || c == ';' {
                    params.push(c);
                } else {
                    end = Some(c);
                    break;
                }
            }
            if end == Some('m') {
                if !plain.is_empty() {
                    spans.push(Span::styled(std::mem::take(&mut plain), style));
                }
                style = apply(style, &params);
            }
        }
        if !plain.is_empty() {
            spans.push(Span::styled(plain, style));
        }
        out.push(Line::from(spans));
    }
    out
}

fn basic(n: u16) -> Color {
    match n {
        0 => Color::Black,
        1 => Color::Red,
        2 => Color::Green,
        3 => Color::Yellow,
        4 => Color::Blue,
        5 => Color::Magenta,
        6 => Color::Cyan,
        _ => Color::Gray,
    }
}

fn bright(n: u16) -> Color {
    match n {
        0 => Color::DarkGray,
        1 => Color::LightRed,
        2 => Color::LightGreen,
        3 => Color::LightYellow,
        4 => Color::LightBlue,
        5 => Color::LightMagenta,
        6 => Color::LightCyan,
        _ => Color::White,
    }
}

/// An extended colour (`5;n` or `2;r;g;b`) from the rest of the parameters.
fn extended(rest: &mut impl Iterator<Item = u16>) -> Option<Color> {
    match rest.next()? {
        5 => rest.next().and_then(|n| u8::try_from(n).ok()).map(Color::Indexed),
        2 => {
            let mut c = || rest.next().and_then(|n| u8::try_from(n).ok());
            Some(Color::Rgb(c()?, c()?, c()?))
        }
        _ => None,
    }
}

fn apply(mut style: Style, params: &str) -> Style {
    let mut codes = params.split(';').map(|p| p.parse::<u16>().unwrap_or(0));
    if params.is_empty() {
        return Style::default();
    }
    while let Some(code) = codes.next() {
        style = match code {
            0 => Style::default(),
            1 => style.add_modifier(Modifier::BOLD),
            2 => style.add_modifier(Modifier::DIM),
            3 => style.add_modifier(Modifier::ITALIC),
            4 => style.add_modifier(Modifier::UNDERLINED),
            7 => style.add_modifier(Modifier::REVERSED),
            9 => style.add_modifier(Modifier::CROSSED_OUT),
            22 => style.remove_modifier(Modifier::BOLD | Modifier::DIM),
            23 => style.remove_modifier(Modifier::ITALIC),
            24 => style.remove_modifier(Modifier::UNDERLINED),
            27 => style.remove_modifier(Modifier::REVERSED),
            30..=37 => style.fg(basic(code - 30)),
            38 => match extended(&mut codes) {
                Some(c) => style.fg(c),
                None => style,
            },
            39 => style.fg(Color::Reset),
            40..=47 => style.bg(basic(code - 40)),
            48 => match extended(&mut codes) {
                Some(c) => style.bg(c),
                None => style,
            },
            49 => style.bg(Color::Reset),
            90..=97 => style.fg(bright(code - 90)),
            100..=107 => style.bg(bright(code - 100)),
            _ => style,
        };
    }
    style
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_codes_our_styles_write() {
        let text = format!("{} plain\n", owo_colors::Style::new().green().bold().style("ok"));
        let lines = lines(&text);
        assert_eq!(lines.len(), 1);
        let spans = &lines[0].spans;
        assert_eq!(spans[0].content, "ok");
        assert_eq!(spans[0].style, Style::default().fg(Color::Green).add_modifier(Modifier::BOLD));
        assert_eq!(spans[1].content, " plain");
        assert_eq!(spans[1].style, Style::default());
    }

    #[test]
    fn control_characters_are_never_drawn() {
        let lines = lines("a\x1b]0;title\x07b\tc\nd");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].spans[0].content, "a]0;title\\x07b    c");
        assert_eq!(lines[1].spans[0].content, "d");
    }
}
