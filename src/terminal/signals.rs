//! Quitting on SIGINT, SIGTERM and SIGHUP: every learner process is killed and the terminal is
//! put back before the workshop exits with the conventional status (128 + the signal's number).
//! A thread waits for the signals (signal-hook turns them into reads), so the cleanup is ordinary
//! code rather than a signal handler's few permitted calls.

use std::sync::atomic::{AtomicBool, Ordering};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// A write past the file-size limit (`ulimit -f`) fails with "File too large" instead of killing
/// the workshop by SIGXFSZ: it is then reported as any other failed write, with what to do, and
/// a temporary file is removed on the way out. Python ignores the signal the same way, and
/// gives the default back to the programs it starts.
pub(crate) fn let_writes_past_the_file_size_limit_fail() {
    // SAFETY: signal(2) with SIG_IGN installs no handler; it only changes the disposition.
    // (libc's: rustix sets no signal dispositions outside its `runtime` API.)
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Start the thread that handles the quitting signals. A failure leaves the default behaviour
/// (the process dies; the learner's Python still dies with it on Linux, by its parent-death
/// signal), so it is not an error worth stopping for.
pub(crate) fn install() {
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else { return };
    let _ = std::thread::Builder::new().name("signals".into()).spawn(move || {
        if let Some(signal) = signals.forever().next() {
            quit(signal);
        }
    });
}

/// Set as soon as a quitting signal arrives.
static QUITTING: AtomicBool = AtomicBool::new(false);

/// Set while the main thread draws a frame of the player (see `drawing`).
static DRAWING: AtomicBool = AtomicBool::new(false);

/// Draw a frame with `draw`, unless the workshop is quitting on a signal: then nothing is drawn
/// (`None`). The signal's thread lets a frame begun before the signal end before it puts the
/// terminal back, and none begins after: a frame's bytes (which hide the cursor) written after
/// the terminal was put back would leave the learner's shell without a cursor.
pub(crate) fn drawing<R>(draw: impl FnOnce() -> R) -> Option<R> {
    // Both flags are sequentially consistent: either this thread sees the signal and draws
    // nothing, or the signal's thread sees the frame and waits for it.
    DRAWING.store(true, Ordering::SeqCst);
    let drawn = (!QUITTING.load(Ordering::SeqCst)).then(draw);
    DRAWING.store(false, Ordering::SeqCst);
    drawn
}

/// Called by the main thread on its way out: when a signal is being handled, the main thread
/// must not end the process first (its command may finish early because its Python was just
/// killed) and so lose the signal's exit status. It waits for the signal thread to exit.
pub(crate) fn hold_if_quitting() {
    if QUITTING.load(Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
}

#[allow(clippy::disallowed_methods)] // the process is ending on a signal: other threads' destructors cannot run
fn quit(signal: i32) -> ! {
    QUITTING.store(true, Ordering::SeqCst);
    crate::bridge::end_everything();
    // A frame begun before the signal ends first, for a tenth of a second at most: a terminal
    // that stopped reading must not keep the workshop from quitting.
    let until = std::time::Instant::now() + std::time::Duration::from_millis(100);
    while DRAWING.load(Ordering::SeqCst) && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    crate::terminal::player::terminal::restore_after_signal();
    std::process::exit(128 + signal);
}
