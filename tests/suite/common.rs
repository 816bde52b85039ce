//! The shared builder for integration tests: a throwaway workshop root holding a copy of the
//! repository's lessons, starters and recordings, and the real binary run inside it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_workshop");

/// The call deadline (`--timeout`) of a test whose file loops on purpose, where the deadline's
/// length is not what it tests: each hang keeps a core busy until the deadline ends it.
pub(crate) const HANG_TIMEOUT: &str = "0.5";

/// Where the tests make their temporary folders, and the `TMPDIR` of every command they run:
/// `TMPDIR` when it is set, else on Linux `/dev/shm` (a file system in memory) when anyone may
/// write there, else the system's. The suite makes and deletes thousands of small files, and on
/// ext4 each new file's inode is sought past every one deleted lately: docs/benchmarks.md.
pub(crate) fn scratch() -> &'static Path {
    static SCRATCH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    SCRATCH.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        let open_to_all = || {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(shm)
                .is_ok_and(|m| m.is_dir() && m.permissions().mode() & 0o1777 == 0o1777)
        };
        match std::env::var_os("TMPDIR") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ if cfg!(target_os = "linux") && open_to_all() => shm.to_path_buf(),
            _ => std::env::temp_dir(),
        }
    })
}

/// A temporary folder under `scratch()`, deleted when dropped.
pub(crate) fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir_in(scratch()).unwrap()
}

/// `each` called on every one of `items`, a few at a time (one per core, two at least): for a
/// test's loop over runs that do not depend on one another, such as every lesson's replays. Most
/// of a command's time is spent waiting on its processes, so the items side by side keep the
/// cores busy where the suite's other tests leave them idle. A panic in any of them fails the
/// test, once the others have ended.
pub(crate) fn each_at_once<T: Sync>(items: &[T], each: impl Fn(&T) + Sync) {
    map_at_once(items, each);
}

/// As `each_at_once`, with what `each` made of every item, in the items' order. A panic reaches
/// the test as it was raised, with its own message.
pub(crate) fn map_at_once<T: Sync, R: Send>(items: &[T], each: impl Fn(&T) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 4);
    let next = AtomicUsize::new(0);
    let mut made: Vec<(usize, R)> = std::thread::scope(|scope| {
        let worker = || {
            let mut mine = Vec::new();
            loop {
                let at = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(at) else { return mine };
                mine.push((at, each(item)));
            }
        };
        let started: Vec<_> = (0..workers.min(items.len())).map(|_| scope.spawn(worker)).collect();
        let joined = started.into_iter().map(|w| w.join());
        joined
            .flat_map(|mine| mine.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    });
    made.sort_by_key(|(at, _)| *at);
    made.into_iter().map(|(_, one)| one).collect()
}

/// `a` and `b` run side by side, for two commands of a test that do not depend on each other.
pub(crate) fn at_once<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    std::thread::scope(|scope| {
        let b = scope.spawn(b);
        let a = a();
        (a, b.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A learner file kept under tests/fixtures/learners/.
pub(crate) fn fixture(name: &str) -> PathBuf {
    repo().join("tests/fixtures/learners").join(name)
}

/// The shipped lessons the course tests are written about, in course order.
pub(crate) const FOUNDATIONS: [&str; 3] = ["tool-results", "structured-errors", "uncertain-state"];

pub(crate) struct Workshop {
    dir: tempfile::TempDir,
    /// `HOME` and `XDG_CACHE_HOME` of every run: nothing a test runs writes to the real ones.
    home: tempfile::TempDir,
}

/// What a run printed and how it ended. As in just's `Test`, standard error must be declared:
/// a run whose stderr is not empty fails its test when it is dropped, unless the test matched
/// something in it (`run.stderr.contains(..)` that held, `starts_with`, `==`) or read it as text
/// (`&run.stderr` as a `&str`, `lines`, `split`...). A match that failed, and printing it in an
/// assertion's message, declare nothing.
#[derive(Debug)]
pub(crate) struct Run {
    pub stdout: String,
    pub stderr: Stderr,
    pub code: i32,
}

impl Run {
    pub(crate) fn new(stdout: String, stderr: String, code: i32) -> Run {
        let shown = format!("exit {code}; stdout:\n{stdout}");
        Run {
            stdout,
            stderr: Stderr { text: stderr, declared: std::cell::Cell::new(false), shown },
            code,
        }
    }

    /// That the command ended with a verdict, pass (0) or fail (1), not an error or a crash:
    /// else the test fails with `what` it ran, its exit status and what it printed.
    pub(crate) fn gave_a_verdict(&self, what: &str) {
        let code = self.code;
        assert!(code == 0 || code == 1, "{what}: exit {code}\n{}\n{}", self.stdout, self.stderr);
    }

    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!("stdout is not JSON ({e}):\n{}\nstderr:\n{}", self.stdout, self.stderr)
        })
    }
}

