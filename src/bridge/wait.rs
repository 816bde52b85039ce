//! Waiting for the runner's next line, with a deadline, draining the learner's output meanwhile.

use std::io::Read;
use std::time::{Duration, Instant};

use super::worker::Worker;
use super::ANSWER_LIMIT;

/// Room in an answer line beyond the value: the envelope and a location.
const ANSWER_SLACK: usize = 64 * 1024;

/// How often a wait looks up to see whether the bridge was stopped.
const STOP_CHECK: Duration = Duration::from_millis(20);

/// Why no answer line came.
pub(super) enum NoLine {
    Died(super::ending::Death),
    TimedOut,
    Stopped,
    /// A line longer than any answer can be, this many bytes so far.
    TooLong(usize),
}

impl Worker {
    /// The next answer line, or why none came before the deadline. The learner's output is
    /// drained meanwhile, so a process writing a lot never blocks on a full pipe. Each byte of an
    /// answer is looked at once, however many reads it takes to arrive.
    pub(super) fn wait_line(&mut self, deadline: Instant) -> Result<String, NoLine> {
        use std::os::fd::AsRawFd;
        loop {
            if let Some(at) = self.pending[self.scanned..].iter().position(|&b| b == b'\n') {
                let end = self.scanned + at;
                let line: Vec<u8> = self.pending.drain(..=end).collect();
                self.scanned = 0;
                return Ok(String::from_utf8_lossy(&line[..end]).into_owned());
            }
            self.scanned = self.pending.len();
            if self.pending.len() > ANSWER_LIMIT + ANSWER_SLACK {
                return Err(NoLine::TooLong(self.pending.len()));
            }
            if self.stop.is_stopped() {
                return Err(NoLine::Stopped);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(NoLine::TimedOut);
            }
            let capture = self.capture.pipe.as_ref().map(|p| p.as_raw_fd()).unwrap_or(-1);
            let mut fds = [
                libc::pollfd { fd: self.answers.as_raw_fd(), events: libc::POLLIN, revents: 0 },
                // A negative descriptor is skipped by poll(2): the capture pipe has closed.
                libc::pollfd { fd: capture, events: libc::POLLIN, revents: 0 },
            ];
            let slice = left.min(STOP_CHECK);
            let millis = libc::c_int::try_from(slice.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
            // SAFETY: poll(2) on two pollfds that live for the call.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), 2, millis) };
            if ready < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(NoLine::Died(self.death()));
            }
            if fds[1].revents != 0 {
                self.capture.read_some();
            }
            if fds[0].revents == 0 {
                continue; // the deadline check above decides
            }
            // Readable (or hung up): this read returns at once.
            let mut chunk = [0u8; 64 * 1024];
            match self.answers.read(&mut chunk) {
                Ok(0) => return Err(NoLine::Died(self.death())),
                Ok(n) => self.pending.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Err(NoLine::Died(self.death())),
            }
        }
    }
}
