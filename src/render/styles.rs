//! Colour and glyphs as values. Plain by default, so the same rendering code gives tests plain
//! text and a terminal colour; the decision is made once, from the command line and environment.

use owo_colors::Style;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

/// What a piece of text is, which decides how it is drawn: the cards say it once, and the
/// terminal (with `Styles`) and the player (with its theme) each draw it their own way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Text drawn as it is, in every style.
    Plain,
    Good,
    Bad,
    Warn,
    Dim,
    Strong,
    Emphasis,
    Label,
    Code,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Styles {
    pub good: Style,
    pub bad: Style,
    pub warn: Style,
    pub dim: Style,
    pub strong: Style,
    pub emphasis: Style,
    pub label: Style,
    pub code: Style,
}

impl Styles {
    pub fn plain() -> Styles {
        Styles::default()
    }

    pub fn colored() -> Styles {
        Styles {
            good: Style::new().green().bold(),
            bad: Style::new().red().bold(),
            warn: Style::new().yellow().bold(),
            dim: Style::new().dimmed(),
            strong: Style::new().bold(),
            emphasis: Style::new().italic(),
            label: Style::new().cyan(),
            code: Style::new().magenta(),
        }
    }

    /// Resolve `--color` for standard output: NO_COLOR, CLICOLOR_FORCE and "not a terminal" count.
    pub fn for_stdout(choice: ColorChoice) -> Styles {
        let on = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
                let forced =
                    std::env::var("CLICOLOR_FORCE").is_ok_and(|v| !v.is_empty() && v != "0");
                !no_color
                    && (forced || supports_color::on(supports_color::Stream::Stdout).is_some())
            }
        };
        if on {
            Styles::colored()
        } else {
            Styles::plain()
        }
    }

    /// The style a role is painted in; `None` for plain text, which is never painted.
    pub fn of(&self, role: Role) -> Option<Style> {
        Some(match role {
            Role::Plain => return None,
            Role::Good => self.good,
            Role::Bad => self.bad,
            Role::Warn => self.warn,
            Role::Dim => self.dim,
            Role::Strong => self.strong,
            Role::Emphasis => self.emphasis,
            Role::Label => self.label,
            Role::Code => self.code,
        })
    }

    pub fn paint(&self, style: Style, text: impl std::fmt::Display) -> String {
        format!("{}", style.style(text))
    }
}

/// The marks beside a check. ASCII where the terminal may not show Unicode.
#[derive(Clone, Copy, Debug)]
pub struct Glyphs {
    pub pass: &'static str,
    pub fail: &'static str,
    pub dot: &'static str,
    /// A check that did not run: neither passed nor failed.
    pub skip: &'static str,
}

impl Glyphs {
    pub const UNICODE: Glyphs = Glyphs { pass: "✓", fail: "✗", dot: "·", skip: "○" };
    pub const ASCII: Glyphs = Glyphs { pass: "ok", fail: "XX", dot: "-", skip: "--" };

    /// Unicode unless asked for ASCII, or the terminal is `dumb`.
    pub fn detect(ascii: bool) -> Glyphs {
        if ascii || std::env::var("TERM").is_ok_and(|t| t == "dumb") {
            Glyphs::ASCII
        } else {
            Glyphs::UNICODE
        }
    }
}

/// The width to wrap to: `COLUMNS`, else the terminal's, clamped to a readable range; 80 when
/// not a terminal.
pub(crate) fn width() -> usize {
    use std::io::IsTerminal;
    // COLUMNS, when set, wins: it is how a user (or a test) asks for a width.
    if let Some(columns) =
        std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok())
    {
        return columns.clamp(40, 200);
    }
    if !std::io::stdout().is_terminal() {
        return 80;
    }
    crossterm::terminal::size().map(|(w, _)| usize::from(w).clamp(40, 100)).unwrap_or(80)
}
