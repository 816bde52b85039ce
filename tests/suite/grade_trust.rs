//! `grade`'s output is the operator's to trust: lines shortened as `check --format json` shortens
//! them (the Exercism lines too), control characters escaped in the summary and CSV, formula
//! cells neutralised, submissions read only up to 1 MiB. And the small points of issue 20: a word
//! that is both a lesson and a folder, shards near 2^64, one grade per file however it is named,
//! special files listed, private folders removed on every exit.

use crate::common::*;
use crate::grade::{command, grade_temp, graded, lines, summary};

use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

/// A file whose `fail` returns a wrong value of about 2 MB.
const HUGE: &str = "from kit.api import Json\n\n\ndef fail(category: str, message: str) -> Json:\n    return {\"isError\": \"x\" * 2_000_000, \"error\": {\"errorCategory\": category, \"isRetryable\": category == \"transient\", \"message\": message}}\n\n\ndef should_retry(error: Json) -> bool:\n    return error.get(\"isRetryable\") is True\n";

#[test]
fn a_megabyte_answer_makes_a_short_line_in_every_format_shortened_as_check_json_does() {
    let w = Workshop::lesson5();
    w.write("class/huge/errors.py", HUGE);
    let jsonl = graded(command(&w, &["grade", "class"]));
    assert_eq!(jsonl.code, 0, "{}", jsonl.stderr);
    assert!(jsonl.stdout.len() < 64 << 10, "a {} byte line", jsonl.stdout.len());
    let check = run(command(&w, &["check", "--file", "class/huge/errors.py", "--format", "json"]));
    let line = &lines(&jsonl.stdout)[0];
    let report = check.json();
    for field in ["got", "expected", "message"] {
        assert_eq!(
            line["checks"][0][field], report["checks"][0][field],
            "{field} as check --format json has it"
        );
    }
    assert!(
        line["checks"][0]["got"]["isError"].as_str().unwrap().contains("more characters]"),
        "{line}"
    );

    let exercism = graded(command(&w, &["grade", "class/huge", "--format", "exercism"]));
    assert_eq!(exercism.code, 0, "{}", exercism.stderr);
    assert_eq!(exercism.stdout.lines().count(), 1);
    assert!(exercism.stdout.len() < 64 << 10, "a {} byte line", exercism.stdout.len());
    let results: Value = serde_json::from_str(&exercism.stdout).unwrap();
    assert_eq!(results["version"], 3);
    assert!(
        results["tests"][0]["message"].as_str().unwrap().contains("more characters]"),
        "{results}"
    );
    let alone =
        run(command(&w, &["check", "--file", "class/huge/errors.py", "--format", "exercism"]));
    assert!(
        alone.stdout.len() < 64 << 10,
        "check --format exercism too: {} bytes",
        alone.stdout.len()
    );
}