/// A run's standard error. Printing it (in an assertion's message) declares nothing; a match
/// that held does. Checked when it is dropped (so `run.stdout` can still be moved out of a run).
#[derive(Debug)]
pub(crate) struct Stderr {
    text: String,
    declared: std::cell::Cell<bool>,
    /// The run's exit status and stdout, for the message.
    shown: String,
}

impl Drop for Stderr {
    fn drop(&mut self) {
        if !std::thread::panicking() && !self.text.is_empty() && !self.declared.get() {
            panic!(
                "unexpected stderr: declare it with run.stderr.contains(..):\n{}\n{}",
                self.text, self.shown
            );
        }
    }
}

impl Stderr {
    fn declare(&self, held: bool) -> bool {
        if held {
            self.declared.set(true);
        }
        held
    }

    /// Whether it holds `part`; a match declares it.
    pub(crate) fn contains(&self, part: &str) -> bool {
        self.declare(self.text.contains(part))
    }

    pub(crate) fn starts_with(&self, part: &str) -> bool {
        self.declare(self.text.starts_with(part))
    }

    /// Its lines, for a test that reads them one by one (this declares it).
    pub(crate) fn lines(&self) -> std::str::Lines<'_> {
        self.declare(true);
        self.text.lines()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The text, to look at without declaring anything.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }
}

/// Reading the text (to parse it, or to hand it to a function of `&str`) declares it.
impl std::ops::Deref for Stderr {
    type Target = str;

    fn deref(&self) -> &str {
        self.declare(true);
        &self.text
    }
}

impl std::fmt::Display for Stderr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl PartialEq<&str> for Stderr {
    fn eq(&self, other: &&str) -> bool {
        self.declare(self.text == *other)
    }
}

/// The interpreter the tests run: `WORKSHOP_PYTHON` when it is set, else `python3` from PATH
/// resolved to the program itself (not a launcher such as a pyenv shim, which costs each start
/// a shell and needs an environment the bridge does not pass on).
pub(crate) fn python() -> &'static str {
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON.get_or_init(|| {
        // Under nextest each test is a process of its own, and asking through a launcher costs
        // most of a second: the first test of a run writes the answer down for the others.
        let shared = std::env::var("NEXTEST_RUN_ID")
            .ok()
            .map(|run| Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("python-of-run-{run}")));
        if let Some(known) = shared.as_ref().and_then(|path| std::fs::read_to_string(path).ok()) {
            if !known.is_empty() {
                return known;
            }
        }
        let given = std::env::var("WORKSHOP_PYTHON").ok().filter(|p| !p.is_empty());
        let asked = given.clone().unwrap_or_else(|| "python3".into());
        let out = Command::new(&asked)
            .args(["-I", "-c", "import sys; print(sys.executable)"])
            .output()
            .unwrap_or_else(|e| panic!("the tests need Python 3 ({asked}): {e}"));
        let found = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let python = given.filter(|_| found.is_empty()).unwrap_or(found);
        if let Some(path) = shared {
            // Written whole, then renamed: a test starting meanwhile reads all of it or nothing.
            let part = path.with_extension(std::process::id().to_string());
            if std::fs::write(&part, &python).is_ok() {
                let _ = std::fs::rename(&part, &path);
            }
        }
        python
    })
}

pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

impl Workshop {
    pub(crate) fn new() -> Workshop {
        let dir = tempdir();
        for part in ["lessons", "starter", "recordings", "worlds"] {
            let from = repo().join(part);
            if from.is_dir() {
                copy_tree(&from, &dir.path().join(part));
            }
        }
        std::fs::create_dir_all(dir.path().join("work")).unwrap();
        Workshop { dir, home: tempdir() }
    }

