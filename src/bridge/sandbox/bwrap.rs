//! bubblewrap: found, tried once, and the command line that starts Python in its sandbox.

use std::ffi::OsStr;
use std::os::fd::RawFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use super::bounded::run_bounded;
use super::limits::{SHM_SIZE, TMPFS_SIZE};
use super::view::View;
use super::{Folder, Interpreter, Limits, Sandbox};

/// bubblewrap, found and tried: it started this interpreter in a sandbox showing this view.
#[derive(Clone, Debug)]
pub(crate) struct Bubblewrap {
    pub(super) program: PathBuf,
    /// `bubblewrap 0.8.0`, as it says.
    pub version: String,
    /// The read-only root of every sandbox, and the mounts of the system and the interpreter.
    pub(super) view: Arc<View>,
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
        let program = program()?;
        let unusable = |why: String| Unusable { installed: true, why };
        // bwrap says its version while the view is prepared.
        let (version, view) = std::thread::scope(|scope| {
            let asked = std::thread::Builder::new().spawn_scoped(scope, || version_of(&program));
            let view = View::build(&python.dirs, python.compiled.as_deref());
            let version = match asked {
                Ok(asked) => {
                    asked.join().unwrap_or_else(|_| Err("it did not say its version".into()))
                }
                Err(_) => version_of(&program),
            };
            (version, view)
        });
        let version = version.map_err(unusable)?;
        let view =
            view.map_err(|e| unusable(format!("could not prepare what the sandbox shows: {e}")))?;
        let bwrap = Bubblewrap { program, version, view: Arc::new(view) };
        let folder = Folder::new()
            .map_err(|e| unusable(format!("could not make a folder to try it in: {e}")))?;
        let probe = OsStr::new("probe.py");
        folder.write(probe, b"").map_err(|e| {
            unusable(format!("could not write in {}: {e}", folder.path().display()))
        })?;
        let sandbox = Sandbox {
            dir: folder.path().to_path_buf(),
            files: vec![probe.to_os_string()],
            limits: Limits::for_grading(Duration::from_secs(1)),
            code: Arc::from(PROBE),
            source: Arc::from(PROBE),
            bwrap: Some(Arc::new(bwrap.clone())),
            ahead: Arc::default(),
        };
        let mut command = sandbox.command(&python.executable, None);
        command.args(["-I", "-S", "-c", PROBE]);
        sandbox.apply(&mut command, &[]);
        let what = format!("{} could not start Python in a sandbox", bwrap.version);
        // A workshop killed while it runs must not leave bwrap's child waiting on bwrap for ever.
        match crate::bridge::reap::announced_while(command, |command| {
            run_bounded(command, Duration::from_secs(20))
        }) {
            Ok((_, out, _)) if out == "sandboxed" => Ok(bwrap),
            Ok((_, out, _)) if out.starts_with("not held: ") => Err(unusable(format!(
                "{} started Python, but the sandbox did not hold ({})",
                bwrap.version,
                out.trim_start_matches("not held: ")
            ))),
            Ok((status, out, err)) => {
                let said = if err.trim().is_empty() { out } else { err };
                let said = last_line(&said);
                Err(unusable(if said.is_empty() {
                    format!("{what} ({status})")
                } else {
                    format!("{what}: {said}")
                }))
            }
            Err(why) => Err(unusable(format!("{what}: {why}"))),
        }
    }
}

/// bwrap, as `WORKSHOP_BWRAP` names it, else on PATH; `Err` says it is not installed.
fn program() -> Result<PathBuf, Unusable> {
    let named = std::env::var_os("WORKSHOP_BWRAP").filter(|p| !p.is_empty());
    let program = match &named {
        Some(path) => Some(PathBuf::from(path)).filter(|p| p.is_file()),
        None => on_path("bwrap"),
    };
    program.ok_or_else(|| {
        let why = match named {
            Some(path) => {
                format!("there is no bwrap at {} (from WORKSHOP_BWRAP)", Path::new(&path).display())
            }
            None => "bubblewrap is not installed (no bwrap on PATH)".into(),
        };
        Unusable { installed: false, why }
    })
}

