//! The learner's output: whatever its process writes to fds 1 and 2 lands in a pipe, drained while
//! this side waits, keeping the first `OUTPUT_CAP` bytes of each call and counting the rest.

use std::fs::File;

use super::OUTPUT_CAP;

/// The read end of the pipe the learner's fds 1 and 2 write to, and what the current call kept.
pub(super) struct Capture {
    /// `None` once every writer has closed it.
    pub pipe: Option<File>,
    pub kept: Vec<u8>,
    pub over: u64,
    /// Where each read lands, made at the first.
    chunk: Option<Box<[u8]>>,
}

impl Capture {
    pub(super) fn new(pipe: File) -> Capture {
        Capture { pipe: Some(pipe), kept: Vec::new(), over: 0, chunk: None }
    }

    /// Read one chunk if there is one; false when there was nothing to read now.
    pub(super) fn read_some(&mut self) -> bool {
        let Some(pipe) = self.pipe.as_ref() else { return false };
        // Into a buffer that is made (and cleared) once, at the first read.
        let chunk = self.chunk.get_or_insert_with(|| vec![0; 64 * 1024].into_boxed_slice());
        match rustix::io::read(pipe, &mut chunk[..]) {
            Ok(0) => {
                self.pipe = None;
                false
            }
            Ok(n) => {
                let room = OUTPUT_CAP.saturating_sub(self.kept.len()).min(n);
                self.kept.extend_from_slice(&chunk[..room]);
                self.over += (n - room) as u64;
                true
            }
            Err(rustix::io::Errno::INTR) => true,
            Err(rustix::io::Errno::AGAIN) => false,
            Err(_) => {
                self.pipe = None;
                false
            }
        }
    }

    /// What the pipe holds now, without waiting. Bounded, so a process that keeps writing cannot
    /// keep this side here.
    fn drain(&mut self) {
        for _ in 0..64 {
            if !self.read_some() {
                return;
            }
        }
    }

    /// The current call's output and the bytes past the cap; the next call starts empty.
    pub(super) fn take(&mut self) -> (String, u64) {
        self.drain();
        let text = String::from_utf8_lossy(&self.kept).into_owned();
        self.kept.clear();
        (text, std::mem::take(&mut self.over))
    }
}

/// A pipe for the learner's output: the read end non-blocking for this side, the write end for the
/// child. Both close on exec, so no other process the workshop starts holds them.
pub(super) fn capture_pipe() -> std::io::Result<(File, std::os::fd::OwnedFd)> {
    let (read, write) = super::pipe::cloexec_pipe()?;
    rustix::io::ioctl_fionbio(&read, true)?;
    Ok((File::from(read), write))
}
