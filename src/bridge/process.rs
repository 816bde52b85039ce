//! A worker's process: one the workshop started itself (std's `Child`), or one it adopted: forked
//! by a runner the workshop started, and re-parented to the workshop, its child subreaper (the
//! learner's spare, see `warm`). Both are children of this process, waited for the same way.

use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ExitStatus};

use rustix::process::{Pid, Signal, WaitOptions};

pub(super) enum Process {
    Started(Child),
    Adopted {
        pid: i32,
        /// Its exit status, once reaped: its pid may be another process's after that.
        status: Option<ExitStatus>,
    },
}

impl Process {
    pub(super) fn id(&self) -> u32 {
        match self {
            Process::Started(child) => child.id(),
            Process::Adopted { pid, .. } => pid.unsigned_abs(),
        }
    }

    /// Its exit status if it has ended (reaping it), `None` while it runs.
    pub(super) fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        self.reap(WaitOptions::NOHANG)
    }

    /// Wait for it to end.
    pub(super) fn wait(&mut self) -> std::io::Result<ExitStatus> {
        self.reap(WaitOptions::empty())?.ok_or_else(|| std::io::Error::other("no exit status"))
    }

    /// SIGKILL to it alone, unless it was reaped already.
    pub(super) fn kill(&mut self) -> std::io::Result<()> {
        match self {
            Process::Started(child) => child.kill(),
            Process::Adopted { status: Some(_), .. } => Ok(()),
            Process::Adopted { pid, status: None } => {
                let pid =
                    Pid::from_raw(*pid).ok_or_else(|| std::io::Error::other("no such process"))?;
                rustix::process::kill_process(pid, Signal::KILL).map_err(std::io::Error::from)
            }
        }
    }

    fn reap(&mut self, options: WaitOptions) -> std::io::Result<Option<ExitStatus>> {
        match self {
            Process::Started(child) if options.contains(WaitOptions::NOHANG) => child.try_wait(),
            Process::Started(child) => child.wait().map(Some),
            Process::Adopted { status: Some(status), .. } => Ok(Some(*status)),
            Process::Adopted { pid, status } => {
                let raw =
                    Pid::from_raw(*pid).ok_or_else(|| std::io::Error::other("no such process"))?;
                let reaped =
                    rustix::process::waitpid(Some(raw), options).map_err(std::io::Error::from)?;
                // The raw status is what waitpid(2) wrote, which ExitStatus is made of on Unix.
                *status = reaped.map(|(_, s)| ExitStatus::from_raw(s.as_raw()));
                Ok(*status)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Command;

    use super::Process;

    /// A child of ours known only by its pid (std's handle forgotten, as an adopted one has none).
    fn adopted(program: &str, args: &[&str]) -> Process {
        let child = Command::new(program).args(args).spawn().unwrap();
        let pid = child.id() as i32;
        std::mem::forget(child);
        Process::Adopted { pid, status: None }
    }

    #[test]
    fn an_adopted_process_reports_its_exit_code_and_keeps_it_once_reaped() {
        let mut process = adopted("sh", &["-c", "exit 7"]);
        assert_eq!(process.wait().unwrap().code(), Some(7));
        // Reaped: the status is kept, and a kill sends nothing to a pid that may be another's.
        assert_eq!(process.try_wait().unwrap().and_then(|s| s.code()), Some(7));
        assert!(process.kill().is_ok());
    }

    #[test]
    fn an_adopted_process_killed_reports_the_signal() {
        let mut process = adopted("sleep", &["337"]);
        assert!(process.try_wait().unwrap().is_none(), "it runs");
        process.kill().unwrap();
        assert_eq!(process.wait().unwrap().signal(), Some(libc::SIGKILL));
    }
}
