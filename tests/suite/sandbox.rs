//! `grade` under bubblewrap: each attack of issue 20 is a hostile submission
//! (tests/fixtures/sandbox/) graded beside correct classmates, as an unprivileged user where the
//! machine allows it (as root, the run drops to `nobody` through `setpriv`). Every attack prints
//! what it managed, so a test tells "held" from "never tried".
//!
//! Tests that need bubblewrap say so on stderr and pass when it cannot run here; under `CI=1` or
//! `WORKSHOP_REQUIRE_BWRAP=1` they fail instead.

use crate::common::*;
use crate::grade::lines;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

const TOKEN: &str = "ghp_sandboxtestsecret0123456789";

/// Whether bubblewrap can make namespaces here, and why not.
fn bwrap_here() -> &'static Result<(), String> {
    static HERE: OnceLock<Result<(), String>> = OnceLock::new();
    HERE.get_or_init(|| {
        let out = Command::new("bwrap")
            .args(["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"])
            .stdin(Stdio::null())
            .output();
        match out {
            Err(e) => Err(format!("bwrap does not run ({e})")),
            Ok(out) if out.status.success() => Ok(()),
            Ok(out) => Err(format!(
                "bwrap cannot make namespaces here: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )),
        }
    })
}

fn required() -> bool {
    ["CI", "WORKSHOP_REQUIRE_BWRAP"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// The running test's name (libtest names each test's thread after it).
fn this_test() -> String {
    std::thread::current().name().unwrap_or("a sandbox test").to_string()
}

/// True when the test can go on; otherwise it says why it does not (or fails, when required).
pub(crate) fn needs_bwrap() -> bool {
    let test = this_test();
    if !cfg!(target_os = "linux") {
        // Not even under CI=1: grade never tries it there (see grade::isolation's unit tests).
        eprintln!("SKIPPED {test}: bubblewrap is Linux-only: grade has no sandbox here.");
        return false;
    }
    match bwrap_here() {
        Ok(()) => true,
        Err(why) if required() => {
            panic!("{test} needs bubblewrap: {why}. Install it: apt-get install bubblewrap")
        }
        Err(why) => {
            eprintln!("SKIPPED {test}: it needs bubblewrap, and {why}. Install it (apt-get install bubblewrap); CI=1 or WORKSHOP_REQUIRE_BWRAP=1 makes this a failure.");
            false
        }
    }
}

/// Who grades: as root, `nobody` (through setpriv) with a system interpreter that user can run;
/// otherwise the user running the tests, already unprivileged.
pub(crate) struct Grader {
    pub nobody: bool,
    pub python: String,
}

pub(crate) fn is_root() -> bool {
    if !cfg!(target_os = "linux") {
        // SAFETY: getuid(2) cannot fail.
        return unsafe { libc::getuid() } == 0;
    }
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .map(|l| l.split_whitespace().next() == Some("0"))
        })
        .unwrap_or(false)
}

/// The interpreter of the tests (the program itself, not a launcher): the builder's, which honours
/// `WORKSHOP_PYTHON`.
pub(crate) fn python() -> &'static str {
    crate::common::python()
}

/// The interpreter the tests give `grade`: their own, or, as root, one that `nobody` can run
/// (as root, `grade` runs every submission as nobody and refuses an interpreter it cannot run).
pub(crate) fn grading_python() -> &'static str {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON.get_or_init(|| match is_root() {
        false => python().to_string(),
        true => nobody_python().unwrap_or_else(|| python().to_string()),
    })
}