    /// A workshop holding one lesson of the repository only: for tests of that lesson's behaviour
    /// that run commands without naming it (with one lesson, every command assumes it).
    pub(crate) fn only(id: &str) -> Workshop {
        Workshop::course(&[id])
    }

    /// A course of its own: these lessons of the repository and no others, so a test about the
    /// course (its order, its first and last lesson, its column widths) holds whatever lessons
    /// the checkout gains.
    pub(crate) fn course(ids: &[&str]) -> Workshop {
        let dir = tempdir();
        // Every world: a lesson's world is found by name under worlds/.
        copy_tree(&repo().join("worlds"), &dir.path().join("worlds"));
        for id in ids {
            for part in ["lessons", "starter", "recordings"] {
                let from = repo().join(part).join(id);
                if from.is_dir() {
                    copy_tree(&from, &dir.path().join(part).join(id));
                }
            }
        }
        std::fs::create_dir_all(dir.path().join("work")).unwrap();
        Workshop { dir, home: tempdir() }
    }

    /// The course the README and the course tests describe: lessons 4, 5 and 6.
    pub(crate) fn foundations() -> Workshop {
        Workshop::course(&FOUNDATIONS)
    }

    /// A root holding only the lesson data under `tests/fixtures/<name>/` (lessons, starter,
    /// recordings), for lessons that exist only in the tests.
    pub(crate) fn from_fixture(name: &str) -> Workshop {
        let dir = tempdir();
        copy_tree(&repo().join("tests/fixtures").join(name), dir.path());
        // The fixture's lessons live in the shipped worlds unless it brings its own.
        if !dir.path().join("worlds").is_dir() {
            copy_tree(&repo().join("worlds"), &dir.path().join("worlds"));
        }
        std::fs::create_dir_all(dir.path().join("work")).unwrap();
        Workshop { dir, home: tempdir() }
    }

    /// The structured-errors lesson alone, as the tests written for it assume.
    pub(crate) fn lesson5() -> Workshop {
        Workshop::only("structured-errors")
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    pub(crate) fn write(&self, rel: &str, text: &str) -> &Workshop {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    pub(crate) fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    /// Copy a fixture learner file into `learners/<name>` and return that relative path.
    pub(crate) fn learner(&self, name: &str) -> String {
        let rel = format!("learners/{name}");
        let text = std::fs::read_to_string(fixture(name))
            .unwrap_or_else(|e| panic!("fixture {name}: {e}"));
        self.write(&rel, &text);
        rel
    }

    /// Put a fixture learner file in place as the work file of structured-errors.
    pub(crate) fn work_file_from(&self, name: &str) -> &Workshop {
        let text = std::fs::read_to_string(fixture(name)).unwrap();
        self.write("work/structured-errors/errors.py", &text)
    }

    /// The home folder every run gets (its cache is `.cache` in it).
    pub(crate) fn home(&self) -> &Path {
        self.home.path()
    }

    /// The binary with a clean environment, run from the root: its own home and cache folder,
    /// the tests' interpreter, no live-model settings, no colour or width from the caller.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.args(args).current_dir(self.root()).stdin(Stdio::null());
        for var in [
            "NO_COLOR",
            "CLICOLOR_FORCE",
            "FORCE_COLOR",
            "WORKSHOP_ROOT",
            "WORKSHOP_ASCII",
            "COLUMNS",
            "XDG_CONFIG_HOME",
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            "WORKSHOP_LIVE_MAX_REQUESTS",
            // The fast path unless a test asks for the plain one (plain.rs).
            "WORKSHOP_PLAIN",
        ] {
            cmd.env_remove(var);
        }
        self.at_home(&mut cmd)
            .env("TERM", "xterm-256color")
            .env("WORKSHOP_PYTHON", python())
            .env("TMPDIR", scratch())
            // The sample key of every test run: fixed, so reports and snapshots repeat.
            .env("WORKSHOP_SEED", "0");
        cmd
    }

    /// `cmd` with this workshop's own home and cache folder, as every run of `command` has:
    /// for a test that starts the binary its own way (through a shell, as another user), so it
    /// writes nothing to the real ones either (the world's compiled code among them).
    pub(crate) fn at_home<'c>(&self, cmd: &'c mut Command) -> &'c mut Command {
        cmd.env("HOME", self.home()).env("XDG_CACHE_HOME", self.home().join(".cache"))
    }

    pub(crate) fn run(&self, args: &[&str]) -> Run {
        run(self.command(args))
    }
}

