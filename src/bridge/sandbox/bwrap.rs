//! bubblewrap: found, tried once, and the command line that starts Python in its sandbox.

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use super::bounded::run_bounded;
use super::limits::{SHM_SIZE, TMPFS_SIZE};
use super::{Folder, Interpreter, Limits, Sandbox};

/// bubblewrap, found and tried: it started this interpreter in a sandbox with these mounts.
#[derive(Clone, Debug)]
pub(crate) struct Bubblewrap {
    pub(super) program: PathBuf,
    /// `bubblewrap 0.8.0`, as it says.
    pub version: String,
    /// The read-only view of the system and of the interpreter, as bwrap arguments.
    pub(super) mounts: Mounts,
}

/// The system's folders, mounted first, and the interpreter's, mounted after the private `/tmp`
/// (an interpreter can live under `/tmp`, such as a venv made there).
#[derive(Clone, Debug, Default)]
pub(super) struct Mounts {
    pub(super) system: Vec<OsString>,
    pub(super) interpreter: Vec<OsString>,
}

/// Why bubblewrap cannot sandbox here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unusable {
    /// False when there is no `bwrap` program at all.
    pub installed: bool,
    pub why: String,
}

/// What `probe` runs inside: the process is in a PID namespace of its own (a low PID) and the
/// root it sees is read-only; `resource` (which every submission's first line imports) is there.
const PROBE: &str = "import os, sys, resource\n\
ok = os.getpid() < 100 and not os.access('/', os.W_OK)\n\
sys.stdout.write('sandboxed' if ok else 'not held: pid %d (its own PID namespace would give a low one), root writable: %s' % (os.getpid(), os.access('/', os.W_OK)))\n";

impl Bubblewrap {
    /// Find bwrap (`WORKSHOP_BWRAP`, else on PATH) and start `python` under it once, with the
    /// sandbox every submission gets. `Err` says why it cannot be used here.
    pub(crate) fn probe(python: &Interpreter) -> Result<Bubblewrap, Unusable> {
        let named = std::env::var_os("WORKSHOP_BWRAP").filter(|p| !p.is_empty());
        let program = match &named {
            Some(path) => Some(PathBuf::from(path)).filter(|p| p.is_file()),
            None => on_path("bwrap"),
        };
        let Some(program) = program else {
            let why = match named {
                Some(path) => format!("there is no bwrap at {} (from WORKSHOP_BWRAP)", Path::new(&path).display()),
                None => "bubblewrap is not installed (no bwrap on PATH)".into(),
            };
            return Err(Unusable { installed: false, why });
        };
        let unusable = |why: String| Unusable { installed: true, why };
        let mut version = Command::new(&program);
        version.arg("--version");
        let version = match run_bounded(version, Duration::from_secs(10)) {
            Ok((status, out, _)) if status.success() && !out.trim().is_empty() => out.trim().to_string(),
            Ok((status, _, err)) => {
                return Err(unusable(format!("{} --version failed ({status}): {}", program.display(), last_line(&err))))
            }
            Err(why) => return Err(unusable(format!("{} would not run: {why}", program.display()))),
        };
        let bwrap = Bubblewrap { program, version, mounts: mounts(&python.dirs) };
        let folder = Folder::new().map_err(|e| unusable(format!("could not make a folder to try it in: {e}")))?;
        let probe = OsStr::new("probe.py");
        folder
            .write(probe, b"")
            .map_err(|e| unusable(format!("could not write in {}: {e}", folder.path().display())))?;
        let sandbox = Sandbox {
            dir: folder.path().to_path_buf(),
            files: vec![probe.to_os_string()],
            limits: Limits::for_grading(Duration::from_secs(1)),
            code: Arc::from(PROBE),
            source: Arc::from(PROBE),
            bwrap: Some(Arc::new(bwrap.clone())),
        };
        let mut command = sandbox.command(&python.executable);
        command.args(["-I", "-S", "-c", PROBE]);
        sandbox.apply(&mut command, &[]);
        let what = format!("{} could not start Python in a sandbox", bwrap.version);
        match run_bounded(command, Duration::from_secs(20)) {
            Ok((_, out, _)) if out == "sandboxed" => Ok(bwrap),
            Ok((_, out, _)) if out.starts_with("not held: ") => Err(unusable(format!(
                "{} started Python, but the sandbox did not hold ({})",
                bwrap.version,
                out.trim_start_matches("not held: ")
            ))),
            Ok((status, out, err)) => {
                let said = if err.trim().is_empty() { out } else { err };
                let said = last_line(&said);
                Err(unusable(if said.is_empty() { format!("{what} ({status})") } else { format!("{what}: {said}") }))
            }
            Err(why) => Err(unusable(format!("{what}: {why}"))),
        }
    }
}

fn last_line(text: &str) -> String {
    text.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").chars().take(300).collect()
}

