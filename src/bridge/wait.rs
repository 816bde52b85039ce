//! Waiting for the runner's next line, with a deadline, draining the learner's output meanwhile.

use std::time::{Duration, Instant};

use super::worker::Worker;
use super::ANSWER_LIMIT;

/// Room in an answer line beyond the value: the envelope and a location.
const ANSWER_SLACK: usize = 64 * 1024;

/// The most one read of the answer channel takes.
const READ_SIZE: usize = 64 * 1024;

/// How often a wait looks up to see whether the bridge was stopped.
const STOP_CHECK: Duration = Duration::from_millis(20);

/// How often a wait looks whether the process is held stopped by a signal: seen so twice in a
/// row, it cannot answer until someone lets it go, and the wait ends without its deadline.
const STOPPED_CHECK: Duration = Duration::from_millis(250);

/// Why no answer line came.
pub(super) enum NoLine {
    Died(super::ending::Death),
    TimedOut,
    /// The process sat stopped by a signal (SIGSTOP) on two looks in a row.
    HeldStopped,
    Stopped,
    /// A line longer than any answer can be, this many bytes so far.
    TooLong(usize),
}

impl Worker {
    /// The next answer line, or why none came before the deadline. The learner's output is
    /// drained meanwhile, so a process writing a lot never blocks on a full pipe. Each byte of an
    /// answer is looked at once, however many reads it takes to arrive.
    pub(super) fn wait_line(&mut self, deadline: Instant) -> Result<String, NoLine> {
        let (mut next_look, mut stopped_looks) = (Instant::now() + STOPPED_CHECK, 0);
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
            if Instant::now() >= next_look {
                next_look += STOPPED_CHECK;
                stopped_looks =
                    if super::reap::stopped(self.child.id()) { stopped_looks + 1 } else { 0 };
                if stopped_looks == 2 {
                    return Err(NoLine::HeldStopped);
                }
            }
            let (answer_ready, output_ready) = match self.poll(left.min(STOP_CHECK)) {
                Ok(ready) => ready,
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => return Err(NoLine::Died(self.death())),
            };
            if output_ready {
                self.capture.read_some();
            }
            if !answer_ready {
                continue; // the deadline check above decides
            }
            // Readable (or hung up): this read returns at once, into the room after what is
            // pending (no buffer of its own to clear at every read).
            self.pending.reserve(READ_SIZE);
            match rustix::io::read(&self.answers, rustix::buffer::spare_capacity(&mut self.pending))
            {
                Ok(0) => return Err(NoLine::Died(self.death())),
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(_) => return Err(NoLine::Died(self.death())),
            }
        }
    }

    /// Wait up to `slice` (a millisecond at least) for the answer channel and the capture pipe,
    /// while it is open: whether each is readable (or hung up).
    fn poll(&self, slice: Duration) -> rustix::io::Result<(bool, bool)> {
        use rustix::event::{PollFd, PollFlags, Timespec};
        let millis = slice.as_millis().clamp(1, 1000) as i64;
        let timeout = Timespec { tv_sec: 0, tv_nsec: millis * 1_000_000 };
        let answers = PollFd::new(&self.answers, PollFlags::IN);
        let ready = |fd: &PollFd<'_>| !fd.revents().is_empty();
        match &self.capture.pipe {
            Some(pipe) => {
                let mut fds = [answers, PollFd::new(pipe, PollFlags::IN)];
                rustix::event::poll(&mut fds, Some(&timeout))?;
                Ok((ready(&fds[0]), ready(&fds[1])))
            }
            None => {
                let mut fds = [answers];
                rustix::event::poll(&mut fds, Some(&timeout))?;
                Ok((ready(&fds[0]), false))
            }
        }
    }
}
