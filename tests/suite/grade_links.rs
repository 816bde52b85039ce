//! Each submission is graded as itself: a link in a class folder (symbolic or hard) is a line of
//! its own that says so, never read and never quoted, so no name takes a classmate's grade and
//! no grading user's file reaches the results. Two names never merge; names that are not UTF-8
//! print apart.

use crate::common::*;
use crate::grade::{command, graded, lines, summary};

use std::os::unix::fs::PermissionsExt;

/// What an operator keeps beside the class: a secret no grade may ever quote.
const NETRC: &str = "machine api.example.com login teacher password hunter2-secret\n";

fn by_file(stdout: &str) -> Vec<(String, String)> {
    lines(stdout)
        .iter()
        .map(|r| {
            (r["file"].as_str().unwrap().to_string(), r["status"].as_str().unwrap().to_string())
        })
        .collect()
}

#[test]
fn a_symlink_to_a_classmates_file_is_its_own_error_line_and_the_classmate_keeps_the_grade() {
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    w.write("class/amy/errors.py", &good);
    std::fs::create_dir_all(w.path("class/aaron")).unwrap();
    std::os::unix::fs::symlink("../amy/errors.py", w.path("class/aaron/errors.py")).unwrap();
    let run = graded(command(&w, &["grade", "class"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        by_file(&run.stdout),
        [
            ("class/aaron/errors.py".into(), "error".into()),
            ("class/amy/errors.py".into(), "pass".into())
        ]
    );
    let aaron = &lines(&run.stdout)[0];
    assert!(
        aaron["message"]
            .as_str()
            .unwrap()
            .contains("is a link, not a file: submit the file itself"),
        "{aaron}"
    );
    assert_eq!(aaron["passed"], 0, "{aaron}");
    // Named on the command line, a link is refused the same way.
    let named = graded(command(&w, &["grade", "class/aaron/errors.py"]));
    assert_eq!(
        by_file(&named.stdout),
        [("class/aaron/errors.py".into(), "error".into())],
        "{}",
        named.stderr
    );
}

#[test]
fn a_link_to_the_graders_own_secret_is_never_read_so_no_format_quotes_it() {
    let w = Workshop::lesson5();
    let secret = w.path("operator/.netrc");
    w.write("operator/.netrc", NETRC);
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::create_dir_all(w.path("class/eve")).unwrap();
    std::os::unix::fs::symlink(&secret, w.path("class/eve/errors.py")).unwrap();
    // A hard link, where the file system allows one: the same bytes under a second name.
    std::fs::create_dir_all(w.path("class/mallory")).unwrap();
    std::fs::hard_link(&secret, w.path("class/mallory/errors.py")).unwrap();
    for format in ["jsonl", "csv", "exercism"] {
        let target = if format == "exercism" { "class/eve" } else { "class" };
        let run = graded(command(&w, &["grade", target, "--format", format]));
        assert_eq!(run.code, 0, "{format}: {}", run.stderr);
        for text in [run.stdout.as_str(), run.stderr.text()] {
            assert!(!text.contains("hunter2"), "{format} quoted the operator's file:\n{text}");
            assert!(
                !text.contains("api.example.com"),
                "{format} quoted the operator's file:\n{text}"
            );
        }
        if format != "csv" {
            assert!(
                run.stdout.contains("is a link, not a file: submit the file itself"),
                "{format}: {}",
                run.stdout
            );
        }
    }
    let run = graded(command(&w, &["grade", "class"]));
    assert_eq!(
        by_file(&run.stdout),
        [
            ("class/eve/errors.py".into(), "error".into()),
            ("class/mallory/errors.py".into(), "error".into())
        ]
    );
    assert!(
        lines(&run.stdout)[1]["message"].as_str().unwrap().contains("2 names, by hard links"),
        "{}",
        run.stdout
    );
}

#[test]
fn two_names_are_two_lines_and_one_path_spelled_twice_is_one() {
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    w.write("g01/errors.py", &good);
    w.write("g02/errors.py", &good);
    let run = graded(command(&w, &["grade", "g01", "./g01", "g01/errors.py", "g02"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        by_file(&run.stdout),
        [("./g01/errors.py".into(), "pass".into()), ("g02/errors.py".into(), "pass".into())]
    );
    assert!(summary(&run.stderr).starts_with("graded 2 files"), "{}", run.stderr);
    let one = graded(command(&w, &["grade", "g01"]));
    assert!(summary(&one.stderr).starts_with("graded 1 file in "), "{}", one.stderr);
}

#[test]
fn names_that_are_not_utf8_print_apart() {
    use std::os::unix::ffi::OsStrExt;
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    for byte in [0xff_u8, 0xfe] {
        let dir = w.path("class").join(std::ffi::OsStr::from_bytes(&[b'g', byte]));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("errors.py"), &good).unwrap();
    }
    let run = graded(command(&w, &["grade", "class"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let files: Vec<String> = by_file(&run.stdout).into_iter().map(|(f, _)| f).collect();
    assert_eq!(files, ["class/g\\xfe/errors.py", "class/g\\xff/errors.py"]);
}
