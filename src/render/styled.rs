//! Styled lines: text spans, each with the role that decides how it is drawn. The cards are
//! rendered to these once; the terminal paints them with ANSI codes (or none, when colour is
//! off) and the player turns them into its own spans, so neither reads the other's output.

use crate::render::styles::{Role, Styles};

/// A run of text in one role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub text: String,
    pub role: Role,
}

/// One line on screen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Line {
    pub spans: Vec<Span>,
}

impl Line {
    /// A line of plain text.
    pub(crate) fn plain(text: impl Into<String>) -> Line {
        Line::default().with(Role::Plain, text)
    }

    /// A line of text in one role.
    pub(crate) fn styled(role: Role, text: impl Into<String>) -> Line {
        Line::default().with(role, text)
    }

    /// This line with a span added; plain text that is empty adds nothing.
    pub(crate) fn with(mut self, role: Role, text: impl Into<String>) -> Line {
        let text = text.into();
        if role != Role::Plain || !text.is_empty() {
            self.spans.push(Span { text, role });
        }
        self
    }
}

/// The lines as a terminal shows them: each span painted in its role's style, each line ended.
pub(crate) fn ansi(lines: &[Line], styles: &Styles) -> String {
    let mut out = String::new();
    for line in lines {
        for span in &line.spans {
            match styles.of(span.role) {
                Some(style) => out.push_str(&styles.paint(style, &span.text)),
                None => out.push_str(&span.text),
            }
        }
        out.push('\n');
    }
    out
}
