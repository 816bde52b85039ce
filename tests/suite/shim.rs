//! A `python3` that is a version manager's shim (a script that picks an interpreter and execs it)
//! is asked once which interpreter it runs; later commands start that one directly, until what
//! picks it changes (PATH, the shim, PYENV_VERSION, a `.python-version` file).

use crate::common::*;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// A folder with a `python3` shim that notes each time it runs, then execs the tests' Python.
fn shim_folder(log: &Path) -> tempfile::TempDir {
    let dir = tempdir();
    let shim = dir.path().join("python3");
    std::fs::write(
        &shim,
        format!("#!/bin/sh\necho ran >> '{}'\nexec '{}' \"$@\"\n", log.display(), python()),
    )
    .unwrap();
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

fn times_run(log: &Path) -> usize {
    std::fs::read_to_string(log).map(|t| t.lines().count()).unwrap_or(0)
}

#[test]
fn a_shim_is_asked_once_and_asked_again_when_what_picks_the_version_changes() {
    let w = Workshop::lesson5();
    let log = w.home().join("shim.log");
    let folder = shim_folder(&log);
    let path = format!("{}:{}", folder.path().display(), std::env::var("PATH").unwrap());
    let check = |extra: &[(&str, &str)]| {
        let mut cmd = w.command(&[
            "check",
            "--file",
            "lessons/structured-errors/solution/errors.py",
            "--format",
            "json",
        ]);
        cmd.env_remove("WORKSHOP_PYTHON").env("PATH", &path);
        for (k, v) in extra {
            cmd.env(k, v);
        }
        let run = run(cmd);
        assert_eq!(run.code, 0, "{}{}", run.stderr, run.stdout);
        assert_eq!(run.json()["status"], "pass");
    };
    check(&[]);
    assert_eq!(times_run(&log), 1, "the first check asks the shim");
    check(&[]);
    check(&[]);
    assert_eq!(times_run(&log), 1, "later checks start the interpreter behind it directly");
    check(&[("PYENV_VERSION", "3.11")]);
    assert_eq!(times_run(&log), 2, "a new PYENV_VERSION is asked about");
    w.write(".python-version", "3.11\n");
    check(&[]);
    assert_eq!(times_run(&log), 3, "a new .python-version is asked about");
    check(&[]);
    assert_eq!(times_run(&log), 3);
}
