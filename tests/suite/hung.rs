//! A function that hangs is reported as a hang: the check whose call hung names the call, its
//! head and the tally say to make it return, its hint is about loops (not the check's own), and
//! the checks left out after it have a mark and a status of their own, in text, JSON and grade.

use crate::common::*;

const LESSON: &str = "messages-that-help";
const FILE: &str = "tests/fixtures/messages-that-help/hangs_on_partial.py";
/// The checks that need `message` after it hung twice on the partial kind.
const LEFT_OUT: [&str; 8] = [
    "no-trace-or-code",
    "short",
    "names-bad-value",
    "names-the-field",
    "names-nearest",
    "names-valid-values",
    "down-says-until",
    "partial-says-done",
];

fn file() -> String {
    repo().join(FILE).to_string_lossy().into_owned()
}

/// `check` of the file that hangs, with a short deadline for its hangs and these flags.
fn check_hang(ws: &Workshop, more: &[&str]) -> Run {
    let file = file();
    let args = ["check", LESSON, "--file", &file, "--timeout", HANG_TIMEOUT];
    ws.run(&[&args[..], more].concat())
}

#[test]
fn a_hang_is_headlined_as_a_hang_and_the_checks_it_left_out_are_not_failures() {
    let ws = Workshop::only(LESSON);
    let (run, ascii) = at_once(
        || check_hang(&ws, &["--color", "never"]),
        || check_hang(&ws, &["--color", "never", "--ascii"]),
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let out = &run.stdout;
    let line = "✗ no-host-or-path            hung: message('partial', …) never returned";
    assert!(out.contains(line), "{out}");
    let head = "✗ no-host-or-path: message('partial', …) hung, so this check could not finish";
    assert!(out.contains(head), "{out}");
    for id in LEFT_OUT {
        assert!(out.lines().any(|l| l.starts_with(&format!("○ {id} "))), "{id}: {out}");
    }
    // Not the leak hint of no-host-or-path: the hang's.
    assert!(!out.contains("Which parts of a failure"), "{out}");
    assert!(out.contains("Look for a loop that cannot end"), "{out}");
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    let tally = "5/16 passed, 8 not run. Next: make message('partial', …) return (it hung)";
    assert!(flat.contains(tally), "{out}");
    assert!(!flat.contains("Next: fix no-host-or-path"), "{out}");
    assert!(ascii.stdout.lines().any(|l| l.starts_with("-- short ")), "{}", ascii.stdout);
}

#[test]
fn a_hang_and_the_checks_it_left_out_have_their_own_status_in_json_and_grade() {
    let ws = Workshop::only(LESSON);
    ws.write("class/a.py", &std::fs::read_to_string(repo().join(FILE)).unwrap());
    let tmp = crate::grade::grade_temp();
    let (run, graded) = at_once(
        || check_hang(&ws, &["--format", "json"]),
        || {
            let args = ["grade", LESSON, "class", "--sandbox", "none", "--format", "csv"];
            let args = [&args[..], &["--timeout", HANG_TIMEOUT]].concat();
            let mut cmd = crate::grade::command(&ws, &args);
            cmd.env("TMPDIR", tmp.path());
            crate::grade::graded(cmd)
        },
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = run.json();
    assert_eq!(
        report["message"],
        "5 of 16 checks pass, 8 not run; message('partial', …) hung; \
         the first to fix is no-host-or-path"
    );
    let checks = report["checks"].as_array().unwrap();
    let by_id = |id: &str| checks.iter().find(|c| c["id"] == id).unwrap();
    let status = |id: &str| by_id(id)["status"].as_str().unwrap().to_string();
    for id in LEFT_OUT {
        assert_eq!(status(id), "not_run", "{id}");
    }
    let first = checks.iter().find(|c| c["id"] == "no-host-or-path").unwrap();
    let told = (first["status"].as_str(), first["hung"].as_str());
    assert_eq!(told, (Some("fail"), Some("message('partial', …)")));
    // grade: the summary names the file and the call, and the CSV says not_run.
    assert_eq!(graded.code, 0, "{}", graded.stderr);
    assert!(graded.stdout.contains(",not_run,"), "{}", graded.stdout);
    let summary = &graded.stderr;
    let head = "files where a call hung (checks that need it did not run):";
    assert!(summary.contains(head), "{summary}");
    assert!(summary.contains("a.py: message('partial', …) hung; 8 not run"), "{summary}");
}
