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
        let mut watch = ws.command(&["watch", "--ticket", "old-order", "--code", path, "--format", "json"]);
        watch.current_dir(&here);
        let watch = run(watch);
        assert_eq!(watch.code, 0, "watch --code {path}: {}", watch.stderr);
        assert_eq!(watch.json()["code"], check.json()["file"], "{path}");
    }
    assert_eq!(
        ws.run(&["check", "--file", "./work/structured-errors/errors.py", "--format", "json"]).json()["file"],
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
        let said = |flag: &str| format!("there is no file at {path}: check the path given to {flag}.");
        assert!(check.stderr.contains(&said("--file")), "{}", check.stderr);
        assert!(watch.stderr.contains(&said("--code")), "{}", watch.stderr);
    }
}
