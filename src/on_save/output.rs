//! Where `check --watch` writes each redraw: in place on a terminal, block after block elsewhere.

use std::io::Write;

#[derive(Clone, Copy)]
pub(crate) struct Output {
    /// Redraw in place (clear the screen) rather than print block after block.
    pub(crate) terminal: bool,
    /// The terminal is in raw mode: a new line needs a carriage return too.
    pub(crate) raw: bool,
}

impl Output {
    pub(crate) fn show(&self, text: &str) -> std::io::Result<()> {
        let mut out = std::io::stdout().lock();
        if self.terminal {
            crossterm::execute!(
                out,
                crossterm::terminal::Clear(crossterm::terminal::ClearType::All),
                crossterm::cursor::MoveTo(0, 0)
            )?;
        }
        let text = if self.raw { text.replace('\n', "\r\n") } else { text.to_string() };
        out.write_all(text.as_bytes())?;
        out.flush()
    }
}
