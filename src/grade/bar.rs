//! The progress bar of `grade`, on stderr when it is a terminal.

use std::io::{IsTerminal, Write};

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
pub(crate) struct Bar {
    total: usize,
    done: usize,
    on: bool,
}

impl Bar {
    pub(crate) fn new(total: usize) -> Bar {
        Bar { total, done: 0, on: std::io::stderr().is_terminal() }
    }

    pub(crate) fn tick(&mut self) {
        self.done += 1;
        if self.on {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K{}", bar_line(self.done, self.total, 30));
            let _ = err.flush();
        }
    }

    pub(crate) fn clear(&self) {
        if self.on {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

fn bar_line(done: usize, total: usize, width: usize) -> String {
    let filled = (done * width).checked_div(total).unwrap_or(width);
    format!("grading [{}{}] {done}/{total}", "#".repeat(filled), "-".repeat(width - filled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fills_with_progress() {
        assert_eq!(bar_line(0, 4, 8), "grading [--------] 0/4");
        assert_eq!(bar_line(2, 4, 8), "grading [####----] 2/4");
        assert_eq!(bar_line(4, 4, 8), "grading [########] 4/4");
    }

    #[test]
    fn the_bar_counts_each_file_graded_once() {
        let mut bar = Bar { total: 3, done: 0, on: false };
        for done in 1..=3 {
            bar.tick();
            assert_eq!(bar.done, done);
            assert_eq!(
                bar_line(bar.done, bar.total, 3),
                format!("grading [{}{}] {done}/3", "#".repeat(done), "-".repeat(3 - done))
            );
        }
    }
}
