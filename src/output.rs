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

use std::io::{self, Write};

use crate::error::Error;

/// Write text to standard output as it is, and flush it (a paced replay shows each card at once).
pub fn print(text: &str) -> Result<(), Error> {
    bytes(text.as_bytes())
}

/// Write raw bytes to standard output, and flush them.
pub fn bytes(data: &[u8]) -> Result<(), Error> {
    let mut out = io::stdout().lock();
    out.write_all(data).and_then(|()| out.flush()).map_err(Error::Output)
}

/// Write one line to standard output.
pub fn line(text: &str) -> Result<(), Error> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush()).map_err(Error::Output)
}

/// Write one line to standard error. Never fails: see the module's note.
pub fn note(text: &str) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.write_all(b"\n"));
}

/// Whether a failed write only means the reader stopped reading.
pub fn reader_left(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::BrokenPipe
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