/// A system interpreter `nobody` can run, if there is one.
fn nobody_python() -> Option<String> {
    ["/usr/bin/python3", "/usr/local/bin/python3"]
        .into_iter()
        .find(|candidate| {
            Command::new("setpriv")
                .args([
                    "--reuid=65534",
                    "--regid=65534",
                    "--clear-groups",
                    candidate,
                    "-I",
                    "-c",
                    "pass",
                ])
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
        .map(String::from)
}

/// The unprivileged grader, or `None` (said, or failed under CI) when there is none here.
pub(crate) fn grader() -> Option<Grader> {
    let test = this_test();
    if !is_root() {
        return Some(Grader { nobody: false, python: grading_python().to_string() });
    }
    if let Some(python) = nobody_python() {
        return Some(Grader { nobody: true, python });
    }
    let why = "the tests run as root, and no Python that nobody can run was found for setpriv";
    if required() {
        panic!("{test}: {why}");
    }
    eprintln!("SKIPPED {test}: {why}");
    None
}

/// A class of submissions in a workshop, graded by `grade` into a results file.
pub(crate) struct Class {
    pub w: Workshop,
    /// The folder `grade` makes its per-file folders in (its TMPDIR), apart from the root.
    pub tmp: tempfile::TempDir,
    /// A word unique to this run: on the processes attacks leave, in classmates' files.
    pub mark: String,
    /// The workshop root as the kernel names it (`/proc/<pid>/cwd`).
    pub root: PathBuf,
}

impl Class {
    pub(crate) fn new() -> Class {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let w = Workshop::lesson5();
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let mark = format!("wsattack{}x{n}", std::process::id());
        let root = w.root().canonicalize().unwrap();
        let tmp = tempdir();
        Class { w, tmp, mark, root }
    }

    /// A hostile submission: the fixture's attack, then the one-bug learner code.
    pub(crate) fn attack(&self, student: &str, fixture: &str, port: u16) {
        let dir = repo().join("tests/fixtures/sandbox");
        let attack = std::fs::read_to_string(dir.join(fixture)).unwrap();
        let base = std::fs::read_to_string(dir.join("_base.py")).unwrap();
        let text = format!("{attack}\n\n{base}")
            .replace("__MARK__", &self.mark)
            .replace("__ROOT__", self.root.to_str().unwrap())
            .replace("__PORT__", &port.to_string());
        self.w.write(&format!("class/{student}/errors.py"), &text);
    }

    /// A correct submission, carrying the mark (which is what an attack would look for).
    pub(crate) fn classmate(&self, student: &str) {
        let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
        self.w.write(&format!("class/{student}/errors.py"), &format!("# {}\n{good}", self.mark));
    }

    /// `workshop <args>` run by `grader`, stdout into `results` when given; bounded, so a run
    /// an attack froze fails the test instead of hanging it.
    pub(crate) fn grade(
        &self,
        grader: &Grader,
        args: &[&str],
        env: &[(&str, &str)],
        results: Option<&Path>,
    ) -> Run {
        let mut cmd = if grader.nobody {
            open_to_nobody(self.w.root(), 0o755);
            open_to_nobody(self.tmp.path(), 0o777);
            let mut cmd = Command::new("setpriv");
            cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]);
            cmd
        } else {
            Command::new(BIN)
        };
        cmd.args(args)
            .current_dir(self.w.root())
            .env_remove("WORKSHOP_BWRAP")
            .env("WORKSHOP_PYTHON", &grader.python)
            .env("TMPDIR", self.tmp.path())
            .env("WORKSHOP_SEED", "0")
            .env("HOME", self.tmp.path())
            // No cache to write to: the world's own process (outside the sandbox) then keeps its
            // runner and host in memory, and nothing at all lands in the TMPDIR checked below.
            .env("XDG_CACHE_HOME", "/proc/no-cache-here");
        for (name, value) in env {
            cmd.env(name, value);
        }
        let run = bounded(cmd, results);
        if run.code == 0 && args.first() == Some(&"grade") {
            assert!(run.stderr.contains("graded "), "grade's summary: {}", run.stderr);
        }
        run
    }
}

/// Let `nobody` read the workshop (0755) and write where `grade` makes its folders (0777).
fn open_to_nobody(dir: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Run `cmd` to its end, at most two minutes, stdout into `results` (or captured).
pub(crate) fn bounded(mut cmd: Command, results: Option<&Path>) -> Run {
    let out_path = results.map(Path::to_path_buf);
    let out_file = match &out_path {
        Some(path) => std::fs::File::create(path).unwrap(),
        None => tempfile::tempfile().unwrap(),
    };
    let mut err_file = tempfile::tempfile().unwrap();
    let mut out_read = out_file.try_clone().unwrap();
    cmd.stdin(Stdio::null()).stdout(out_file).stderr(err_file.try_clone().unwrap());
    let mut child = cmd.spawn().expect("the workshop binary runs");
    let until = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not end within two minutes: an attack froze it?");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let read = |file: &mut std::fs::File| {
        use std::io::Seek;
        let mut text = String::new();
        file.rewind().unwrap();
        file.read_to_string(&mut text).unwrap();
        text
    };
    let stdout = match &out_path {
        Some(path) => std::fs::read_to_string(path).unwrap(),
        None => read(&mut out_read),
    };
    let mut stderr = read(&mut err_file);
    // Which signal, when one ended it: a run killed from outside is told from one that crashed.
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        stderr.push_str(&format!("\n(the test saw the workshop killed by signal {signal})\n"));
    }
    Run::new(stdout, stderr, status.code().unwrap_or(-1))
}

