//! How a learner's process ended, read from its exit status (a signal by name, and what bubblewrap
//! makes of one), as the learner reads it.

use std::process::ExitStatus;

/// How a process ended, and what it wrote that the runner had not yet handed back.
pub(super) struct Death {
    /// `None`: it closed the channel but would not exit, and was killed.
    pub status: Option<ExitStatus>,
    pub output: String,
    /// The status is bubblewrap's (see `Worker::sandboxed`).
    pub sandboxed: bool,
}

/// How a process ended, read from its status.
#[derive(Debug, PartialEq, Eq)]
enum Ending {
    Exited(i32),
    /// By a signal; `reported` is the exit code bubblewrap gave for it (128 + the signal).
    Killed {
        signal: i32,
        reported: Option<i32>,
    },
    Other,
}

impl Ending {
    fn of(status: ExitStatus, sandboxed: bool) -> Ending {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            // bubblewrap's init exits with 128 + N when the command was killed by signal N, as a
            // shell reports it (its status says nothing else).
            (Some(code), _) if sandboxed && (129..=128 + 64).contains(&code) => {
                Ending::Killed { signal: code - 128, reported: Some(code) }
            }
            (Some(code), _) => Ending::Exited(code),
            (None, Some(signal)) => Ending::Killed { signal, reported: None },
            _ => Ending::Other,
        }
    }

    /// `killed by signal 11 (SIGSEGV, a crash)`, with how the sandbox said it.
    fn killed(signal: i32, reported: Option<i32>) -> String {
        let what = match signal {
            libc::SIGSEGV | libc::SIGBUS | libc::SIGILL | libc::SIGFPE => {
                signal_name(signal).map(|n| format!("{n}, a crash"))
            }
            libc::SIGABRT => Some("SIGABRT, an abort".into()),
            libc::SIGKILL => Some("SIGKILL, killed outright".into()),
            libc::SIGXCPU => Some("SIGXCPU, its CPU time ran out".into()),
            _ => signal_name(signal).map(str::to_string),
        };
        let said = reported.map(|code| {
            format!("the sandbox reports that as exit code {code}, which os._exit({code}) would also give")
        });
        match [what, said].into_iter().flatten().collect::<Vec<_>>().join("; ") {
            both if both.is_empty() => format!("it was killed by signal {signal}"),
            both => format!("it was killed by signal {signal} ({both})"),
        }
    }
}

/// A signal's name, `SIGTERM`, for the signals a learner's code meets.
fn signal_name(signal: i32) -> Option<&'static str> {
    let named = [
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGPIPE, "SIGPIPE"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGXCPU, "SIGXCPU"),
        (libc::SIGXFSZ, "SIGXFSZ"),
    ];
    named.iter().find(|(n, _)| *n == signal).map(|(_, name)| *name)
}

impl Death {
    /// The signal that killed it, when one did (as bubblewrap reports it, too).
    pub(super) fn signal(&self) -> Option<i32> {
        match self.ending() {
            Some(Ending::Killed { signal, .. }) => Some(signal),
            _ => None,
        }
    }

    fn ending(&self) -> Option<Ending> {
        self.status.map(|status| Ending::of(status, self.sandboxed))
    }

    /// Why, as the learner reads it: their code is the likely cause.
    pub(super) fn note(&self) -> String {
        match self.ending() {
            Some(Ending::Exited(code)) => {
                format!("it exited with code {code} (os._exit, or a crash)")
            }
            Some(Ending::Killed { signal, reported }) => Ending::killed(signal, reported),
            Some(Ending::Other) => "it ended".into(),
            None => "it closed its channel to the workshop".into(),
        }
    }

    /// Why, as said of an interpreter that never started the runner.
    pub(super) fn plain(&self) -> String {
        match self.ending() {
            Some(Ending::Exited(code)) => format!("it exited with code {code}"),
            Some(Ending::Killed { signal, reported }) => Ending::killed(signal, reported),
            _ => "it ended".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_is_read_from_the_status_and_from_the_code_bubblewrap_makes_of_it() {
        use std::os::unix::process::ExitStatusExt;
        let exited = |code: i32| ExitStatus::from_raw(code << 8);
        let killed = ExitStatus::from_raw(libc::SIGSEGV);
        assert_eq!(Ending::of(killed, false), Ending::Killed { signal: 11, reported: None });
        assert_eq!(
            Ending::of(exited(139), true),
            Ending::Killed { signal: 11, reported: Some(139) }
        );
        assert_eq!(Ending::of(exited(139), false), Ending::Exited(139));
        for code in [0, 1, 128, 193, 255] {
            assert_eq!(Ending::of(exited(code), true), Ending::Exited(code), "{code}");
        }
        assert_eq!(
            Ending::killed(libc::SIGXCPU, None),
            "it was killed by signal 24 (SIGXCPU, its CPU time ran out)"
        );
        assert_eq!(Ending::killed(64, None), "it was killed by signal 64");
        assert_eq!(
            Ending::killed(64, Some(192)),
            "it was killed by signal 64 (the sandbox reports that as exit code 192, which os._exit(192) would also give)"
        );
        let death = Death { status: Some(exited(137)), output: String::new(), sandboxed: true };
        assert!(
            death.note().starts_with("it was killed by signal 9 (SIGKILL, killed outright; "),
            "{}",
            death.note()
        );
    }
}
