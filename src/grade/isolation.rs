//! How the submissions of a run are isolated: bubblewrap, or nothing (and what that leaves open).

use crate::bridge::sandbox::{self, Bubblewrap, Interpreter, Unusable};
use crate::cli::SandboxMode;
use crate::error::Error;

/// How the submissions of this run are isolated, decided once.
pub(crate) enum Isolation {
    Bwrap(String),
    /// Without namespaces: asked for (`--sandbox none`), or bubblewrap could not run here.
    Without(Option<Unusable>),
}

const INSTALL: &str = "Install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)";
const NAMESPACES: &str = "bubblewrap needs user namespaces: see sysctl user.max_user_namespaces (and kernel.unprivileged_userns_clone on Debian, kernel.apparmor_restrict_unprivileged_userns on Ubuntu 24.04); Docker's default seccomp profile blocks them inside a container";

/// `--sandbox`: bubblewrap when it is asked for or (`auto`) when it works here.
pub(crate) fn isolate(python: &mut Interpreter, mode: SandboxMode) -> Result<Isolation, Error> {
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
            Err(Error::usage(format!(
                "--sandbox bwrap: {}. {next}; or grade with --sandbox auto, which says what is then not isolated.",
                unusable.why
            )))
        }
        Err(unusable) => Ok(Isolation::Without(Some(unusable))),
    }
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
            _ => None,
        }
    }

    /// The summary's line on isolation.
    pub(crate) fn line(&self) -> String {
        match self {
            Isolation::Bwrap(version) => format!("sandbox: {version}: {}", sandbox::HELD_WITH_BWRAP),
            Isolation::Without(None) => {
                format!("sandbox: none (--sandbox none); not isolated: {}", sandbox::MISSING_WITHOUT)
            }
            Isolation::Without(Some(unusable)) => {
                format!("sandbox: none, since {}; not isolated: {}", unusable.why, sandbox::MISSING_WITHOUT)
            }
        }
    }
}
