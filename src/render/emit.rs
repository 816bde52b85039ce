//! Writing to standard output without a panic when the reader has gone away, as with
//! `workshop quiz | head`: a closed pipe is the reader's choice, not an error of ours.

use std::io::Write;

/// Write text to standard output as it is; a failure to write is ignored.
pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// Write one line to standard output.
pub fn line(text: &str) {
    out(&format!("{text}\n"));
}

/// A note for the person at the terminal, on standard error, apart from the command's output.
pub fn note(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{text}");
}