/// `bubblewrap 0.8.0`, as `program --version` says it; `Err` says why it would not.
fn version_of(program: &Path) -> Result<String, String> {
    let mut version = Command::new(program);
    version.arg("--version");
    match run_bounded(version, Duration::from_secs(10)) {
        Ok((status, out, _)) if status.success() && !out.trim().is_empty() => {
            Ok(out.trim().to_string())
        }
        Ok((status, _, err)) => {
            Err(format!("{} --version failed ({status}): {}", program.display(), last_line(&err)))
        }
        Err(why) => Err(format!("{} would not run: {why}", program.display())),
    }
}

fn last_line(text: &str) -> String {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .chars()
        .take(300)
        .collect()
}

/// `name` in a folder of PATH, as an executable file.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

impl Sandbox {
    /// The command that starts `python` in this sandbox, before the bridge adds Python's own
    /// arguments: `bwrap <namespaces and mounts> -- python`, or `python` itself without bubblewrap.
    /// `wait`: a descriptor bwrap reads a byte from, once the sandbox is made, before it starts
    /// Python (and then closes, so Python never has it).
    ///
    /// bwrap starts in a session of its own, so its group is its own too (no `process_group` may
    /// be asked of this command: a group leader cannot start a session). Not bwrap's
    /// `--new-session`: that moves its child, the namespace's init, to a new group just before
    /// the init asks for its parent-death signal, and a workshop killed in that moment left the
    /// init running, out of the group the lifeline kills. Started here, the session holds for the
    /// whole tree: no controlling terminal to type into, and one group to kill.
    pub(in crate::bridge) fn command(&self, python: &OsStr, wait: Option<RawFd>) -> Command {
        let Some(bwrap) = &self.bwrap else { return Command::new(python) };
        let view = &bwrap.view;
        let mut command = Command::new(&bwrap.program);
        // SAFETY: setsid(2) as rustix's raw system call, async-signal-safe; nothing allocated.
        unsafe {
            use std::os::unix::process::CommandExt;
            command.pre_exec(|| rustix::process::setsid().map(drop).map_err(Into::into));
        }
        let size = |bytes: u64| ["--size".to_string(), bytes.to_string()];
        command
            .args([
                "--unshare-user-try",
                "--unshare-pid",
                "--unshare-net",
                "--unshare-ipc",
                "--unshare-uts",
            ])
            .args(["--unshare-cgroup-try", "--hostname", "workshop-sandbox"])
            // Everything inside dies with bwrap, which dies with the workshop (see `reap`); root
            // gets no capabilities.
            .args(["--die-with-parent", "--cap-drop", "ALL"])
            // The prepared root, read-only (so no remount of it is needed), and the system on it.
            .args(&view.system)
            // bwrap leaves most of its /proc writable, /proc/sys among it: host-wide kernel settings
            // (core_pattern, drop_caches) for a sandbox whose uid is root's. All of it read-only.
            .args(["--proc", "/proc", "--remount-ro", "/proc"])
            .args(&view.devices)
            .args(size(SHM_SIZE))
            .args(["--tmpfs", "/dev/shm"])
            .args(size(TMPFS_SIZE))
            .args(["--tmpfs", "/tmp"])
            .args(&view.interpreter)
            .args(size(TMPFS_SIZE))
            .arg("--tmpfs")
            .arg(&self.dir);
        for file in &self.files {
            let path = self.dir.join(file);
            command.arg("--ro-bind").arg(&path).arg(&path);
        }
        if let Some(fd) = wait {
            command.arg("--block-fd").arg(fd.to_string());
        }
        command.arg("--chdir").arg(&self.dir).arg("--clearenv");
        for (name, value) in self.environment() {
            command.arg("--setenv").arg(name).arg(value);
        }
        command.arg("--").arg(python);
        command
    }
}
