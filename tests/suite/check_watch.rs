//! `workshop check --watch`, driven as a script would drive it: the real binary with standard
//! input and output as pipes, keys written as lines, and real saves of the file (written in
//! place, renamed over it, the way vim does it, deleted) in a temporary workshop.

use crate::common::*;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

const WORK: &str = "work/structured-errors/errors.py";
/// What one step needs at most: the start, or a save and its grading, or a key and its redraw,
/// or the exit after q. A grading here takes well under a second; a file whose calls hang costs
/// two of its deadlines (1 s by default); the rest is room for a busy 2-core machine. Every wait
/// is bounded by it as a whole (however many redraws come meanwhile), so a broken watch fails
/// its test within a step, never hangs the suite.
const STEP: Duration = Duration::from_secs(20);

fn starter() -> String {
    std::fs::read_to_string(repo().join("starter/structured-errors/errors.py")).unwrap()
}

fn solution() -> String {
    std::fs::read_to_string(repo().join("lessons/structured-errors/solution/errors.py")).unwrap()
}

/// A running `check --watch`, its output read line by line on a thread.
struct Watch {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Everything printed so far, for failure messages.
    seen: String,
    /// The number of the last run whose report was read.
    last_run: u32,
}

/// The run a redraw is of, from its marker line `── run N · ...`.
fn run_number(block: &str) -> Option<u32> {
    block.strip_prefix("── run ")?.split(' ').next()?.parse().ok()
}