pub(crate) fn run(mut cmd: Command) -> Run {
    let out = cmd.output().expect("the workshop binary runs");
    Run::new(
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// A file kept under tests/fixtures/watch/ (learner files and broken recordings for `watch`).
pub(crate) fn watch_fixture(rel: &str) -> PathBuf {
    repo().join("tests/fixtures/watch").join(rel)
}

impl Workshop {
    /// Copy `tests/fixtures/watch/<fixture>` to `rel` in the root, replacing what is there.
    pub(crate) fn copy_watch_fixture(&self, fixture: &str, rel: &str) -> &Workshop {
        let text = std::fs::read_to_string(watch_fixture(fixture))
            .unwrap_or_else(|e| panic!("fixture {fixture}: {e}"));
        self.write(rel, &text)
    }
}

/// A real terminal: a tmux session running the binary, read back with capture-pane.
pub(crate) struct Tmux {
    name: String,
}

impl Tmux {
    pub(crate) fn start(ws: &Workshop, args: &str) -> Option<Tmux> {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let name = format!("workshop-test-{}-{n}", std::process::id());
        let script = format!(
            "export HOME='{home}' XDG_CACHE_HOME='{home}/.cache' WORKSHOP_PYTHON='{python}'; cd '{}' && '{}' {args}; echo EXITED $?; sleep 30",
            ws.root().display(),
            BIN,
            home = ws.home().display(),
            python = python(),
        );
        let ok = std::process::Command::new("tmux")
            .args(["new-session", "-d", "-s", &name, "-x", "100", "-y", "50", &script])
            .env_remove("NO_COLOR")
            .status()
            .ok()?
            .success();
        ok.then_some(Tmux { name })
    }

    pub(crate) fn screen(&self) -> String {
        let out = std::process::Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.name])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Wait (bounded) until the screen shows `text`.
    pub(crate) fn wait_for(&self, text: &str) -> String {
        for _ in 0..300 {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("never saw {text:?}:\n{}", self.screen());
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", self.name.as_str()];
        args.extend_from_slice(keys);
        std::process::Command::new("tmux").args(&args).status().unwrap();
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ =
            std::process::Command::new("tmux").args(["kill-session", "-t", &self.name]).status();
    }
}

/// Text with every run of whitespace made one space, so a check of a sentence does not depend on
/// where the output wrapped it.
pub(crate) fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether a process is still there and not a zombie waiting to be reaped (from /proc on Linux,
/// elsewhere from `ps`, so a test of what outlives a command never passes for want of /proc).
pub(crate) fn alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
        return stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next())
            != Some("Z");
    }
    let pid = pid.to_string();
    let ps = std::process::Command::new("ps").args(["-o", "stat=", "-p", &pid]).output();
    let ps = ps.expect("ps runs");
    let state = String::from_utf8_lossy(&ps.stdout).trim().to_string();
    !state.is_empty() && !state.starts_with('Z')
}