/// Processes on this machine whose command line carries `mark`.
fn marked(mark: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if text.contains(mark) && !text.contains("setpriv") {
                found.push(format!("{name}: {text}"));
            }
        }
    }
    found
}

/// The processes carrying `mark` once they are gone, waiting a few seconds for the kernel to
/// finish ending them; what is left after that outlived its grading.
fn left_after_a_moment(mark: &str) -> Vec<String> {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let left = marked(mark);
        if left.is_empty() || Instant::now() > until {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn output_of<'a>(reports: &'a [Value], student: &str) -> &'a str {
    let file = format!("class/{student}/errors.py");
    let report = reports
        .iter()
        .find(|r| r["file"] == file.as_str())
        .unwrap_or_else(|| panic!("no report for {file}"));
    assert_eq!(
        report["status"], "fail",
        "{file} loads and fails the first check: {}",
        report["message"]
    );
    report["output"].as_str().unwrap()
}

const ATTACKS: [(&str, &str); 9] = [
    ("a_connects_out", "connects_out.py"),
    ("a_daemon_escapes", "daemon_escapes.py"),
    ("a_fills_tmp", "fills_tmp.py"),
    ("a_fork_bomb", "fork_bomb.py"),
    ("a_reads_a_classmate", "reads_a_classmate.py"),
    ("a_reads_secrets", "reads_secrets.py"),
    ("a_rewrites_classmates", "rewrites_classmates.py"),
    ("a_signals_the_workshop", "signals_the_workshop.py"),
    ("a_writes_the_results", "writes_the_results.py"),
];

#[test]
fn every_attack_of_the_issue_is_held_by_the_sandbox_and_classmates_keep_their_grades() {
    if !needs_bwrap() {
        return;
    }
    let Some(grader) = grader() else { return };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let class = Class::new();
    for (student, fixture) in ATTACKS {
        class.attack(student, fixture, port);
    }
    let classmates: Vec<String> = ["b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]
        .iter()
        .map(|s| format!("{s}_classmate"))
        .collect();
    for student in &classmates {
        class.classmate(student);
    }
    let results = class.w.path("results.jsonl");
    // A generous deadline: the attacks fork and write a lot, and the machine may be busy.
    let args = "grade structured-errors class --jobs 2 --sandbox bwrap --timeout 5";
    let args: Vec<&str> = args.split(' ').collect();
    let secrets = [("GITHUB_TOKEN", TOKEN), ("ANTHROPIC_API_KEY", "sk-ant-sandboxtest")];
    let run = class.grade(&grader, &args, &secrets, Some(&results));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.starts_with("graded 19 files in "), "{}", run.stderr);
    assert!(
        run.stderr.contains("sandbox: bubblewrap "),
        "the summary says how files were isolated: {}",
        run.stderr
    );
    assert!(!run.stderr.contains("Install Python"), "{}", run.stderr);

    // Nothing an attack started outlives its grading: not the daemons of a double fork and a
    // chain of 45 sessions (exec'd with an empty environment), nor the vandal, nor the forger.
    let left = left_after_a_moment(&class.mark);
    assert!(left.is_empty(), "processes outlived their grading: {left:?}");

    // The results are the workshop's alone, and complete: one genuine report per file, in order.
    let reports = lines(&std::fs::read_to_string(&results).unwrap());
    let files: Vec<&str> = reports.iter().map(|r| r["file"].as_str().unwrap()).collect();
    let mut expected: Vec<String> =
        ATTACKS.iter().map(|(s, _)| format!("class/{s}/errors.py")).collect();
    expected.extend(classmates.iter().map(|s| format!("class/{s}/errors.py")));
    assert_eq!(files, expected, "no forged line, none missing");
    assert!(output_of(&reports, "a_writes_the_results").contains("forged lines written now: 0"));

    // Every classmate keeps its grade: not rewritten, not killed, not starved of space.
    for report in &reports[ATTACKS.len()..] {
        assert_eq!(report["status"], "pass", "{report}");
    }
    assert!(
        output_of(&reports, "a_rewrites_classmates")
            .contains("classmates' grading folders seen: 0"),
        "{}",
        output_of(&reports, "a_rewrites_classmates")
    );

    attacks_reached_nothing_outside(&reports, &results, &run.stderr, &listener);
    attacks_ran_out_of_room(&reports, &class, &grader);
}

