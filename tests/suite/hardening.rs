//! Small promises kept: a recording that is not UTF-8 is named by line, `doctor` says "could not
//! run" (exit 2) for data that cannot be read and for a root with no lessons, and `watch --code`
//! finds a path as `check --file` does.

use crate::common::*;

const OLD_ORDER: &str = "recordings/structured-errors/harness/old-order.jsonl";

#[test]
fn a_recording_that_is_not_utf8_is_named_with_its_line() {
    let ws = Workshop::lesson5();
    let text = ws.read(OLD_ORDER);
    let lines: Vec<&str> = text.lines().collect();
    let mut bytes = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        bytes.extend_from_slice(line.as_bytes());
        if i == 2 {
            bytes.extend_from_slice(b" \xff\xfe");
        }
        bytes.push(b'\n');
    }
    std::fs::write(ws.path(OLD_ORDER), bytes).unwrap();
    let run = ws.run(&["watch", "--ticket", "old-order"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains(&format!("{OLD_ORDER}:3: is not UTF-8 text")), "{}", run.stderr);
    assert!(run.stderr.contains("git checkout"), "{}", run.stderr);
}

#[test]
fn doctor_exits_2_for_a_corrupt_recording_and_still_examines_the_rest() {
    let ws = Workshop::lesson5();
    ws.copy_watch_fixture("recordings/not_json.jsonl", OLD_ORDER);
    let run = ws.run(&["doctor"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stdout.contains(&format!("{OLD_ORDER}:2:")), "{}", run.stdout);
    assert!(run.stdout.contains("✓ harness/wrong-id with structured"), "{}", run.stdout);
    assert!(run.stdout.contains("data that cannot be read"), "{}", run.stdout);
}

#[test]
fn doctor_exits_2_for_corrupt_lesson_data() {
    let ws = Workshop::lesson5();
    ws.write("lessons/structured-errors/lesson.toml", "this is [not toml\n");
    let run = ws.run(&["doctor"]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(all.contains("lessons/structured-errors/lesson.toml"), "{all}");
}

#[test]
fn doctor_refuses_a_root_with_no_lessons() {
    let ws = Workshop::lesson5();
    std::fs::remove_dir_all(ws.path("lessons")).unwrap();
    std::fs::create_dir(ws.path("lessons")).unwrap();
    let run = ws.run(&["doctor"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("there are no lessons under"), "{}", run.stderr);
    assert!(!run.stdout.contains("everything replays"), "{}", run.stdout);
}

#[test]
fn watch_code_takes_the_paths_check_file_takes() {
    let ws = Workshop::lesson5();
    ws.work_file_from("good_match.py");
    let here = ws.path("work/structured-errors");
    for path in ["errors.py", "./errors.py", "../structured-errors/errors.py"] {
        let mut check = ws.command(&["check", "--file", path, "--format", "json"]);
        check.current_dir(&here);
        let check = run(check);
        assert_eq!(check.code, 0, "check --file {path}: {}", check.stderr);
        let mut watch =
            ws.command(&["watch", "--ticket", "old-order", "--code", path, "--format", "json"]);
        watch.current_dir(&here);
        let watch = run(watch);
        assert_eq!(watch.code, 0, "watch --code {path}: {}", watch.stderr);
        assert_eq!(watch.json()["code"], check.json()["file"], "{path}");
    }
    assert_eq!(
        ws.run(&["check", "--file", "./work/structured-errors/errors.py", "--format", "json"])
            .json()["file"],
        "work/structured-errors/errors.py"
    );
    for path in ["nothere.py", "../nothere.py"] {
        let mut check = ws.command(&["check", "--file", path]);
        check.current_dir(&here);
        let check = run(check);
        let mut watch = ws.command(&["watch", "--ticket", "old-order", "--code", path]);
        watch.current_dir(&here);
        let watch = run(watch);
        assert_eq!((check.code, watch.code), (2, 2));
        // Run from a folder inside the workshop, the path is shown as it works from there.
        let said =
            |flag: &str| format!("there is no file at {path}: check the path given to {flag}.");
        assert!(check.stderr.contains(&said("--file")), "{}", check.stderr);
        assert!(watch.stderr.contains(&said("--code")), "{}", watch.stderr);
    }
}

// Data files that are not files: a command says what is there and goes on or stops, never hangs
// on a FIFO or reads a device without end.

#[test]
fn a_recording_that_is_a_fifo_or_a_device_is_named_not_read() {
    for what in ["fifo", "device"] {
        let ws = Workshop::lesson5();
        std::fs::remove_file(ws.path(OLD_ORDER)).unwrap();
        match what {
            "fifo" => mkfifo(&ws.path(OLD_ORDER)),
            _ => std::os::unix::fs::symlink("/dev/zero", ws.path(OLD_ORDER)).unwrap(),
        }
        let said = if what == "fifo" {
            "a named pipe (FIFO), not a regular file"
        } else {
            "a character device, not a regular file"
        };
        let watch = run_guarded(memory_capped(ws.command(&[
            "watch",
            "--ticket",
            "old-order",
            "--format",
            "json",
        ])));
        assert_eq!(watch.code, 2, "{what}: {}", watch.stdout);
        assert!(
            watch.stderr.contains(OLD_ORDER) && watch.stderr.contains(said),
            "{what}: {}",
            watch.stderr
        );
        let doctor = run_guarded(memory_capped(ws.command(&["doctor"])));
        assert_eq!(doctor.code, 2, "{what}: {}", doctor.stdout);
        assert!(doctor.stdout.contains(said), "{what}: {}", doctor.stdout);
    }
}

#[test]
fn a_progress_file_that_is_a_fifo_or_a_device_counts_as_no_progress() {
    for what in ["fifo", "device"] {
        let ws = Workshop::lesson5();
        ws.work_file_from("good_match.py");
        match what {
            "fifo" => mkfifo(&ws.path("work/.progress.json")),
            _ => std::os::unix::fs::symlink("/dev/zero", ws.path("work/.progress.json")).unwrap(),
        }
        let list = run_guarded(memory_capped(ws.command(&["list"])));
        assert_eq!(list.code, 0, "{what}: {}", list.stderr);
        assert!(list.stdout.contains("structured-errors"), "{what}: {}", list.stdout);
        let check = run_guarded(memory_capped(ws.command(&["check", "--format", "json"])));
        assert_eq!(check.code, 0, "{what}: {}", check.stdout);
        // The grade was saved in its place. Looked at before it is read: were it still the FIFO,
        // reading it would wait for a writer forever.
        let saved = std::fs::symlink_metadata(ws.path("work/.progress.json")).unwrap();
        assert!(
            saved.file_type().is_file(),
            "{what}: the progress file is still a {:?}",
            saved.file_type()
        );
        assert!(ws.read("work/.progress.json").contains("\"passed\": 14"), "{what}");
    }
}

#[test]
fn reset_of_a_work_file_that_is_a_fifo_refuses_as_start_does() {
    let ws = Workshop::lesson5();
    std::fs::create_dir_all(ws.path("work/structured-errors")).unwrap();
    mkfifo(&ws.path("work/structured-errors/errors.py"));
    let run = run_guarded(ws.command(&["reset", "--yes"]));
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains(
            "work/structured-errors/errors.py is a named pipe (FIFO), not a regular file, so reset cannot tell"
        ),
        "{}",
        run.stderr
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(ws.path("work/structured-errors/errors.py"))
        .unwrap()
        .file_type()
        .is_fifo());
}

#[test]
fn lesson_data_past_the_cap_is_refused_unread_with_its_name() {
    // Sparse: the size is there, the bytes are not, so the test writes nothing.
    let grow = |ws: &Workshop, rel: &str| {
        let file = std::fs::OpenOptions::new().append(true).open(ws.path(rel)).unwrap();
        file.set_len(65 << 20).unwrap();
    };
    let said = "more than the 64 MiB a data file may";
    let cases: [(&str, &[&str]); 3] = [
        ("lessons/structured-errors/lesson.md", &["lesson", "structured-errors", "--no-pager"]),
        ("lessons/structured-errors/quiz.toml", &["quiz", "structured-errors"]),
        ("lessons/structured-errors/lesson.toml", &["check", "structured-errors"]),
    ];
    for (rel, args) in cases {
        let ws = Workshop::lesson5();
        ws.work_file_from("good_match.py");
        grow(&ws, rel);
        let run = run_guarded(memory_capped(ws.command(args)));
        assert_eq!(run.code, 2, "{rel}: {}\n{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(rel) && run.stderr.contains(said), "{rel}: {}", run.stderr);
    }
}

#[test]
fn a_work_file_that_is_a_fifo_is_named_as_one_not_as_missing() {
    let ws = Workshop::lesson5();
    std::fs::create_dir_all(ws.path("work/structured-errors")).unwrap();
    mkfifo(&ws.path("work/structured-errors/errors.py"));
    let said = "work/structured-errors/errors.py is a named pipe (FIFO), not a file of code: put your code in a regular file there";
    for args in [
        &["check", "structured-errors"][..],
        &["watch", "structured-errors", "--ticket", "old-order"],
        &["solution", "structured-errors"],
    ] {
        let run = run_guarded(ws.command(args));
        assert_eq!(run.code, 2, "{args:?}: {}", run.stdout);
        assert!(run.stderr.contains(said), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("does not exist yet"), "{args:?}: {}", run.stderr);
    }
    let given = run_guarded(ws.command(&[
        "check",
        "structured-errors",
        "--file",
        "work/structured-errors/errors.py",
    ]));
    assert_eq!(given.code, 2);
    assert!(
        given.stderr.contains("there is a named pipe (FIFO), not a file, at work/structured-errors/errors.py: check the path given to --file."),
        "{}",
        given.stderr
    );
}

#[test]
fn a_progress_lock_that_is_a_fifo_or_a_link_is_named_not_waited_on() {
    for what in ["fifo", "link"] {
        let ws = Workshop::lesson5();
        assert_eq!(ws.run(&["start", "structured-errors"]).code, 0);
        let lock = ws.path("work/.progress.lock");
        let _ = std::fs::remove_file(&lock);
        match what {
            "fifo" => mkfifo(&lock),
            _ => std::os::unix::fs::symlink("/dev/null", &lock).unwrap(),
        }
        let is = if what == "fifo" { "a named pipe (FIFO)" } else { "a symbolic link" };
        let said = format!(
            ".progress.lock is {is}, not a lock file: remove it (the workshop makes it again)"
        );
        // Bounded: opening a FIFO for writing would wait for a reader forever.
        let check = run_guarded(ws.command(&["check", "--format", "json"]));
        assert_eq!(check.code, 1, "{what}: {}", check.stdout);
        assert!(
            check.stderr.contains("warning: progress was not saved (")
                && check.stderr.contains(&said),
            "{what}: {}",
            check.stderr
        );
        assert_eq!(check.json()["passed"], 2, "{what}: the grade stands");
        let hint = run_guarded(ws.command(&["hint"]));
        assert_eq!(hint.code, 0, "{what}: {}", hint.stderr);
        assert!(hint.stdout.starts_with("Hint for fail-flags-failure"), "{what}: {}", hint.stdout);
        assert!(hint.stderr.contains(&said), "{what}: {}", hint.stderr);
        // Neither opened nor replaced.
        let meta = std::fs::symlink_metadata(&lock).unwrap();
        use std::os::unix::fs::FileTypeExt;
        assert!(
            meta.file_type().is_fifo() || meta.file_type().is_symlink(),
            "{what}: {:?}",
            meta.file_type()
        );
    }
}
