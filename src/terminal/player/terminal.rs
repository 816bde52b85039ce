//! The terminal as a resource: raw mode (and the alternate screen) held by a guard that restores
//! it on drop, on an error return and from a panic hook; and the threads that turn key presses,
//! resizes and the passing of time into messages on one channel. Shared by the player and
//! `check --watch`.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Once};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossterm::event::{self, Event};
use crossterm::{cursor, execute, terminal};

/// Whether a guard holds the terminal now, and whether it entered the alternate screen.
static ACTIVE: AtomicBool = AtomicBool::new(false);
static ALTERNATE: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

/// Raw mode, and for the player the alternate screen, until dropped.
pub(crate) struct Screen(());

impl Screen {
    /// Take over the terminal. `alternate`: draw on the alternate screen (the player), or stay on
    /// the normal one so the last report is still there after quitting (`check --watch`).
    pub(crate) fn enter(alternate: bool) -> io::Result<Screen> {
        install_panic_hook();
        ALTERNATE.store(alternate, Ordering::SeqCst);
        ACTIVE.store(true, Ordering::SeqCst);
        // From here on, every path (this error return included) goes through restore().
        let guard = Screen(());
        terminal::enable_raw_mode()?;
        if alternate {
            execute!(io::stdout(), terminal::EnterAlternateScreen, cursor::Hide)?;
        }
        Ok(guard)
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        restore();
    }
}

/// Put the terminal back as it was. Safe to call twice: only the first call after `enter` acts.
pub(crate) fn restore() {
    #[cfg(test)]
    if let Some(done) = tests::into_sink(restore_to::<Vec<u8>>) {
        return done;
    }
    restore_to(&mut io::stdout());
}

fn restore_to<W: Write>(out: &mut W) {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let _ = terminal::disable_raw_mode();
    if ALTERNATE.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, terminal::LeaveAlternateScreen);
    }
    let _ = execute!(out, cursor::Show);
    let _ = out.flush();
}

/// As `restore`, from the signal thread while another thread may hold stdout's lock (a redraw
/// blocked on a slow terminal): the escape sequences are written straight to the descriptor.
pub(crate) fn restore_after_signal() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let _ = terminal::disable_raw_mode();
    let mut text = String::new();
    if ALTERNATE.swap(false, Ordering::SeqCst) {
        text.push_str("\x1b[?1049l");
    }
    text.push_str("\x1b[?25h");
    // One write(2), no lock and no buffer: this runs on the signal thread while another may
    // hold stdout's lock. A closed stdout is no harm.
    let _ = rustix::io::write(rustix::stdio::stdout(), text.as_bytes());
}

/// A panic while the terminal is raw would leave the learner's shell unusable and the message
/// unreadable: restore first, then let the usual hook print.
fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// A background thread stopped and joined when this is dropped.
pub(crate) struct BackgroundThread {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Drop for BackgroundThread {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(handle) = self.handle.take() {
            // A thread parked between its turns (the ticker) wakes now, not at its next turn.
            handle.thread().unpark();
            let _ = handle.join();
        }
    }
}

fn spawn(
    name: &str,
    body: impl FnOnce(Arc<AtomicBool>) + Send + 'static,
) -> io::Result<BackgroundThread> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let handle = std::thread::Builder::new().name(name.into()).spawn(move || body(flag))?;
    Ok(BackgroundThread { stop, handle: Some(handle) })
}

/// How often the reader looks up from `poll` to see whether it should stop.
const POLL: Duration = Duration::from_millis(30);

/// Read terminal events (keys, resizes) and send what `map` makes of them.
pub(crate) fn read_events<M: Send + 'static>(
    tx: Sender<M>,
    map: impl Fn(Event) -> Option<M> + Send + 'static,
) -> io::Result<BackgroundThread> {
    spawn("terminal-events", move |stop| {
        while !stop.load(Ordering::SeqCst) {
            match event::poll(POLL) {
                Ok(false) => {}
                Ok(true) => match event::read() {
                    Ok(ev) => {
                        if let Some(msg) = map(ev) {
                            if tx.send(msg).is_err() {
                                return;
                            }
                        }
                    }
                    Err(_) => return,
                },
                Err(_) => return,
            }
        }
    })
}

/// Send `make(elapsed)` every `every`, with the time that really passed since the last one.
/// Between turns the thread is parked, so that stopping it (dropping the handle, as a session
/// ends on `q`) takes no longer than a wake-up, not the rest of a turn.
pub(crate) fn tick<M: Send + 'static>(
    tx: Sender<M>,
    every: Duration,
    make: impl Fn(Duration) -> M + Send + 'static,
) -> io::Result<BackgroundThread> {
    spawn("ticker", move |stop| {
        let mut last = Instant::now();
        loop {
            let due = last + every;
            loop {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                let left = due.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                // It may wake early (an unpark, or spuriously): the loop looks again.
                std::thread::park_timeout(left);
            }
            let now = Instant::now();
            if tx.send(make(now - last)).is_err() {
                return;
            }
            last = now;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    thread_local! {
        /// Where `restore` writes on this thread in a test: a buffer, never the real terminal.
        static SINK: RefCell<Option<Vec<u8>>> = const { RefCell::new(None) };
    }

    /// Run `restore_to` on this thread's sink, when a test set one.
    pub(super) fn into_sink(restore_to: fn(&mut Vec<u8>)) -> Option<()> {
        SINK.with(|sink| sink.borrow_mut().as_mut().map(restore_to))
    }

    #[test]
    fn a_panic_restores_the_terminal_before_the_message() {
        install_panic_hook();
        SINK.with(|sink| *sink.borrow_mut() = Some(Vec::new()));
        // As if a guard held the terminal on the alternate screen (a test has none to take over).
        ALTERNATE.store(true, Ordering::SeqCst);
        ACTIVE.store(true, Ordering::SeqCst);
        let result = std::panic::catch_unwind(|| panic!("a bug in the player"));
        assert!(result.is_err());
        assert!(!ACTIVE.load(Ordering::SeqCst), "the hook restored the terminal");
        let written = SINK.with(|sink| sink.borrow_mut().take()).unwrap_or_default();
        assert_eq!(
            String::from_utf8_lossy(&written),
            "\x1b[?1049l\x1b[?25h",
            "left the alternate screen, showed the cursor"
        );
        // And restoring again is harmless (and, with no sink, would write nothing: not active).
        restore();
    }

    #[test]
    fn a_ticker_ticks_and_stops_without_waiting_out_its_turn() {
        let (tx, rx) = std::sync::mpsc::channel();
        let fast = tick(tx, Duration::from_millis(1), |elapsed| elapsed).unwrap();
        for _ in 0..3 {
            let elapsed = rx.recv_timeout(Duration::from_secs(30)).expect("a tick");
            assert!(elapsed >= Duration::from_millis(1), "{elapsed:?}");
        }
        drop(fast);
        // A turn of an hour: dropped at once, it must end without waiting it out. The bound is
        // on a hang, not a speed figure.
        let (tx, _ticks) = std::sync::mpsc::channel::<()>();
        let slow = tick(tx, Duration::from_secs(3600), |_| ()).unwrap();
        let (done, dropped) = std::sync::mpsc::channel();
        let dropper = std::thread::Builder::new().spawn(move || {
            drop(slow);
            let _ = done.send(());
        });
        dropper.unwrap();
        assert!(dropped.recv_timeout(Duration::from_secs(30)).is_ok(), "the ticker kept its turn");
    }
}