/// What the attacks could see or reach of the world outside their sandbox: no workshop to
/// signal, no secret, no network, no classmate.
fn attacks_reached_nothing_outside(
    reports: &[Value],
    results: &Path,
    stderr: &str,
    listener: &std::net::TcpListener,
) {
    // Signals: its parent is the sandbox's init, which ignores them; no classmate is in reach.
    let signals = output_of(reports, "a_signals_the_workshop");
    assert!(
        signals.contains("signalled pid 1 with SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGSTOP"),
        "{signals}"
    );
    assert!(signals.contains("killed 0 of its other children"), "{signals}");

    // The scrubbed environment cannot be read elsewhere: the file sees its own processes only.
    let secrets = output_of(reports, "a_reads_secrets");
    assert!(secrets.contains("secrets found in: []"), "{secrets}");
    let seen: usize = secrets
        .split("processes seen: ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(seen <= 3, "the sandbox's init and the file's own Python: {secrets}");
    assert!(!std::fs::read_to_string(results).unwrap().contains(TOKEN));
    assert!(!stderr.contains(TOKEN));

    // No network: the listener got nothing.
    let net = output_of(reports, "a_connects_out");
    assert!(net.contains("could not connect"), "{net}");
    assert!(
        listener.accept().is_err_and(|e| e.kind() == std::io::ErrorKind::WouldBlock),
        "a connection arrived"
    );

    // Only its own copy is in view: no classmate, no home folders, no sockets under /run.
    let view = output_of(reports, "a_reads_a_classmate");
    assert_eq!(view.lines().count(), 6, "{view}");
    assert!(view.lines().all(|l| l.contains("hidden: No such file or directory")), "{view}");
}

/// The limits the attacks met: space on each private file system, processes per sandbox.
fn attacks_ran_out_of_room(reports: &[Value], class: &Class, grader: &Grader) {
    // Space: each private file system is capped, and nothing is left in the operator's TMPDIR.
    let fill = output_of(reports, "a_fills_tmp");
    for line in fill.lines() {
        let mib: u64 = line.split(": ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        assert!(mib <= 32, "{line}");
        assert!(
            line.contains("No space left on device") || line.contains("Read-only file system"),
            "{line}"
        );
    }
    let left: Vec<_> =
        std::fs::read_dir(class.tmp.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(left.is_empty(), "grade left {left:?} in its TMPDIR");

    // As an unprivileged user the process limit binds inside the sandbox too, per sandbox.
    let forks = output_of(reports, "a_fork_bomb");
    if grader.nobody || !is_root() {
        let forked: usize =
            forks.split("forked ").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
        // 64 of its own (its namespace's count), however many the user runs elsewhere.
        assert!(forked <= 64 && forks.contains("Resource temporarily unavailable"), "{forks}");
    }
    assert!(output_of(reports, "a_daemon_escapes").contains("daemons started"));
}

/// What one file, `probe` and then the base fixture's functions, printed graded in the sandbox.
fn printed_in_the_sandbox(class: &Class, probe: &str) -> String {
    let base = std::fs::read_to_string(repo().join("tests/fixtures/sandbox/_base.py")).unwrap();
    class.w.write("class/a/errors.py", &format!("{probe}\n{base}"));
    let me = Grader { nobody: false, python: grading_python().to_string() };
    let run = class.grade(&me, &["grade", "class", "--sandbox", "bwrap"], &[], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    lines(&run.stdout)[0]["output"].as_str().unwrap().to_string()
}

#[test]
fn a_run_as_root_drops_every_capability_inside_the_sandbox() {
    if !needs_bwrap() {
        return;
    }
    let probe = "import os\nwith open('/proc/self/status') as s:\n    print([l.split()[1] for l in s if l.startswith('CapEff')])\ntry:\n    os.mkdir('/usr/owned')\nexcept OSError as e:\n    print('mkdir', e.strerror)\n";
    let printed = printed_in_the_sandbox(&Class::new(), probe);
    assert!(
        printed.contains("['0000000000000000']"),
        "no capabilities, whoever runs grade: {printed}"
    );
    assert!(printed.contains("mkdir Read-only file system"), "{printed}");
}

#[test]
fn the_sandbox_shows_a_read_only_root_a_minimal_dev_and_etc_and_no_run() {
    if !needs_bwrap() {
        return;
    }
    let class = Class::new();
    open_to_nobody(class.tmp.path(), 0o777);
    let probe = "import os\ndef tried(path):\n    try:\n        with open(path, 'a'):\n            return 'written'\n    except OSError as e:\n        return e.strerror\nfor folder in ['/', '/dev', '/etc']:\n    print(folder, ' '.join(sorted(os.listdir(folder))))\nfor path in ['/new', '/etc/new', '/etc/workshop/runner', '/etc/ld.so.cache', '/dev/new', '/dev/null', '/usr/new']:\n    print(path, tried(path))\n";
    let printed = printed_in_the_sandbox(&class, probe);
    let said = |what: &str| {
        printed.lines().find_map(|l| l.strip_prefix(&format!("{what} "))).unwrap_or_default()
    };
    let root: Vec<&str> = said("/").split(' ').collect();
    for shown in ["dev", "etc", "proc", "tmp", "usr"] {
        assert!(root.contains(&shown), "{printed}");
    }
    assert!(!root.contains(&"run"), "no /run, and so none of the host's sockets: {printed}");
    assert_eq!(said("/dev"), "fd null shm stderr stdin stdout urandom zero", "{printed}");
    assert!(
        said("/etc")
            .split(' ')
            .all(|e| ["alternatives", "ld.so.cache", "localtime", "workshop"].contains(&e)),
        "{printed}"
    );
    for path in
        ["/new", "/etc/new", "/etc/workshop/runner", "/etc/ld.so.cache", "/dev/new", "/usr/new"]
    {
        let tried = said(path);
        assert!(
            ["Read-only file system", "Permission denied"].contains(&tried),
            "{path}: {tried}\n{printed}"
        );
    }
    assert_eq!(said("/dev/null"), "written", "{printed}");
}

/// The sandboxes waiting for their turn (made ahead, see `Ahead`) whose command line names `folder`.
fn waiting_sandboxes(folder: &str) -> Vec<String> {
    marked(folder).into_iter().filter(|p| p.contains("--block-fd")).collect()
}

/// `grade class --jobs 1` under bubblewrap, started, in `class`'s temp folder.
/// `env`: more of the workshop's environment (`WORKSHOP_BWRAP`).
fn grade_in_turn(class: &Class, stdout: Stdio, env: &[(&str, &Path)]) -> std::process::Child {
    open_to_nobody(class.tmp.path(), 0o777);
    class
        .w
        .at_home(&mut Command::new(BIN))
        .args(["grade", "class", "--jobs", "1", "--sandbox", "bwrap", "--timeout", "60"])
        .current_dir(class.w.root())
        .env("WORKSHOP_PYTHON", grading_python())
        .env("TMPDIR", class.tmp.path())
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn the_next_files_sandbox_is_made_while_one_is_graded_and_runs_nothing_before_its_turn() {
    if !needs_bwrap() {
        return;
    }
    let class = Class::new();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    // Graded first and slow to load: meanwhile the next file's sandbox is made, and waits.
    let first =
        format!("import time\ntime.sleep(1)\nprint('loaded at', repr(time.time()))\n{good}");
    class.w.write("class/a_first/errors.py", &first);
    class.w.write(
        "class/b_next/errors.py",
        &format!("import time\nprint('started at', repr(time.time()))\n{good}"),
    );
    let mut child = grade_in_turn(&class, Stdio::piped(), &[]);
    let folder = class.tmp.path().to_str().unwrap().to_string();
    let mut waiting = Vec::new();
    while waiting.is_empty() && child.try_wait().unwrap().is_none() {
        waiting = waiting_sandboxes(&folder);
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(!waiting.is_empty(), "no sandbox was made ahead while the first file loaded");
    let reports = lines(&String::from_utf8_lossy(&out.stdout));
    let at = |report: &Value, word: &str| -> f64 {
        let printed = report["output"].as_str().unwrap();
        let line = printed
            .lines()
            .find_map(|l| l.strip_prefix(word))
            .unwrap_or_else(|| panic!("{printed}"));
        line.trim().parse().unwrap()
    };
    assert_eq!(reports[1]["status"], "pass", "{}", reports[1]);
    // The second file's code began after the first had loaded: made ahead, it ran nothing.
    assert!(at(&reports[1], "started at") > at(&reports[0], "loaded at"), "{reports:?}");
}

/// `grade` of two files that load for a minute (a sandbox that went on after the workshop died
/// would be seen), started: the process, the mark of its processes, and a deadline to find them by.
fn two_slow_files_graded(class: &Class) -> (std::process::Child, String, Instant) {
    class.w.write("class/a_slow/errors.py", "import time\ntime.sleep(60)\n");
    class.w.write("class/b_next/errors.py", "import time\ntime.sleep(60)\n");
    let child = grade_in_turn(class, Stdio::null(), &[]);
    let folder = class.tmp.path().to_str().unwrap().to_string();
    (child, folder, Instant::now() + Duration::from_secs(30))
}

#[test]
fn a_sandbox_waiting_for_its_turn_goes_with_a_workshop_killed_outright() {
    if !needs_bwrap() {
        return;
    }
    let class = Class::new();
    let (child, folder, until) = two_slow_files_graded(&class);
    while waiting_sandboxes(&folder).is_empty() {
        assert!(Instant::now() < until, "no sandbox was made ahead");
        std::thread::sleep(Duration::from_millis(10));
    }
    // Neither the first file's sandbox nor the one waiting (which has no parent-death signal of
    // its own until it goes on: the lifeline ends it) outlives the workshop.
    killed_leaves_nothing(child, &folder);
}

/// SIGKILL `grade`: nothing carrying `mark` is left a moment later.
fn killed_leaves_nothing(mut grade: std::process::Child, mark: &str) {
    grade.kill().unwrap();
    grade.wait().unwrap();
    let left = left_after_a_moment(mark);
    assert!(left.is_empty(), "outlived the workshop's SIGKILL: {left:?}");
}

#[test]
fn a_workshop_killed_while_it_tries_bubblewrap_leaves_nothing_of_the_try() {
    if !needs_bwrap() {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let class = Class::new();
    class.w.write("class/a_one/errors.py", "pass\n");
    // A bwrap slow to start its try (the probe each `grade` makes first): killed meanwhile, the
    // workshop must take it along, as it does a sandbox it grades in.
    let slow = class.tmp.path().join("slow-bwrap");
    let real = Command::new("sh").args(["-c", "command -v bwrap"]).output().unwrap();
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    std::fs::write(
        &slow,
        format!("#!/bin/sh\n[ \"$1\" = --version ] && exec {real} --version\nsleep 60\nexec {real} \"$@\"\n"),
    )
    .unwrap();
    std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
    let child = grade_in_turn(&class, Stdio::null(), &[("WORKSHOP_BWRAP", &slow)]);
    let folder = class.tmp.path().to_str().unwrap().to_string();
    let until = Instant::now() + Duration::from_secs(30);
    while !marked(&folder).iter().any(|p| p.contains("slow-bwrap") && p.contains("--unshare-pid")) {
        assert!(Instant::now() < until, "the probe did not start: {:?}", marked(&folder));
        std::thread::sleep(Duration::from_millis(10));
    }
    killed_leaves_nothing(child, &folder);
}

/// A process's parent, group and session, from /proc/<pid>/stat (after the name, which may hold
/// spaces).
fn parent_group_and_session(pid: &str) -> Option<[String; 3]> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some([fields.get(1)?.to_string(), fields.get(2)?.to_string(), fields.get(3)?.to_string()])
}

#[test]
fn every_process_of_a_sandbox_is_in_the_session_and_group_bubblewrap_starts_in() {
    if !needs_bwrap() {
        return;
    }
    let class = Class::new();
    let (mut child, folder, until) = two_slow_files_graded(&class);
    // The first file's Python is running (bwrap, its init and Python), and the next file's
    // sandbox waits (bwrap, and its child that will be the init).
    let mut seen = Vec::new();
    while seen.len() < 5 || !seen.iter().any(|p: &String| !p.contains("bwrap")) {
        assert!(Instant::now() < until, "the sandboxes did not come: {seen:?}");
        std::thread::sleep(Duration::from_millis(20));
        seen = marked(&folder);
    }
    let grade = child.id().to_string();
    let placed: Vec<(String, Option<[String; 3]>)> = seen
        .iter()
        .map(|p| p.split(':').next().unwrap().to_string())
        .map(|pid| (pid.clone(), parent_group_and_session(&pid)))
        .collect();
    child.kill().unwrap();
    child.wait().unwrap();
    let started_by_grade =
        |place: &Option<[String; 3]>| place.as_ref().is_some_and(|p| p[0] == grade);
    let outer: Vec<String> = placed
        .iter()
        .filter(|(_, place)| started_by_grade(place))
        .map(|(pid, _)| pid.clone())
        .collect();
    assert_eq!(outer.len(), 2, "two bwraps started by grade: {seen:?}");
    for (pid, place) in &placed {
        let [_, group, session] =
            place.clone().unwrap_or_else(|| panic!("{pid} went before it was looked at: {seen:?}"));
        // Session and group are one bwrap's own pid: the group the workshop and its lifeline
        // kill holds the namespace's init too, from before it could leave.
        assert_eq!(group, session, "{pid}: {placed:?}\n{seen:?}");
        assert!(
            outer.contains(&session),
            "{pid} is in a session bwrap did not start in: {placed:?}\n{seen:?}"
        );
    }
}

#[test]
fn a_crash_is_told_as_the_signal_it_was_with_the_sandbox_and_without() {
    if !needs_bwrap() {
        return;
    }
    let class = Class::new();
    // A crash, and a file that exits with the code bubblewrap gives a crash: only the first is
    // a signal without the sandbox; under it the two look alike, and the message says so.
    class.w.write(
        "class/a_crash/errors.py",
        "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n",
    );
    class.w.write("class/b_exits/errors.py", "import os\nos._exit(3)\n");
    let me = Grader { nobody: false, python: grading_python().to_string() };
    let message =
        |run: &Run, n: usize| lines(&run.stdout)[n]["message"].as_str().unwrap().to_string();
    let sandboxed = class.grade(&me, &["grade", "class", "--sandbox", "bwrap"], &[], None);
    assert_eq!(sandboxed.code, 0, "{}", sandboxed.stderr);
    assert!(
        message(&sandboxed, 0).ends_with(
            "it was killed by signal 11 (SIGSEGV, a crash; the sandbox reports that as exit code 139, which os._exit(139) would also give)"
        ),
        "{}",
        message(&sandboxed, 0)
    );
    assert!(
        message(&sandboxed, 1).ends_with("it exited with code 3 (os._exit, or a crash)"),
        "{}",
        message(&sandboxed, 1)
    );
    let bare = class.grade(&me, &["grade", "class", "--sandbox", "none"], &[], None);
    assert!(
        message(&bare, 0).ends_with("it was killed by signal 11 (SIGSEGV, a crash)"),
        "{}",
        message(&bare, 0)
    );
    assert!(
        message(&bare, 1).ends_with("it exited with code 3 (os._exit, or a crash)"),
        "{}",
        message(&bare, 1)
    );
}

// Linux only: elsewhere grade never looks for bubblewrap (grade::isolation's unit tests say what
// it says there instead).
#[cfg(target_os = "linux")]
#[test]
fn without_bubblewrap_auto_says_what_is_not_isolated_and_bwrap_refuses_with_how_to_install() {
    let class = Class::new();
    class.classmate("b_classmate");
    let me = Grader { nobody: false, python: grading_python().to_string() };
    let absent = [("WORKSHOP_BWRAP", "/nonexistent/bwrap")];

    let run = class.grade(&me, &["grade", "class", "--sandbox", "bwrap"], &absent, None);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.contains("--sandbox bwrap: there is no bwrap at /nonexistent/bwrap"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("apt-get install bubblewrap"), "{}", run.stderr);

    let run = class.grade(&me, &["grade", "class"], &absent, None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(lines(&run.stdout)[0]["status"], "pass");
    let (warning, summary) =
        run.stderr.split_once("graded 1 file in ").expect("a warning, then the summary");
    assert!(
        warning.starts_with("warning: grading without a sandbox, since there is no bwrap"),
        "{warning}"
    );
    for missing in ["processes", "the network", "the file system", "/proc"] {
        assert!(warning.contains(missing), "{missing}: {warning}");
        assert!(summary.contains(missing), "{missing}: {summary}");
    }
    assert!(
        summary.contains("sandbox: none, since there is no bwrap at /nonexistent/bwrap"),
        "{summary}"
    );

    let run = class.grade(&me, &["grade", "class", "--sandbox", "none"], &absent, None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("graded 1 file in "),
        "no warning when asked for: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains("sandbox: none (--sandbox none); not isolated: processes"),
        "{}",
        run.stderr
    );

    a_bwrap_that_cannot_sandbox_says_why(&class, &me);
}

#[cfg(target_os = "linux")]
/// A bwrap that runs but cannot sandbox (here: a program that is not bubblewrap at all): refused
/// with what bubblewrap needs under `--sandbox bwrap`, warned of under `auto`.
fn a_bwrap_that_cannot_sandbox_says_why(class: &Class, me: &Grader) {
    let fake = class.tmp.path().join("bwrap");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = class.grade(
        me,
        &["grade", "class", "--sandbox", "bwrap"],
        &[("WORKSHOP_BWRAP", fake.to_str().unwrap())],
        None,
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("No permissions to create a new namespace"), "{}", run.stderr);
    assert!(run.stderr.contains("user namespaces"), "says what bubblewrap needs: {}", run.stderr);
    let run =
        class.grade(me, &["grade", "class"], &[("WORKSHOP_BWRAP", fake.to_str().unwrap())], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let warning = run.stderr.split("graded 1 file in").next().unwrap();
    assert!(
        warning.contains("user namespaces") && !warning.contains("apt-get"),
        "installed, so not how to install: {warning}"
    );
}

#[test]
fn an_interpreter_in_a_venv_under_tmp_still_runs_inside_the_private_tmp() {
    if !needs_bwrap() {
        return;
    }
    let venv = tempdir();
    let made = Command::new(grading_python())
        .args(["-m", "venv", "--without-pip"])
        .arg(venv.path())
        .status()
        .unwrap();
    assert!(made.success());
    let class = Class::new();
    class.classmate("b_classmate");
    let me = Grader {
        nobody: false,
        python: venv.path().join("bin/python3").to_string_lossy().into_owned(),
    };
    let run = class.grade(&me, &["grade", "class", "--sandbox", "bwrap"], &[], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(lines(&run.stdout)[0]["status"], "pass", "{}", run.stdout);
}

#[test]
fn when_the_workshop_is_killed_outright_the_sandbox_goes_with_it() {
    if !needs_bwrap() {
        return;
    }
    let class = Class::new();
    // Still loading when the workshop is killed: its daemons are running, and so is it.
    class.attack("b_slow", "daemon_escapes.py", 0);
    let hostile = std::fs::read_to_string(class.w.path("class/b_slow/errors.py")).unwrap();
    class.w.write("class/b_slow/errors.py", &format!("{hostile}\nimport time\ntime.sleep(60)\n"));
    open_to_nobody(class.tmp.path(), 0o777);
    let mut cmd = Command::new(BIN);
    class.w.at_home(&mut cmd);
    cmd.args(["grade", "class/b_slow", "--sandbox", "bwrap", "--timeout", "60"])
        .current_dir(class.w.root())
        .env("WORKSHOP_PYTHON", grading_python())
        .env("TMPDIR", class.tmp.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    while marked(&class.mark).len() < 2 {
        assert!(Instant::now() < until, "the daemons never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let left = left_after_a_moment(&class.mark);
    assert!(left.is_empty(), "outlived the workshop's SIGKILL: {left:?}");
}

#[test]
fn a_fork_bomb_holding_the_users_processes_leaves_classmates_graded_beside_it_room_to_start() {
    if !needs_bwrap() {
        return;
    }
    let Some(grader) = grader() else { return };
    let class = Class::new();
    // The bomb holds its children for the whole of its grading, which its slow calls stretch.
    class.attack("a_fork_bomb", "fork_bomb.py", 0);
    let bomb = std::fs::read_to_string(class.w.path("class/a_fork_bomb/errors.py")).unwrap();
    let slow = "\n\nimport time\n_own_fail = fail\n\n\ndef fail(category, message):\n    time.sleep(0.1)\n    return _own_fail(category, message)\n";
    class.w.write("class/a_fork_bomb/errors.py", &format!("{bomb}{slow}"));
    let classmates = ["b", "c", "d", "e", "f", "g"].map(|s| format!("{s}_classmate"));
    for student in &classmates {
        class.classmate(student);
    }
    let run = class.grade(
        &grader,
        &["grade", "class", "--jobs", "2", "--sandbox", "bwrap", "--timeout", "5"],
        &[],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let reports = lines(&run.stdout);
    for report in &reports[1..] {
        assert_eq!(report["status"], "pass", "{report}");
    }
    if grader.nobody || !is_root() {
        assert!(
            output_of(&reports, "a_fork_bomb").contains("Resource temporarily unavailable"),
            "{}",
            reports[0]
        );
    }
}