impl Watch {
    fn start(ws: &Workshop, extra: &[&str]) -> Watch {
        let mut args = vec!["check", "--watch"];
        args.extend_from_slice(extra);
        let mut child = ws
            .command(&args)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::Builder::new()
            .name("watch-output".into())
            .spawn(move || {
                for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        return;
                    }
                }
            })
            .unwrap();
        let stdin = child.stdin.take();
        Watch { child, stdin, lines, seen: String::new(), last_run: 0 }
    }

    /// The next whole redraw: from its `── run` marker to the `Watching` line that ends it.
    fn next_block(&mut self) -> String {
        self.block_before(Instant::now() + STEP)
    }

    /// The next whole redraw, if it ends before `deadline`.
    fn block_before(&mut self, deadline: Instant) -> String {
        let mut block = String::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push_str(&line);
                    self.seen.push('\n');
                    if line.starts_with("── run ") {
                        block.clear();
                    }
                    block.push_str(&line);
                    block.push('\n');
                    if line.starts_with("Watching ") {
                        return block;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no redraw within {STEP:?}; output so far:\n{}", self.seen)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the watch ended; output:\n{}", self.seen)
                }
            }
        }
    }

    /// Redraws until one satisfies `want`, within one step however many come meanwhile.
    fn block_where(&mut self, what: &str, want: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + STEP;
        loop {
            assert!(
                Instant::now() < deadline,
                "no redraw with {what} within {STEP:?}; output:\n{}",
                self.seen
            );
            let block = self.block_before(deadline);
            if want(&block) {
                return block;
            }
            eprintln!("(waiting for {what}; skipped a redraw)");
        }
    }

    /// The redraw of the next run's report: a run after the last one seen, whatever its number
    /// (a test waits for what a save makes, not for a count it assumes).
    fn next_run(&mut self) -> String {
        let after = self.last_run;
        let block = self.block_where(&format!("a run after run {after}"), |b| {
            run_number(b).is_some_and(|n| n > after) && b.contains(" passed")
        });
        self.last_run = run_number(&block).unwrap_or(after);
        block
    }

    fn key(&mut self, key: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{key}").unwrap();
        stdin.flush().unwrap();
    }

    /// Press q and wait for the exit status.
    fn quit(mut self) -> i32 {
        self.key("q");
        self.wait()
    }

    /// Everything printed, once the process has ended (its output closed).
    fn rest(&mut self) -> String {
        let deadline = Instant::now() + STEP;
        while let Ok(line) =
            self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            self.seen.push_str(&line);
            self.seen.push('\n');
        }
        self.seen.clone()
    }

    fn wait(&mut self) -> i32 {
        let deadline = Instant::now() + STEP;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            assert!(Instant::now() < deadline, "it did not exit; output:\n{}", self.seen);
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Save as editors that write a new file and rename it over the old one do.
fn save_by_rename(ws: &Workshop, text: &str) {
    let tmp = ws.path("work/structured-errors/.errors.py.tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, ws.path(WORK)).unwrap();
}

/// Save as vim does with `backupcopy=no`: a test file, the old file renamed to a backup, a new
/// file written, the backup removed; all beside a swap file.
fn save_like_vim(ws: &Workshop, text: &str) {
    let dir = ws.path("work/structured-errors");
    std::fs::write(dir.join(".errors.py.swp"), "swap").unwrap();
    std::fs::write(dir.join("4913"), "").unwrap();
    std::fs::remove_file(dir.join("4913")).unwrap();
    std::fs::rename(dir.join("errors.py"), dir.join("errors.py~")).unwrap();
    std::fs::write(dir.join("errors.py"), text).unwrap();
    std::fs::remove_file(dir.join("errors.py~")).unwrap();
    std::fs::remove_file(dir.join(".errors.py.swp")).unwrap();
}

fn started(ws: &Workshop, text: &str) {
    ws.write(WORK, text);
}

#[test]
fn check_watch_refuses_json_output_with_a_reason() {
    let ws = Workshop::lesson5();
    started(&ws, &starter());
    let run = ws.run(&["check", "--watch", "--format", "json"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("--watch") && run.stderr.contains("--format json"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn check_watch_grades_again_on_a_save_in_place_and_by_rename() {
    let ws = Workshop::lesson5();
    started(&ws, &starter());
    let mut w = Watch::start(&ws, &[]);
    let first = w.next_run();
    assert!(first.contains("── run 1 · first run ·"), "{first}");
    assert!(first.contains("2/14 passed"), "{first}");

    ws.write(WORK, &solution());
    let second = w.next_run();
    assert!(second.contains(" · saved · "), "{second}");
    assert!(second.contains("14/14 passed"), "{second}");
    assert!(
        second.contains("All green")
            && second.contains("./workshop watch structured-errors --compare"),
        "{second}"
    );

    save_by_rename(&ws, &starter());
    let third = w.next_run();
    assert!(third.contains("2/14 passed"), "a save by rename counts:\n{third}");
    assert!(!third.contains("All green"), "{third}");
    assert_eq!(w.quit(), 0);
}

#[test]
fn check_watch_counts_a_vim_style_save_once() {
    let ws = Workshop::lesson5();
    started(&ws, &starter());
    let mut w = Watch::start(&ws, &[]);
    w.next_run();
    save_like_vim(&ws, &solution());
    let second = w.next_run();
    assert!(second.contains("14/14 passed"), "{second}");
    // Nothing else happened: the swap, test and backup files are not saves of errors.py.
    w.key("x");
    let next = w.next_block();
    assert!(next.starts_with(&format!("── run {} ·", w.last_run)), "one save, one run:\n{next}");
    assert!(
        next.contains("Keys: r re-run · h hint · n next lesson (once green) · q quit."),
        "{next}"
    );
    assert_eq!(w.quit(), 0);
}

#[test]
fn check_watch_grades_each_save_in_place_once() {
    // A save in place truncates the file, then writes it: however long the pause between the
    // two, it is one save, graded once, and never graded half-written.
    let ws = Workshop::lesson5();
    started(&ws, &starter());
    let mut w = Watch::start(&ws, &[]);
    w.next_run();
    for n in 0..6 {
        let (text, passed) =
            if n % 2 == 0 { (solution(), "14/14 passed") } else { (starter(), "2/14 passed") };
        let before = w.last_run;
        let mut file = std::fs::File::create(ws.path(WORK)).unwrap();
        std::thread::sleep(Duration::from_millis(30));
        file.write_all(text.as_bytes()).unwrap();
        drop(file);
        let block = w.next_run();
        assert!(block.contains(passed), "save {n}:\n{block}");
        assert_eq!(w.last_run, before + 1, "save {n} made one run:\n{}", w.seen);
    }
    assert_eq!(w.quit(), 0);
}

/// inotify reports every writer's close, so a save in place is one save however long the editor
/// pauses after truncating: here six times the quiet wait meant for watchers that report no close.
#[cfg(target_os = "linux")]
#[test]
fn check_watch_waits_for_the_close_of_a_save_that_pauses_after_truncating() {
    let ws = Workshop::lesson5();
    started(&ws, &starter());
    let mut w = Watch::start(&ws, &[]);
    w.next_run();
    let before = w.last_run;
    let mut file = std::fs::File::create(ws.path(WORK)).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    file.write_all(solution().as_bytes()).unwrap();
    drop(file);
    let block = w.next_run();
    assert!(block.contains("14/14 passed"), "the empty file was graded:\n{block}");
    assert_eq!(w.last_run, before + 1, "one save, one run:\n{}", w.seen);
    assert_eq!(w.quit(), 0);
}

#[test]
fn check_watch_reading_the_file_is_not_a_save() {
    // Python reads the file to grade it; if reads counted, the watch would grade forever.
    let ws = Workshop::lesson5();
    started(&ws, &starter());
    let mut w = Watch::start(&ws, &[]);
    w.next_run();
    let _ = std::fs::read_to_string(ws.path(WORK)).unwrap();
    w.key("r");
    let again = w.next_run();
    assert!(again.contains(" · r pressed · "), "{again}");
    assert_eq!(w.last_run, 2, "nothing ran between the first run and r:\n{again}");
    assert_eq!(w.quit(), 0);
}

#[test]
fn check_watch_h_lists_the_hint_steps_so_far_and_says_when_none_remain() {
    let ws = Workshop::lesson5();
    started(&ws, &starter());
    let mut w = Watch::start(&ws, &[]);
    w.next_run();
    w.key("h");
    let first = w.block_where("a hint", |b| b.contains("Hint for fail-flags-failure"));
    assert!(
        first.contains("> 1. ")
            && first.contains("Step 1 of 3; 2 more remain. Press h for the next one."),
        "{first}"
    );
    w.key("h");
    let second = w.block_where("the next hint", |b| b.contains("> 2. "));
    assert!(second.contains("\n  1. "), "the first step stays, unmarked:\n{second}");
    w.key("h");
    let third = w.block_where("the last hint", |b| b.contains("> 3. "));
    assert!(third.contains("Step 3 of 3, the last one for this check."), "{third}");
    w.key("h");
    let none = w.block_where("no more hints", |b| b.contains("No more hints"));
    assert!(
        none.contains("all 3 are above")
            && none.contains("./workshop solution structured-errors --reveal"),
        "{none}"
    );
    for step in ["  1. ", "  2. ", "  3. "] {
        assert!(none.contains(step), "{step} is listed:\n{none}");
    }
    assert!(!none.contains("> "), "nothing is new:\n{none}");
    assert_eq!(w.quit(), 0);
    // The steps count with `hint`'s: the next `hint` goes on from there.
    let hint = ws.run(&["hint"]);
    assert!(hint.stdout.contains("No more hints for this check"), "{}", hint.stdout);
}

#[test]
fn check_watch_at_green_names_the_next_steps_and_n_starts_the_next_lesson() {
    let ws = Workshop::foundations();
    assert_eq!(ws.run(&["start", "structured-errors"]).code, 0);
    let mut w = Watch::start(&ws, &["structured-errors"]);
    w.key("n");
    let early =
        w.block_where("n refused before green", |b| b.contains("n starts the next lesson once"));
    assert!(!early.contains("uncertain-state · work/"), "{early}");
    ws.write(WORK, &solution());
    let green = w.block_where("green", |b| b.contains("14/14 passed"));
    for want in [
        "All green. What next (q quits, n starts the next lesson here):",
        "./workshop watch structured-errors --compare",
        "./workshop quiz structured-errors",
        "./workshop start uncertain-state",
        "lesson 6: A timeout is not a no",
        "· n next lesson ·",
    ] {
        assert!(green.contains(want), "{want}:\n{green}");
    }
    w.key("n");
    let next = w.block_where("the next lesson graded", |b| {
        b.contains("uncertain-state · work/uncertain-state/refunds.py")
    });
    assert!(next.contains("11/18 passed"), "{next}");
    let words = flat(&next);
    assert!(
        words.contains(
            "Lesson 6, A timeout is not a no: the starter is in work/uncertain-state/refunds.py."
        ),
        "{next}"
    );
    assert!(ws.path("work/uncertain-state/refunds.py").is_file());
    // The watch follows the new file now.
    ws.write(
        "work/uncertain-state/refunds.py",
        &std::fs::read_to_string(repo().join("lessons/uncertain-state/solution/refunds.py"))
            .unwrap(),
    );
    let done = w.block_where("lesson 6 green", |b| b.contains("18/18 passed"));
    // Lesson 4 is still to do: the last lesson of the course leads back to it.
    assert!(!done.contains("last lesson of the course"), "{done}");
    assert!(done.contains("./workshop start tool-results"), "{done}");
    assert!(done.contains("q quits, n starts the next lesson here"), "{done}");
    w.key("n");
    let graded = |b: &str| b.contains("tool-results · work/tool-results/results.py");
    let back = w.block_where("lesson 4 graded", graded);
    assert!(flat(&back).contains("Lesson 4, Every call answered, results first"), "{back}");
    assert_eq!(w.quit(), 0);
    // Commands that name no lesson now mean the one started last.
    let list = ws.run(&["list"]);
    assert!(
        list.stdout.lines().any(|l| l.contains("uncertain-state") && l.ends_with("done")),
        "{}",
        list.stdout
    );
}

#[test]
fn check_watch_h_when_green_says_no_hint_is_needed() {
    let ws = Workshop::lesson5();
    started(&ws, &solution());
    let mut w = Watch::start(&ws, &[]);
    w.next_run();
    w.key("h");
    let block = w.block_where("the answer to h", |b| b.contains("no hint needed"));
    assert!(block.contains("All green"), "{block}");
    assert_eq!(w.quit(), 0);
}

#[test]
fn check_watch_reports_a_deleted_file_and_keeps_watching() {
    let ws = Workshop::lesson5();
    started(&ws, &solution());
    let mut w = Watch::start(&ws, &[]);
    w.next_run();
    std::fs::remove_file(ws.path(WORK)).unwrap();
    let gone = w.block_where("the deletion", |b| b.contains("is gone"));
    assert!(gone.contains("work/structured-errors/errors.py is gone"), "{gone}");
    assert!(
        !gone.contains("All green."),
        "the green line is not claimed for a file that is gone:\n{gone}"
    );
    ws.write(WORK, &starter());
    let back = w.next_run();
    assert!(back.contains("2/14 passed"), "{back}");
    assert_eq!(w.quit(), 0);
}

#[test]
fn check_watch_poll_sees_saves_too() {
    let ws = Workshop::lesson5();
    started(&ws, &starter());
    let mut w = Watch::start(&ws, &["--poll"]);
    let first = w.next_run();
    assert!(first.contains("polling for saves"), "{first}");
    save_by_rename(&ws, &solution());
    let second = w.next_run();
    assert!(second.contains("14/14 passed"), "{second}");
    assert_eq!(w.quit(), 0);
}

#[test]
fn check_watch_a_file_that_does_not_load_is_reported_and_watched() {
    let ws = Workshop::lesson5();
    started(&ws, "def fail(:\n");
    let mut w = Watch::start(&ws, &[]);
    let first = w.block_where("the load error", |b| b.contains("could not load"));
    assert!(first.contains("line 1"), "{first}");
    ws.write(WORK, &solution());
    let fixed = w.next_run();
    assert!(fixed.contains("14/14 passed"), "{fixed}");
    assert_eq!(w.quit(), 0);
}

/// A learner's file that writes its process id to `pid` at import, then spins: at import when
/// `at_import`, else in every call (after touching `marker`).
fn spinning(pid: &Path, marker: &Path, at_import: bool) -> String {
    let spin = "    while True:\n        pass\n";
    let head = format!(
        "import os\nfrom kit.api import Json\n\nopen({pid:?}, 'w').write(str(os.getpid()))\n"
    );
    if at_import {
        return format!("{head}open({marker:?}, 'w').close()\nwhile True:\n    pass\n");
    }
    format!(
        "{head}\ndef fail(category: str, message: str) -> Json:\n    open({marker:?}, 'w').close()\n{spin}\ndef should_retry(error: Json) -> bool:\n{spin}"
    )
}

/// Start a watch of a spinning file with a deadline far past any patience here, press `key` once
/// it spins, and return the exit status, everything it printed, and the worker's pid.
fn quit_while_spinning(at_import: bool, key: &str) -> (i32, String, u32) {
    let ws = Workshop::lesson5();
    let (pid, marker) = (ws.path("worker.pid"), ws.path("spinning"));
    started(&ws, &spinning(&pid, &marker, at_import));
    let mut w = Watch::start(&ws, &["--timeout", "600"]);
    eventually("the learner's code to spin", || marker.exists());
    w.key(key);
    let code = w.wait();
    (code, w.rest(), pid_in(&pid))
}

#[test]
fn check_watch_q_kills_a_looping_call_at_once_and_reports_nothing_for_it() {
    // Only a kill ends the call: its deadline (600 s) is far past the test's patience.
    let (code, printed, worker) = quit_while_spinning(false, "q");
    assert_eq!(code, 0, "output:\n{printed}");
    assert!(
        !printed.contains(" passed") && !printed.contains("Stopping"),
        "nothing for the stopped run:\n{printed}"
    );
    assert!(!alive(worker), "the looping Python {worker} is gone with the workshop");
}

#[test]
fn check_watch_q_quits_at_once_during_an_import_that_hangs() {
    let (code, printed, worker) = quit_while_spinning(true, "q");
    assert_eq!(code, 0, "output:\n{printed}");
    assert!(!printed.contains("could not load"), "nothing for the stopped load:\n{printed}");
    assert!(!alive(worker), "the loading Python {worker} is gone with the workshop");
}

#[test]
fn check_watch_ctrl_c_on_a_terminal_quits_at_once_with_130() {
    let ws = Workshop::lesson5();
    let (pid, marker) = (ws.path("worker.pid"), ws.path("spinning"));
    started(&ws, &spinning(&pid, &marker, false));
    let Some(term) = Tmux::start(&ws, "check --watch --timeout 600") else { return };
    eventually("the learner's code to spin", || marker.exists());
    // In raw mode Ctrl-C is a key, not a signal: it must end the watch as SIGINT would.
    term.keys(&["C-c"]);
    term.wait_for("EXITED 130");
    let worker = pid_in(&pid);
    assert!(!alive(worker), "the looping Python {worker} is gone with the workshop");
}

#[test]
fn check_watch_without_a_work_file_says_to_start() {
    let ws = Workshop::lesson5();
    let run = ws.run(&["check", "--watch"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("./workshop start structured-errors"), "{}", run.stderr);
}

// ---- benchmark (not a timed test: run it to see the figures) ----------------------------------

/// From a save to the new verdict on screen, less the check itself (which the redraw reports):
/// `cargo test --release --test suite check_watch::bench_ -- --ignored --nocapture`
#[test]
#[ignore]
fn bench_save_to_verdict() {
    for (label, extra) in [("events", &[][..]), ("--poll", &["--poll"][..])] {
        let ws = Workshop::lesson5();
        started(&ws, &starter());
        let mut w = Watch::start(&ws, extra);
        w.next_run();
        let mut beyond = Vec::new();
        let mut total = Vec::new();
        for n in 2..=16u32 {
            let text = if n % 2 == 0 { solution() } else { starter() };
            // A clean start: no redraw is in flight when the clock starts.
            std::thread::sleep(Duration::from_millis(300));
            let began = Instant::now();
            if n % 4 < 2 {
                ws.write(WORK, &text);
            } else {
                save_by_rename(&ws, &text);
            }
            let block = w.next_run();
            let elapsed = began.elapsed();
            let check_ms: f64 = block
                .lines()
                .next()
                .and_then(|l| l.split("checked in ").nth(1))
                .and_then(|t| t.split(' ').next())
                .and_then(|t| t.parse().ok())
                .expect("the marker says how long the check took");
            total.push(elapsed.as_secs_f64() * 1e3);
            beyond.push(elapsed.as_secs_f64() * 1e3 - check_ms);
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            v[v.len() / 2]
        };
        let (m_total, m_beyond) = (median(&mut total), median(&mut beyond));
        println!(
            "save -> verdict ({label}): median {m_total:.1} ms in all, {m_beyond:.1} ms beyond the check itself; max beyond {:.1} ms over {} saves (target: <= 100 ms beyond, median)",
            beyond.last().unwrap(),
            beyond.len()
        );
        assert_eq!(w.quit(), 0);
    }
}

/// The Python processes a process has started (from every one of its threads): not the lifeline
/// the workshop forks for itself. From /proc: Linux only.
#[cfg(target_os = "linux")]
fn children_of(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap().flatten() {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        found.extend(list.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
    }
    let interpreter = std::fs::canonicalize(python()).unwrap();
    let python = |pid: &u32| {
        std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == interpreter)
    };
    found.into_iter().filter(python).collect()
}

// Linux only: the workshop's Pythons are read from /proc (`children_of`).
#[cfg(target_os = "linux")]
#[test]
fn check_watch_loads_a_save_in_a_python_process_started_before_the_save() {
    let ws = Workshop::lesson5();
    let log = ws.path("loaded-by.log");
    // The solution, noting at import which process loaded it.
    let noted = |extra: &str| {
        format!(
            "import os as _os\nwith open({:?}, 'a') as _log:\n    _log.write(str(_os.getpid()) + '\\n')\n{}{extra}",
            log.to_str().unwrap(),
            solution()
        )
    };
    ws.write(WORK, &noted(""));
    let mut w = Watch::start(&ws, &[]);
    assert!(w.next_run().contains("14/14 passed"));
    // Once the first grading is over, a Python process waits for the next save.
    let until = Instant::now() + STEP;
    let mut waiting = loop {
        let now = children_of(w.child.id());
        if !now.is_empty() {
            break now;
        }
        assert!(Instant::now() < until, "no Python process was kept ready");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Every Python started before the save counts (on a busy machine the first one seen may be
    // another, with the one kept ready started a moment later).
    let settle = Instant::now() + Duration::from_millis(300);
    while Instant::now() < settle {
        std::thread::sleep(Duration::from_millis(20));
        for pid in children_of(w.child.id()) {
            if !waiting.contains(&pid) {
                waiting.push(pid);
            }
        }
    }
    ws.write(WORK, &noted("\n# an edit\n"));
    assert!(w.next_run().contains("14/14 passed"), "{}", w.seen);
    let loaded_by: u32 = ws.read("loaded-by.log").lines().last().unwrap().parse().unwrap();
    assert!(
        waiting.contains(&loaded_by),
        "run 2 was loaded by {loaded_by}, not by one of {waiting:?}"
    );
    assert_eq!(w.quit(), 0);
}

#[test]
fn check_watch_a_save_that_stops_the_world_is_that_saves_error_and_the_next_save_is_green() {
    let ws = Workshop::lesson5();
    let attack =
        std::fs::read_to_string(repo().join("tests/fixtures/sandbox/stops_the_world.py")).unwrap();
    started(&ws, &format!("{attack}\n\n{}", solution()));
    let mut w = Watch::start(&ws, &[]);
    let first = w.block_where("the world upset", |b| b.contains("no grade for"));
    assert!(first.contains("its run upset the lesson's world"), "{first}");
    assert!(first.contains("SIGSTOP"), "{first}");
    assert!(!first.contains("fix the world file"), "{first}");
    // The session's world was made whole again: the honest save is graded by it.
    ws.write(WORK, &solution());
    let fixed = w.next_run();
    assert!(fixed.contains("14/14 passed"), "{fixed}");
    assert_eq!(w.quit(), 0);
}

#[test]
fn check_watch_n_says_when_every_lesson_is_done() {
    let ws = Workshop::lesson5();
    assert_eq!(ws.run(&["start", "structured-errors"]).code, 0);
    let mut w = Watch::start(&ws, &[]);
    ws.write(WORK, &solution());
    let green = w.block_where("green", |b| b.contains("14/14 passed"));
    assert!(green.contains("Every lesson of the course is done."), "{green}");
    assert!(!green.contains("n starts the next lesson"), "{green}");
    w.key("n");
    let done = w.block_where("n with nothing left", |b| b.contains("there is no next one"));
    let said = "every lesson of the course is done: there is no next one.";
    assert!(flat(&done).contains(said), "{done}");
    assert_eq!(w.quit(), 0);
}
