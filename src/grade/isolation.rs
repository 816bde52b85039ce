//! How the submissions of a run are isolated: bubblewrap, or nothing (and what that leaves open).

use crate::bridge::sandbox::{self, Bubblewrap, Interpreter, Unusable};
use crate::cli::SandboxMode;
use crate::error::{Error, FlagError};

/// How the submissions of this run are isolated, decided once.
pub(crate) enum Isolation {
    Bwrap(String),
    /// Without namespaces: asked for (`--sandbox none`), or bubblewrap could not run here.
    Without(Option<Unusable>),
    /// Without namespaces, on a system bubblewrap does not run on at all (its name, such as
    /// `macos`), where `auto` was asked for.
    NotLinux(&'static str),
}

const INSTALL: &str = "Install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)";
const NAMESPACES: &str = "bubblewrap needs user namespaces: see sysctl user.max_user_namespaces (and kernel.unprivileged_userns_clone on Debian, kernel.apparmor_restrict_unprivileged_userns on Ubuntu 24.04); Docker's default seccomp profile blocks them inside a container";

/// Where to grade untrusted code when this system cannot sandbox it.
const WHERE_INSTEAD: &str = "grade untrusted code on Linux instead (a CI runner, or the Exercism \
                             test runner's container: see docs/operators.md)";

/// `--sandbox`: bubblewrap when it is asked for or (`auto`) when it works here.
pub(crate) fn isolate(python: &mut Interpreter, mode: SandboxMode) -> Result<Isolation, Error> {
    if let Some(decided) = off_linux(std::env::consts::OS, mode) {
        return decided;
    }
    if mode == SandboxMode::None {
        return Ok(Isolation::Without(None));
    }
    match Bubblewrap::probe(python) {
        Ok(bwrap) => {
            let version = bwrap.version.clone();
            python.use_bwrap(bwrap);
            Ok(Isolation::Bwrap(version))
        }
        Err(unusable) if mode == SandboxMode::Bwrap => {
            let next = if unusable.installed { NAMESPACES } else { INSTALL };
            Err(FlagError::Bwrap { why: unusable.why, next }.into())
        }
        Err(unusable) => Ok(Isolation::Without(Some(unusable))),
    }
}

/// What `mode` comes to on the system `os` (`std::env::consts::OS`) where that alone decides:
/// bubblewrap is Linux's, so elsewhere `auto` grades without it and `bwrap` is refused.
fn off_linux(os: &'static str, mode: SandboxMode) -> Option<Result<Isolation, Error>> {
    if os == "linux" {
        return None;
    }
    match mode {
        SandboxMode::None => Some(Ok(Isolation::Without(None))),
        SandboxMode::Auto => Some(Ok(Isolation::NotLinux(os))),
        SandboxMode::Bwrap => {
            let (os, instead) = (os.to_string(), capitalized(WHERE_INSTEAD));
            Some(Err(FlagError::BwrapNotLinux { os, instead }.into()))
        }
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

impl Isolation {
    /// The warning said before grading when `auto` found no working bubblewrap.
    pub(crate) fn warning(&self) -> Option<String> {
        match self {
            Isolation::Without(Some(unusable)) => Some(format!(
                "warning: grading without a sandbox, since {}. Not isolated: {}. {}, or pass --sandbox none to say this is intended.",
                unusable.why,
                sandbox::MISSING_WITHOUT,
                if unusable.installed { NAMESPACES } else { INSTALL }
            )),
            Isolation::NotLinux(os) => Some(format!(
                "warning: grading without a sandbox: the bubblewrap sandbox is Linux-only, and \
                 this system is {os}. Not isolated: {}. To grade code you do not trust, \
                 {WHERE_INSTEAD}; pass --sandbox none to say this is intended.",
                sandbox::MISSING_WITHOUT
            )),
            _ => None,
        }
    }

    /// The summary's line on isolation.
    pub(crate) fn line(&self) -> String {
        match self {
            Isolation::Bwrap(version) => {
                format!("sandbox: {version}: {}", sandbox::HELD_WITH_BWRAP)
            }
            Isolation::Without(None) => {
                format!(
                    "sandbox: none (--sandbox none); not isolated: {}",
                    sandbox::MISSING_WITHOUT
                )
            }
            Isolation::Without(Some(unusable)) => {
                format!(
                    "sandbox: none, since {}; not isolated: {}",
                    unusable.why,
                    sandbox::MISSING_WITHOUT
                )
            }
            Isolation::NotLinux(os) => format!(
                "sandbox: none, since bubblewrap is Linux-only and this is {os}; not isolated: {}",
                sandbox::MISSING_WITHOUT
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_a_mac_auto_grades_without_the_sandbox_and_says_so_once_with_where_to_grade_instead() {
        let decided = off_linux("macos", SandboxMode::Auto);
        let Some(Ok(isolation)) = decided else { panic!("auto is decided on a Mac") };
        let warning = isolation.warning().unwrap_or_default();
        let plainly = "warning: grading without a sandbox: the bubblewrap sandbox is Linux-only, \
                       and this system is macos.";
        assert!(warning.starts_with(plainly), "{warning}");
        assert_eq!(warning.matches("Linux-only").count(), 1, "{warning}");
        assert!(warning.contains("docs/operators.md") && !warning.contains("apt-get"), "{warning}");
        let line = isolation.line();
        let summary = "sandbox: none, since bubblewrap is Linux-only and this is macos;";
        assert!(line.starts_with(summary), "{line}");
    }

    #[test]
    fn on_a_mac_bwrap_is_refused_with_the_reason_and_where_to_grade_instead() {
        let decided = off_linux("macos", SandboxMode::Bwrap);
        let Some(Err(refused)) = decided else { panic!("bwrap is refused on a Mac") };
        assert_eq!(refused.exit_code(), 2);
        let message = refused.to_string();
        let reason = "--sandbox bwrap: the bubblewrap sandbox is Linux-only, and this system is \
                      macos. Grade untrusted code on Linux instead";
        assert!(message.starts_with(reason), "{message}");
        let told = message.contains("docs/operators.md") && message.contains("--sandbox none");
        assert!(told, "{message}");
    }

    #[test]
    fn on_a_mac_none_is_none_as_asked_and_on_linux_bubblewrap_decides() {
        let decided = off_linux("macos", SandboxMode::None);
        let Some(Ok(none)) = decided else { panic!("none stays none") };
        assert!(none.warning().is_none());
        assert!(none.line().starts_with("sandbox: none (--sandbox none)"), "{}", none.line());
        for mode in [SandboxMode::Auto, SandboxMode::Bwrap, SandboxMode::None] {
            assert!(off_linux("linux", mode).is_none(), "{mode:?}");
        }
    }
}