#[test]
fn names_and_messages_from_submissions_reach_the_terminal_escaped_and_csv_cells_cannot_be_formulas()
{
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    let evil = "class/evil\x1b]0;owned\x07/errors.py";
    w.write(evil, "raise Exception('\\x1b[2J\\x1b[31mred\\x9b1m')\n");
    w.write("class/fine/errors.py", &good);
    let run1 = graded(command(&w, &["grade", "class"]));
    assert_eq!(run1.code, 0, "{}", run1.stderr);
    assert!(
        !run1.stderr.text().contains(['\x1b', '\x07', '\u{9b}']),
        "raw control characters on stderr: {:?}",
        run1.stderr
    );
    assert!(run1.stderr.contains("class/evil\\x1b]0;owned\\x07/errors.py"), "{}", run1.stderr);
    assert!(run1.stderr.contains("Exception: \\x1b[2J\\x1b[31mred\\x9b1m"), "{}", run1.stderr);
    assert!(
        !run1.stdout.contains(['\x1b', '\x07', '\u{9b}']),
        "JSON escapes them: {:?}",
        run1.stdout
    );
    assert_eq!(lines(&run1.stdout)[0]["file"], evil, "and still reads back as the name");

    let csv = graded(command(&w, &["grade", "class", "--format", "csv"]));
    assert!(!csv.stdout.contains(['\x1b', '\x07']), "{:?}", csv.stdout);
    assert!(
        csv.stdout.contains("\r\nclass/evil\\x1b]0;owned\\x07/errors.py,error,"),
        "{:?}",
        csv.stdout
    );

    // Cells a spreadsheet would run: files named as formulas, given by name.
    for name in ["=HYPERLINK(1).py", "+1.py", "@SUM(A1).py", "-2.py"] {
        w.write(&format!("drop/{name}"), &good);
    }
    let mut cmd = command(
        &w,
        &[
            "grade",
            "structured-errors",
            "--format",
            "csv",
            "--",
            "=HYPERLINK(1).py",
            "+1.py",
            "@SUM(A1).py",
            "-2.py",
        ],
    );
    cmd.current_dir(w.path("drop"));
    let csv = graded(cmd);
    assert_eq!(csv.code, 0, "{}", csv.stderr);
    let cells: Vec<&str> = csv
        .stdout
        .split("\r\n")
        .skip(1)
        .filter(|r| !r.is_empty())
        .map(|r| r.split(',').next().unwrap())
        .collect();
    assert_eq!(cells, ["'+1.py", "'-2.py", "'=HYPERLINK(1).py", "'@SUM(A1).py"], "{}", csv.stdout);
}

