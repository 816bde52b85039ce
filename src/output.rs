//! The one way out to standard output and standard error.
//!
//! Writing to stdout can fail: the reader went away (`workshop doctor | head -1` closes the pipe)
//! or the disk is full (`> /dev/full`). `println!` panics on either, so nothing in `src/` uses it
//! (the crate denies `clippy::print_stdout` and `clippy::print_stderr`; this module is the one
//! exception). A failed write becomes [`Error::Output`], which ends the command: a closed pipe is
//! the reader's choice and ends it quietly with status 0, as ripgrep does; any other failure is
//! reported on stderr with status 2.
//!
//! Stderr is where failures are reported, so a failure to write there has nowhere to go and is
//! ignored.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::borrow::Cow;
use std::io::{self, Write};
use std::sync::OnceLock;

use crate::error::Error;

/// How to run the workshop from where the learner is, when that is not `./workshop`.
static COMMAND: OnceLock<String> = OnceLock::new();

/// Messages name commands as `./workshop ...`; from another folder they should name a command
/// that works there (`../../workshop check`). Set once, by the command line's dispatch.
pub(crate) fn set_command(command: String) {
    let _ = COMMAND.set(command);
}

/// The workshop's own words with each `./workshop` made the command that works from here.
/// `print`, `line` and `note` do this to what they are given; text that carries what the
/// learner's code printed or returned goes out `as_is`, with its hints adapted here first.
pub(crate) fn adapt(text: &str) -> Cow<'_, str> {
    match COMMAND.get() {
        Some(command) if text.contains("./workshop") => Cow::Owned(replace_command(text, command)),
        _ => Cow::Borrowed(text),
    }
}

/// `./workshop` as a word of its own (not the tail of `../workshop` or `a/./workshop`).
fn replace_command(text: &str, command: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("./workshop") {
        let before = rest[..at].chars().last();
        let after = rest[at + "./workshop".len()..].chars().next();
        out.push_str(&rest[..at]);
        let standalone = !matches!(before, Some('.' | '/') | Some('a'..='z'))
            && !matches!(after, Some('a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' | '/'));
        out.push_str(if standalone { command } else { "./workshop" });
        rest = &rest[at + "./workshop".len()..];
    }
    out.push_str(rest);
    out
}

/// Write text to standard output as it is, and flush it (a paced replay shows each card at once).
pub(crate) fn print(text: &str) -> Result<(), Error> {
    bytes(adapt(text).as_bytes())
}

/// Write text to standard output exactly as it is: it holds the learner's output, or data
/// (JSON, a page) that is never rewritten.
pub(crate) fn as_is(text: &str) -> Result<(), Error> {
    bytes(text.as_bytes())
}

/// Write one line of text exactly as it is (see `as_is`).
pub(crate) fn line_as_is(text: &str) -> Result<(), Error> {
    let mut out = io::stdout().lock();
    let written = out.write_all(text.as_bytes()).and_then(|()| out.write_all(b"\n"));
    written.and_then(|()| out.flush()).map_err(Error::Output)
}

/// Write one line to standard error exactly as it is (see `as_is`). Never fails.
pub(crate) fn note_as_is(text: &str) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.write_all(b"\n"));
}

/// Write raw bytes to standard output, and flush them.
pub(crate) fn bytes(data: &[u8]) -> Result<(), Error> {
    let mut out = io::stdout().lock();
    out.write_all(data).and_then(|()| out.flush()).map_err(Error::Output)
}

/// Write one line to standard output.
pub(crate) fn line(text: &str) -> Result<(), Error> {
    line_as_is(&adapt(text))
}

/// Write one line to standard error. Never fails: see the module's note.
pub(crate) fn note(text: &str) {
    note_as_is(&adapt(text));
}

/// `outln!("…", args)`: a formatted line to standard output; evaluates to `Result<(), Error>`.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::output::line("")
    };
    ($($arg:tt)*) => {
        $crate::output::line(&format!($($arg)*))
    };
}

/// `errln!("…", args)`: a formatted line to standard error, which never fails.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::output::note(&format!($($arg)*))
    };
}

#[cfg(test)]
mod tests {
    use super::replace_command;

    #[test]
    fn only_the_command_word_is_replaced() {
        let cmd = "../../workshop";
        assert_eq!(replace_command("run ./workshop check x", cmd), "run ../../workshop check x");
        assert_eq!(replace_command("`./workshop hint`", cmd), "`../../workshop hint`");
        assert_eq!(
            replace_command("see ../workshop and a/./workshop/x", cmd),
            "see ../workshop and a/./workshop/x"
        );
    }
}