/// `name` in a folder of PATH, as an executable file.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// The read-only view every sandbox gets: `/usr` and the top-level folders of libraries and
/// programs (recreated as the links they are on merged-/usr systems), the few files of `/etc` the
/// dynamic loader, the time zone and Debian's alternatives need, and the interpreter's own
/// folders wherever it lives (a pyenv under a home folder). Nothing else of the host: no home
/// folders, no other users' files, no sockets under `/run`, and not the submissions.
pub(super) fn mounts(interpreter: &[PathBuf]) -> Mounts {
    let mut args: Vec<OsString> = Vec::new();
    let push = |args: &mut Vec<OsString>, words: &[&OsStr]| args.extend(words.iter().map(|w| w.to_os_string()));
    let ro = OsStr::new("--ro-bind");
    let mut covered: Vec<PathBuf> = vec![PathBuf::from("/usr")];
    push(&mut args, &[ro, OsStr::new("/usr"), OsStr::new("/usr")]);
    for top in ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] {
        let Ok(meta) = std::fs::symlink_metadata(top) else { continue };
        if meta.file_type().is_symlink() {
            if let Ok(target) = std::fs::read_link(top) {
                push(&mut args, &[OsStr::new("--symlink"), target.as_os_str(), OsStr::new(top)]);
            }
        } else if meta.is_dir() {
            push(&mut args, &[ro, OsStr::new(top), OsStr::new(top)]);
        }
        covered.push(PathBuf::from(top));
    }
    let try_ro = OsStr::new("--ro-bind-try");
    for file in [
        // The dynamic loader reads only its cache at run time (`ld.so.conf` is ldconfig's), and
        // each file shown is a mount that costs every start.
        "/etc/ld.so.cache",
        "/etc/localtime",
        "/etc/alternatives",
        "/nix/store",
    ] {
        push(&mut args, &[try_ro, OsStr::new(file), OsStr::new(file)]);
    }
    // Each folder at its real place only: the interpreter is started by its real path, and the
    // folder of a link to it (which may hold anything of the operator's) is never shown.
    let mut binds: Vec<(PathBuf, PathBuf)> = Vec::new();
    for dir in interpreter {
        let Ok(real) = dir.canonicalize() else { continue };
        let inside = |c: &PathBuf| real.starts_with(c);
        if real == Path::new("/") || covered.iter().any(inside) || binds.iter().any(|(_, d)| real.starts_with(d)) {
            continue;
        }
        binds.retain(|(_, d)| !d.starts_with(&real));
        binds.push((real.clone(), real));
    }
    binds.sort();
    let mut own = Vec::new();
    for (source, dest) in &binds {
        push(&mut own, &[ro, source.as_os_str(), dest.as_os_str()]);
    }
    Mounts { system: args, interpreter: own }
}

impl Sandbox {
    /// The command that starts `python` in this sandbox, before the bridge adds Python's own
    /// arguments: `bwrap <namespaces and mounts> -- python`, or `python` itself without bubblewrap.
    pub(in crate::bridge) fn command(&self, python: &OsStr) -> Command {
        let Some(bwrap) = &self.bwrap else { return Command::new(python) };
        let mut command = Command::new(&bwrap.program);
        let size = |bytes: u64| ["--size".to_string(), bytes.to_string()];
        command
            .args(["--unshare-user-try", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"])
            .args(["--unshare-cgroup-try", "--hostname", "workshop-sandbox"])
            // Everything inside dies with bwrap, which dies with the workshop (see `reap`); a new
            // session has no controlling terminal to type into; root gets no capabilities.
            .args(["--die-with-parent", "--new-session", "--cap-drop", "ALL"])
            .args(&bwrap.mounts.system)
            // bwrap leaves most of its /proc writable, /proc/sys among it: host-wide kernel settings
            // (core_pattern, drop_caches) for a sandbox whose uid is root's. All of it read-only.
            .args(["--proc", "/proc", "--remount-ro", "/proc", "--dev", "/dev"])
            .args(size(SHM_SIZE))
            .args(["--tmpfs", "/dev/shm", "--remount-ro", "/dev"])
            .args(size(TMPFS_SIZE))
            .args(["--tmpfs", "/tmp"])
            .args(&bwrap.mounts.interpreter)
            .args(size(TMPFS_SIZE))
            .arg("--tmpfs")
            .arg(&self.dir);
        for file in &self.files {
            let path = self.dir.join(file);
            command.arg("--ro-bind").arg(&path).arg(&path);
        }
        command.args(["--remount-ro", "/"]).arg("--chdir").arg(&self.dir).arg("--clearenv");
        for (name, value) in self.environment() {
            command.arg("--setenv").arg(name).arg(value);
        }
        command.arg("--").arg(python);
        command
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(args: &[OsString]) -> Vec<String> {
        args.iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn the_interpreters_folders_are_shown_once_and_the_system_is_not_shown_twice() {
        let home = tempfile::tempdir().unwrap();
        let prefix = home.path().join("py");
        std::fs::create_dir_all(prefix.join("bin")).unwrap();
        let real = prefix.canonicalize().unwrap();
        let Mounts { system, interpreter } =
            mounts(&[prefix.clone(), prefix.join("bin"), PathBuf::from("/usr/lib"), PathBuf::from("/")]);
        let args = words(&[system, interpreter].concat());
        let shown = real.to_string_lossy().into_owned();
        let binds: Vec<&[String]> = args.windows(3).filter(|w| w[0] == "--ro-bind").collect();
        assert!(binds.iter().any(|w| w[1] == shown && w[2] == shown), "{args:?}");
        assert_eq!(binds.iter().filter(|w| w[2].starts_with(&shown)).count(), 1, "the bin folder is inside: {args:?}");
        assert_eq!(binds.iter().filter(|w| w[2] == "/usr").count(), 1, "{args:?}");
        assert!(!binds.iter().any(|w| w[2] == "/" || w[2] == "/usr/lib"), "{args:?}");
        assert!(!args.iter().any(|a| a == "/home" || a == "/root" || a == "/run" || a == "/tmp"), "{args:?}");
    }
}
