//! The interpreter behind a version manager's shim. With pyenv (or asdf, mise), `python3` on PATH
//! is a chain of shell scripts that works out which Python to run and then execs it: four fifths
//! of a `check`. So the interpreter it picks (`sys.executable`) is asked once, remembered under
//! what picks it (PATH, the shim itself, the version managers' variables, the version files that
//! apply from here up, pyenv's global version file), and started directly from then on. A change
//! to any of those (`pyenv local 3.12`, `PYENV_VERSION=…`) is a new key, so it is picked up at
//! once. An interpreter that is a program already (not a script) is started as it is.
//!
//! The record lives in the user's cache folder, which the learner's code could write: it could
//! as well write a `.python-version` file or put a `python3` earlier on PATH, which choose the
//! interpreter the same way, so this adds no new way in. A record is only used while it names an
//! executable file.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use sha2::{Digest, Sha256};

/// Version files version managers read, from the working folder up to `/`.
const VERSION_FILES: [&str; 3] = [".python-version", ".tool-versions", ".mise.toml"];

/// Environment variables that change which interpreter a shim runs.
fn selects(name: &str) -> bool {
    ["PYENV", "ASDF", "MISE", "RTX"].iter().any(|p| name.starts_with(p))
        || matches!(name, "PATH" | "HOME" | "VIRTUAL_ENV" | "CONDA_PREFIX")
}

/// `name` (no slash) in a folder of PATH, as an executable file; a path as it is.
fn found(name: &OsStr) -> Option<PathBuf> {
    if name.as_bytes().contains(&b'/') {
        return Some(PathBuf::from(name));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// Whether the file is a script (`#!`), which is what a shim is.
fn is_script(path: &Path) -> bool {
    let mut head = [0u8; 2];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok() && head == *b"#!"
}

/// Everything that decides what the shim at `shim` runs, as one digest.
fn key(shim: &Path) -> String {
    let mut hash = Sha256::new();
    let mut put = |bytes: &[u8]| {
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    put(shim.as_os_str().as_bytes());
    if let Ok(meta) = std::fs::metadata(shim) {
        put(format!("{} {} {} {}", meta.dev(), meta.ino(), meta.size(), meta.mtime()).as_bytes());
    }
    let mut vars: Vec<(OsString, OsString)> =
        std::env::vars_os().filter(|(k, _)| k.to_str().is_some_and(selects)).collect();
    vars.sort();
    for (name, value) in vars {
        put(name.as_bytes());
        put(value.as_bytes());
    }
    let mut files: Vec<PathBuf> = Vec::new();
    if let Ok(here) = std::env::current_dir() {
        for dir in here.ancestors() {
            files.extend(VERSION_FILES.iter().map(|f| dir.join(f)));
        }
    }
    let pyenv_root = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pyenv")));
    files.extend(pyenv_root.map(|root| root.join("version")));
    for file in files {
        if let Ok(text) = crate::files::read_data(&file, 64 << 10) {
            put(file.as_os_str().as_bytes());
            put(&text);
        }
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn executable(path: &Path) -> bool {
    path.is_absolute()
        && path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The folder the records are kept in.
fn records() -> Option<PathBuf> {
    crate::files::cache_dir().map(|dir| dir.join("interpreters"))
}

/// Ask the shim which interpreter it runs, within a few seconds. Started as a worker is (its
/// own process group, registered, the parent-death signal), so a command that ends while it
/// asks (an error, a signal) ends it too.
fn ask(shim: &Path) -> Option<PathBuf> {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(shim);
    command
        .args(["-I", "-S", "-c", "import sys; sys.stdout.write(sys.executable)"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0);
    let mut child = super::reap::spawn(command, false, &[], super::reap::Place::Anywhere).ok()?;
    let until = std::time::Instant::now() + Duration::from_secs(10);
    let answered = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.success(),
            Ok(None) if std::time::Instant::now() < until => {
                std::thread::sleep(Duration::from_millis(2))
            }
            _ => break false,
        }
    };
    let mut out = Vec::new();
    if answered {
        child.stdout.take()?.take(4096).read_to_end(&mut out).ok()?;
    }
    // Out of the registry, with anything it left in its group.
    super::reap::kill_all(&mut super::process::Process::Started(child));
    Some(PathBuf::from(OsStr::from_bytes(&out))).filter(|p| answered && executable(p))
}

/// The interpreter to start for `name`: the one behind it when it is a shim, else `name`.
pub(super) fn behind(name: &OsStr) -> OsString {
    let Some(shim) = found(name).filter(|p| is_script(p)) else { return name.to_os_string() };
    let key = key(&shim);
    let record = records().map(|dir| dir.join(&key[..32]));
    if let Some(record) = &record {
        if let Ok(text) = crate::files::read_data(record, 4096) {
            if let Some(rest) =
                text.strip_prefix(key.as_bytes()).and_then(|r| r.strip_prefix(b"\n"))
            {
                let path =
                    PathBuf::from(OsStr::from_bytes(rest.strip_suffix(b"\n").unwrap_or(rest)));
                if executable(&path) {
                    return path.into_os_string();
                }
            }
        }
    }
    let Some(real) = ask(&shim) else { return name.to_os_string() };
    if let Some(record) = record {
        let mut text = format!("{key}\n").into_bytes();
        text.extend_from_slice(real.as_os_str().as_bytes());
        text.push(b'\n');
        if let Some(dir) = record.parent() {
            let temp = dir.join(format!(".{}.{}.tmp", &key[..32], std::process::id()));
            let made = crate::files::make_cache_dir(dir);
            let written = made.and_then(|()| std::fs::write(&temp, &text));
            if written.and_then(|()| std::fs::rename(&temp, &record)).is_err() {
                let _ = std::fs::remove_file(&temp);
            }
        }
    }
    real.into_os_string()
}