#[test]
fn a_submission_over_1_mib_is_too_big_and_is_not_read() {
    let w = Workshop::lesson5();
    let solution =
        std::fs::read_to_string(w.path("lessons/structured-errors/solution/errors.py")).unwrap();
    // Exactly 1 MiB loads; one byte more does not; 3 GB (sparse) is refused without reading it.
    let pad = (1 << 20) - solution.len() - 3;
    w.write("class/a_exact/errors.py", &format!("{solution}\n#{}\n", "x".repeat(pad)));
    assert_eq!(std::fs::metadata(w.path("class/a_exact/errors.py")).unwrap().len(), 1 << 20);
    w.write("class/b_over/errors.py", &format!("{solution}\n#{}\n", "x".repeat(pad + 1)));
    std::fs::create_dir_all(w.path("class/c_huge")).unwrap();
    std::fs::File::create(w.path("class/c_huge/errors.py")).unwrap().set_len(3 << 30).unwrap();
    let run = graded(command(&w, &["grade", "class"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let reports = lines(&run.stdout);
    assert_eq!(reports[0]["status"], "pass", "{}", reports[0]);
    assert_eq!(reports[1]["status"], "error");
    assert_eq!(
        reports[1]["message"],
        "class/b_over/errors.py is 1048577 bytes, more than the 1048576 bytes a submission may be, so it was not read and no check ran."
    );
    assert_eq!(
        reports[2]["message"],
        "class/c_huge/errors.py is 3072 MiB, more than the 1 MiB a submission may be, so it was not read and no check ran."
    );
    assert!(
        summary(&run.stderr).contains("class/c_huge/errors.py: class/c_huge/errors.py is 3072 MiB"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_word_that_is_both_a_lesson_and_a_folder_is_an_error_naming_both() {
    let w = Workshop::new();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    w.write("structured-errors/amy/errors.py", &good);
    for args in
        [&["grade", "structured-errors", "structured-errors"][..], &["grade", "structured-errors"]]
    {
        let run = run(command(&w, args));
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty());
        assert!(
            run.stderr.contains("'structured-errors' is both a lesson and a folder here"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("./structured-errors/")
                && run.stderr.contains("--lesson structured-errors"),
            "{}",
            run.stderr
        );
    }
    let run = graded(command(&w, &["grade", "--lesson", "structured-errors", "structured-errors"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(lines(&run.stdout)[0]["file"], "structured-errors/amy/errors.py");
    assert_eq!(lines(&run.stdout)[0]["lesson"], "structured-errors");
}

#[test]
fn shards_near_2_to_the_64_neither_overflow_nor_panic() {
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    w.write("class/amy/errors.py", &good);
    let max = u64::MAX.to_string();
    let last = format!("{max}/{max}");
    let run1 = graded(command(&w, &["grade", "class", "--partition", &last]));
    assert_eq!(run1.code, 0, "{}", run1.stderr);
    assert_eq!(lines(&run1.stdout).len(), 1, "the last of 2^64-1 shards of one file holds it");
    let first = format!("1/{max}");
    let run2 = graded(command(&w, &["grade", "class", "--partition", &first]));
    assert_eq!(run2.code, 0, "{}", run2.stderr);
    assert!(run2.stdout.is_empty());
    for text in ["1/18446744073709551616", "18446744073709551616/18446744073709551616"] {
        let run = graded(command(&w, &["grade", "class", "--partition", text]));
        assert_eq!(run.code, 2, "{text}: {}", run.stderr);
        assert!(run.stderr.contains("is out of range"), "{}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
}

#[test]
fn a_file_named_twice_is_graded_once_and_special_files_are_listed_as_skipped() {
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    w.write("g01/errors.py", &good);
    let run1 = graded(command(&w, &["grade", "g01", "./g01", "g01/errors.py"]));
    assert_eq!(run1.code, 0, "{}", run1.stderr);
    let files: Vec<String> =
        lines(&run1.stdout).iter().map(|r| r["file"].as_str().unwrap().to_string()).collect();
    assert_eq!(files, ["./g01/errors.py"], "one grade per path, under the first spelling in order");

    // In a class folder: a FIFO is listed as skipped; links (to a FIFO, to a device, to nothing),
    // each named like a submission, are lines of their own that say so (and are never opened).
    w.write("class/amy/errors.py", &good);
    std::fs::create_dir_all(w.path("class/fifo")).unwrap();
    let made =
        std::process::Command::new("mkfifo").arg(w.path("class/fifo/errors.py")).status().unwrap();
    assert!(made.success());
    std::fs::create_dir_all(w.path("class/link")).unwrap();
    std::os::unix::fs::symlink(w.path("class/fifo/errors.py"), w.path("class/link/errors.py"))
        .unwrap();
    std::fs::create_dir_all(w.path("class/device")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", w.path("class/device/errors.py")).unwrap();
    std::fs::create_dir_all(w.path("class/gone")).unwrap();
    std::os::unix::fs::symlink("/nonexistent/errors.py", w.path("class/gone/errors.py")).unwrap();
    let run2 = graded(command(&w, &["grade", "class"]));
    assert_eq!(run2.code, 0, "{}", run2.stderr);
    let graded_lines = lines(&run2.stdout);
    let files: Vec<&str> = graded_lines.iter().map(|r| r["file"].as_str().unwrap()).collect();
    assert_eq!(
        files,
        [
            "class/amy/errors.py",
            "class/device/errors.py",
            "class/gone/errors.py",
            "class/link/errors.py"
        ]
    );
    for link in &graded_lines[1..] {
        assert_eq!(link["status"], "error", "{link}");
        assert!(
            link["message"]
                .as_str()
                .unwrap()
                .ends_with("is a link, not a file: submit the file itself."),
            "{link}"
        );
    }
    let skipped = summary(&run2.stderr)
        .split("skipped, not regular files:\n")
        .nth(1)
        .expect("a list of what was skipped");
    assert_eq!(
        skipped.lines().collect::<Vec<_>>(),
        ["  class/fifo/errors.py: a FIFO"],
        "{}",
        run2.stderr
    );
    let run3 = graded(command(&w, &["grade", "class/fifo/errors.py"]));
    assert_eq!(run3.code, 2, "{}", run3.stderr);
    assert!(
        run3.stderr.contains("class/fifo/errors.py is a FIFO, not a file or folder"),
        "{}",
        run3.stderr
    );
}

/// A file that is still loading when the test signals `grade`.
const SLOW: &str = "import time\ntime.sleep(30)\n";

#[test]
fn private_folders_are_0700_and_removed_when_grade_is_ended_by_int_term_or_hup() {
    let w = Workshop::lesson5();
    w.write("class/slow/errors.py", SLOW);
    for (signal, number) in [(libc::SIGINT, 2), (libc::SIGTERM, 15), (libc::SIGHUP, 1)] {
        let tmp = grade_temp();
        let mut cmd = command(&w, &["grade", "class", "--timeout", "30"]);
        cmd.env("TMPDIR", tmp.path()).stdout(Stdio::null()).stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let until = Instant::now() + Duration::from_secs(30);
        let folder = loop {
            let made: Vec<_> = std::fs::read_dir(tmp.path())
                .unwrap()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("workshop-grade-"))
                .filter(|e| e.path().join("errors.py").exists())
                .collect();
            if let Some(entry) = made.first() {
                break entry.path();
            }
            assert!(Instant::now() < until, "no folder appeared");
            std::thread::sleep(Duration::from_millis(10));
        };
        let mode = std::fs::metadata(&folder).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", folder.display());
        // SAFETY: kill(2) on our own child.
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(128 + number), "signal {signal}");
        let left: Vec<_> =
            std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert!(left.is_empty(), "after signal {signal}, left: {left:?}");
    }
}

// Linux only: the file finds its classmates' Pythons through /proc.
#[cfg(target_os = "linux")]
#[test]
fn without_a_sandbox_a_file_that_kills_its_classmates_graders_costs_them_not_the_run() {
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    // A thread that, while this file is graded, kills every other child of the workshop (the
    // classmates' Pythons, often before they say hello, and their lifelines).
    let killer = r#"
import os, signal, threading, time
_parent = os.getppid()
def _kill_siblings():
    until = time.time() + 4
    while time.time() < until:
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                with open(f"/proc/{pid}/stat") as handle:
                    if int(handle.read().rsplit(")", 1)[1].split()[1]) == _parent:
                        os.kill(int(pid), signal.SIGKILL)
            except (OSError, ValueError, IndexError):
                pass
        time.sleep(0.001)
threading.Thread(target=_kill_siblings, daemon=True).start()
"#;
    let slow = good.replace("def fail(", "def _own_fail(")
        + "\n\ndef fail(category, message):\n    time.sleep(0.1)\n    return _own_fail(category, message)\n";
    w.write("class/a_killer/errors.py", &format!("{killer}\n{slow}"));
    for name in ["b", "c", "d", "e", "f", "g"] {
        w.write(&format!("class/{name}/errors.py"), &good);
    }
    let run = graded(command(
        &w,
        &["grade", "class", "--jobs", "2", "--sandbox", "none", "--timeout", "3"],
    ));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("Install Python"), "{}", run.stderr);
    assert_eq!(lines(&run.stdout).len(), 7, "every file got a verdict: {}", run.stdout);
}

#[test]
fn a_signal_at_any_moment_of_grade_leaves_no_copy_behind() {
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    for name in ["amy", "bob", "cy", "dee", "eve", "fay"] {
        w.write(&format!("class/{name}/errors.py"), &good);
    }
    // The signals fall all over grade's life (before the first folder, between folders, while a
    // copy is written, while Python runs): the first 150 ms cut into 50 slices of 3 ms, one run
    // in each, at a cheap pseudo-random moment of its slice. The runs go a few at a time, each
    // with a folder of its own.
    let mut seed = u64::from(std::process::id()) | 1;
    let runs: Vec<(usize, u64)> = (0..50)
        .map(|run| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (run, seed)
        })
        .collect();
    each_at_once(&runs, |&(run, seed)| {
        let tmp = grade_temp();
        let delay = Duration::from_micros(run as u64 * 3_000 + seed % 3_000);
        let signal = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP][run % 3];
        let mut cmd = command(&w, &["grade", "class", "--jobs", "2"]);
        cmd.env("TMPDIR", tmp.path()).stdout(Stdio::null()).stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        std::thread::sleep(delay);
        // SAFETY: kill(2) on our own child, not yet waited for.
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        let status = child.wait().unwrap();
        let left: Vec<_> =
            std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert!(
            left.is_empty(),
            "run {run}: signal {signal} after {delay:?} ({status}) left {left:?}"
        );
    });
}