/// Wait (boundedly: this is no speed test) for a condition.
pub(crate) fn eventually(what: &str, mut ok: impl FnMut() -> bool) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !ok() {
        assert!(std::time::Instant::now() < until, "gave up waiting: {what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The pid a fixture wrote to `path`, once it is there.
pub(crate) fn pid_in(path: &Path) -> u32 {
    eventually(&format!("a pid in {}", path.display()), || {
        std::fs::read_to_string(path).is_ok_and(|t| !t.trim().is_empty())
    });
    let text = std::fs::read_to_string(path).unwrap();
    text.trim().parse().unwrap_or_else(|e| panic!("{} holds {text:?}: {e}", path.display()))
}

/// Python that, put at the top of a learner's file, writes the names of the variables in its
/// environment to `<file>.env`, one a line.
pub(crate) const ENVIRONMENT_NOTE: &str =
    "import os as _os\nwith open(__file__ + '.env', 'w') as _out:\n    _out.write('\\n'.join(sorted(_os.environ)))\n";

/// The variables a learner's Python may see (see `passed_on` in src/bridge/mod.rs), and this
/// workshop's mark: none other, whatever the workshop itself was given.
pub(crate) fn assert_only_the_allowed_environment(names: &str) {
    let allowed = [
        "PATH",
        "LANG",
        "LANGUAGE",
        "TZ",
        "HOME",
        "TMPDIR",
        "PYENV_VERSION",
        "PYENV_ROOT",
        "WORKSHOP_BRIDGE",
    ];
    for name in names.lines() {
        assert!(
            allowed.contains(&name) || name.starts_with("LC_"),
            "{name} reached the learner's Python:\n{names}"
        );
    }
    assert!(names.lines().any(|n| n == "PATH"), "PATH is passed on:\n{names}");
}

/// Run with a guard: a run that has not ended after a minute is killed and the test fails, so a
/// regression that hangs shows up as a failure, not as a stuck suite.
pub(crate) fn run_guarded(cmd: Command) -> Run {
    run_within(cmd, 60, "the command hung")
}

/// As `run_guarded`, with a bound of `seconds` and what a run past it means.
pub(crate) fn run_within(mut cmd: Command, seconds: u64, past: &str) -> Run {
    use std::process::Stdio;
    let dir = tempdir();
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    cmd.stdout(Stdio::from(std::fs::File::create(&out).unwrap()));
    cmd.stderr(Stdio::from(std::fs::File::create(&err).unwrap()));
    let mut child = cmd.spawn().unwrap();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{past}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Run::new(
        std::fs::read_to_string(out).unwrap(),
        std::fs::read_to_string(err).unwrap(),
        status.code().unwrap_or(-1),
    )
}

/// A named pipe at `path`: reading it blocks until someone writes, which nobody will.
pub(crate) fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo(3) with a NUL-terminated path that lives across the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo {}", path.display());
}

/// The command with its address space capped at 1 GiB: reading /dev/zero would never end, so a
/// regression fails fast instead of filling the machine's memory.
pub(crate) fn memory_capped(mut cmd: Command) -> Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit only, between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let cap = libc::rlimit { rlim_cur: 1 << 30, rlim_max: 1 << 30 };
            if libc::setrlimit(libc::RLIMIT_AS, &cap) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

/// The ids of a `--format json` report's checks with this status, in order.
pub(crate) fn ids_with(report: &serde_json::Value, status: &str) -> Vec<String> {
    report["checks"]
        .as_array()
        .expect("checks is a list")
        .iter()
        .filter(|c| c["status"] == status)
        .map(|c| c["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// One check of a `--format json` report, by id.
pub(crate) fn check<'r>(report: &'r serde_json::Value, id: &str) -> &'r serde_json::Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id}"))
}

/// The ids of a report's checks, in the order they ran.
pub(crate) fn check_ids(report: &serde_json::Value) -> Vec<&str> {
    report["checks"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect()
}

/// `check <lesson> --file <file> --format json`: the run (which must not have panicked) and its
/// report.
pub(crate) fn check_report(ws: &Workshop, lesson: &str, file: &str) -> (Run, serde_json::Value) {
    let run = ws.run(&["check", lesson, "--file", file, "--format", "json"]);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let report = run.json();
    (run, report)
}

/// A learner file for `--file`: `@name` is one of the lesson's mistakes (inside every root), any
/// other name a test fixture under `fixtures` (a folder of the repository), read where it is.
pub(crate) fn lesson_file(lesson: &str, fixtures: &str, name: &str) -> String {
    match name.strip_prefix('@') {
        Some(mistake) => format!("lessons/{lesson}/mistakes/{mistake}"),
        None => repo().join(fixtures).join(name).display().to_string(),
    }
}

/// One replay of a lesson's ticket with a code (a recorded code's name or a file) as JSON; the
/// replay must succeed.
pub(crate) fn replay_json(
    ws: &Workshop,
    lesson: &str,
    ticket: &str,
    code: &str,
) -> serde_json::Value {
    let run = ws.run(&["watch", lesson, "--ticket", ticket, "--code", code, "--format", "json"]);
    assert_eq!(run.code, 0, "{ticket} with {code}: {}", run.stderr);
    run.json()
}

/// The events of a replay of one kind, in order.
pub(crate) fn events_of_kind<'a>(
    replay: &'a serde_json::Value,
    kind: &str,
) -> Vec<&'a serde_json::Value> {
    replay["events"].as_array().unwrap().iter().filter(|e| e["kind"] == kind).collect()
}

/// The kind of a replay's last event.
pub(crate) fn last_event_kind(replay: &serde_json::Value) -> &str {
    replay["events"].as_array().unwrap().last().unwrap()["kind"].as_str().unwrap()
}
