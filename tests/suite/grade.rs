//! `workshop grade`: a class of 33 files (correct, buggy and hostile) graded in parallel gets, for
//! every file, the verdict `check` gives it; shards split the class exactly; the summary names
//! the checks the class fails most; a file cannot see the operator's secrets, tamper with a
//! classmate's grade, or escape its limits; bad usage exits 2.

use crate::common::*;

use std::collections::BTreeMap;

use serde_json::Value;

const TOKEN: &str = "ghp_gradetestsecret0123456789";
const API_KEY: &str = "sk-ant-gradetestsecret-abcdef";

/// Learner files kept for `check`'s tests, reused here as students' submissions.
const FROM_FIXTURES: [&str; 28] = [
    "good_class_chatty.py",
    "good_dataclass.py",
    "good_dict_literal.py",
    "good_helpers.py",
    "good_match.py",
    "bug_always_retryable.py",
    "empty_is_error_false.py",
    "bug_empty_is_failure.py",
    "bug_is_error_one.py",
    "bug_is_error_string.py",
    "bug_message_replaced.py",
    "bug_no_is_error.py",
    "bug_retry_always.py",
    "bug_retry_keyerror.py",
    "bug_retry_reads_result.py",
    "bug_retry_returns_none.py",
    "bug_retryable_missing.py",
    "bug_wrong_category.py",
    "bad_child_process.py",
    "bad_exception_at_import.py",
    "bad_loop_in_call.py",
    "bad_missing_function.py",
    "bad_new_session_child.py",
    "bad_os_exit_in_call.py",
    "bad_prints_megabytes.py",
    "bad_returns_set.py",
    "bad_syntax.py",
    "bad_writes_fd1.py",
];

/// Hostile variants, generated: a file that forgets `isError` (so the check that fails shows what
/// it printed) or the reference solution, with `fail` wrapped in a snippet run on every call, or
/// a snippet run at import.
fn hostile() -> Vec<(&'static str, String)> {
    let buggy = std::fs::read_to_string(fixture("bug_no_is_error.py")).unwrap();
    let solution =
        std::fs::read_to_string(repo().join("lessons/structured-errors/solution/errors.py"))
            .unwrap();
    let wrap = |base: &str, snippet: &str| {
        let body: String = snippet.lines().map(|l| format!("    {l}\n")).collect();
        format!("{base}\n\nimport os, sys\n_graded_fail = fail\n\n\ndef fail(category, message):\n{body}    return _graded_fail(category, message)\n")
    };
    let at_import =
        |base: &str, snippet: &str| format!("import os, sys, time\n{snippet}\n\n{base}");
    vec![
        ("hostile_prints_environment.py", wrap(&buggy, "print(sorted(os.environ.items()))")),
        (
            "hostile_reads_a_sibling.py",
            wrap(
                &buggy,
                "here = os.path.realpath(f'/proc/{os.getppid()}/cwd')\nclass_dir = os.path.join(here, 'class')\ntry:\n    names = sorted(os.listdir(class_dir))\nexcept OSError as e:\n    names = []\n    print('no class folder:', e.strerror)\nfor name in names:\n    path = os.path.join(class_dir, name, 'errors.py')\n    if os.path.isfile(path):\n        print(name, open(path).readline().strip())\n        break",
            ),
        ),
        (
            "hostile_fork_storm.py",
            at_import(
                &solution,
                "for _ in range(40):\n    try:\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n    except OSError:\n        break",
            ),
        ),
        (
            "hostile_floods.py",
            wrap(&buggy, "for _ in range(20000):\n    print('flood ' * 50)\nos.write(2, b'raw ' * 16384)"),
        ),
        ("hostile_segfaults.py", wrap(&solution, "if category == 'business':\n    import ctypes\n    ctypes.string_at(0)")),
    ]
}

/// A workshop with the class under `class/<student>/errors.py`; returns the students in order.
fn class(w: &Workshop) -> Vec<String> {
    let mut names = Vec::new();
    for name in FROM_FIXTURES {
        let text = std::fs::read_to_string(fixture(name)).unwrap();
        let student = name.trim_end_matches(".py");
        w.write(&format!("class/{student}/errors.py"), &text);
        names.push(student.to_string());
    }
    for (name, text) in hostile() {
        let student = name.trim_end_matches(".py");
        w.write(&format!("class/{student}/errors.py"), &text);
        names.push(student.to_string());
    }
    // Stray files a grader must not pick up: bytecode, a hidden folder, notes.
    w.write("class/good_match/__pycache__/errors.py", "raise SystemExit('not a submission')");
    w.write("class/.git/errors.py", "raise SystemExit('not a submission')");
    w.write("class/README.md", "# the class");
    names.sort();
    names
}

pub(crate) fn command(w: &Workshop, args: &[&str]) -> std::process::Command {
    let mut cmd = w.command(args);
    cmd.env("WORKSHOP_PYTHON", crate::sandbox::grading_python());
    cmd
}

/// A temporary folder for `grade`'s TMPDIR that the grading user may enter (as root, grade
/// hands each copy to `nobody`, and refuses a TMPDIR that user cannot enter).
pub(crate) fn grade_temp() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempdir();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
    tmp
}

/// The summary on stderr, after the warning `--sandbox auto` gives where bubblewrap cannot run.
pub(crate) fn summary(stderr: &str) -> &str {
    stderr.find("graded ").map(|at| &stderr[at..]).unwrap_or(stderr)
}

/// A grade run that graded, with its summary on stderr (declared: every such run prints one).
pub(crate) fn graded(cmd: std::process::Command) -> Run {
    let run = run(cmd);
    if run.code == 0 {
        assert!(run.stderr.contains("graded "), "no summary on stderr:\n{}", run.stderr);
    }
    run
}

pub(crate) fn lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect()
}

/// A report's verdict: its status, counts and summary, and each check's id, status and deciding
/// call. Not what the file printed (the sandbox changes HOME and the folder it runs in) nor the
/// reprs in messages (a set's order changes with Python's hash seed from one process to the next).
fn verdict(report: &Value) -> Value {
    let checks: Vec<Value> = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| serde_json::json!([c["id"], c["status"], c["call"]]))
        .collect();
    serde_json::json!({
        "file": report["file"], "status": report["status"], "message": report["message"],
        "passed": report["passed"], "total": report["total"], "checks": checks,
    })
}

#[test]
fn a_class_is_graded_with_checks_verdicts_no_secrets_and_a_summary_of_what_fails_most() {
    let w = Workshop::lesson5();
    let students = class(&w);
    assert_eq!(students.len(), 33);
    let mut cmd = command(&w, &["grade", "structured-errors", "class", "--jobs", "2"]);
    cmd.env("GITHUB_TOKEN", TOKEN).env("ANTHROPIC_API_KEY", API_KEY);
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);

    // One line per file, in sorted order, named as given.
    let graded = lines(&run.stdout);
    let files: Vec<&str> = graded.iter().map(|r| r["file"].as_str().unwrap()).collect();
    let expected: Vec<String> = students.iter().map(|s| format!("class/{s}/errors.py")).collect();
    assert_eq!(files, expected);

    // Every verdict is check's, file by file.
    each_at_once(&graded, |report| {
        let file = report["file"].as_str().unwrap();
        let check = run_check(&w, file);
        assert_eq!(verdict(report), verdict(&check), "{file}: grade and check disagree");
    });
    let statuses: Vec<&str> = graded.iter().map(|r| r["status"].as_str().unwrap()).collect();
    for status in ["pass", "fail", "error"] {
        assert!(statuses.contains(&status), "the class has a {status}: {statuses:?}");
    }

    no_secret_and_the_sandboxes_environment(&run, &graded);
    the_summary_counts_and_ranks_the_failing_checks(&run, &graded, &statuses);
}

/// No secret reaches a file's code, and the environment it saw is the sandbox's.
fn no_secret_and_the_sandboxes_environment(run: &Run, graded: &[Value]) {
    for secret in [TOKEN, API_KEY, "GITHUB_TOKEN", "ANTHROPIC_API_KEY"] {
        assert!(!run.stdout.contains(secret), "{secret} leaked into stdout");
        assert!(!run.stderr.contains(secret), "{secret} leaked into stderr");
    }
    let env_report =
        graded.iter().find(|r| r["file"] == "class/hostile_prints_environment/errors.py").unwrap();
    let printed = env_report["checks"][0]["output"].as_str().unwrap();
    assert!(printed.contains("('HOME', '") && printed.contains("workshop-grade-"), "{printed}");
    assert!(printed.contains("('PATH', '"), "{printed}");
    assert!(!printed.contains("WORKSHOP_PYTHON") && !printed.contains("('TERM'"), "{printed}");
    // Under bubblewrap a file cannot reach its classmates' files through the workshop's folder.
    let sibling =
        graded.iter().find(|r| r["file"] == "class/hostile_reads_a_sibling/errors.py").unwrap();
    let printed = sibling["checks"][0]["output"].as_str().unwrap();
    if run.stderr.contains("sandbox: bubblewrap") {
        assert!(printed.contains("no class folder: No such file or directory"), "{printed}");
    }
}

/// The summary: counts, then the checks by how many files fail them, most first.
fn the_summary_counts_and_ranks_the_failing_checks(run: &Run, graded: &[Value], statuses: &[&str]) {
    let count = |s: &str| statuses.iter().filter(|x| **x == s).count();
    let stderr = summary(&run.stderr);
    assert!(stderr.starts_with("graded 33 files in "), "{}", run.stderr);
    let tally =
        format!(": {} pass, {} fail, {} error\n", count("pass"), count("fail"), count("error"));
    assert!(stderr.lines().next().unwrap().ends_with(tally.trim_end()), "{}", run.stderr);
    let mut fails: BTreeMap<String, usize> = BTreeMap::new();
    for report in graded {
        for check in report["checks"].as_array().unwrap() {
            *fails.entry(check["id"].as_str().unwrap().to_string()).or_default() +=
                usize::from(check["status"] == "fail");
        }
    }
    let listed: Vec<(usize, String)> = run
        .stderr
        .lines()
        .skip_while(|l| !l.starts_with("files failing each check"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            let mut words = l.split_whitespace();
            (words.next().unwrap().parse().unwrap(), words.next().unwrap().to_string())
        })
        .collect();
    let most = fails.values().max().copied().unwrap();
    assert_eq!(listed[0].0, most, "{}", run.stderr);
    assert!(listed.windows(2).all(|p| p[0].0 >= p[1].0), "most failed first: {listed:?}");
    for (n, id) in &listed {
        assert_eq!(fails[id], *n, "{id}");
    }
    assert_eq!(listed.len(), fails.values().filter(|n| **n > 0).count());
    assert!(run.stderr.contains("files that did not load"), "{}", run.stderr);
    assert!(run.stderr.contains("class/bad_syntax/errors.py"), "{}", run.stderr);
}

fn run_check(w: &Workshop, file: &str) -> Value {
    let run = run(command(w, &["check", "--file", file, "--format", "json"]));
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run.json()
}

#[test]
fn shards_split_the_class_exactly_and_concatenate_to_the_whole() {
    let w = Workshop::lesson5();
    let students = class(&w);
    let whole: Vec<String> = students.iter().map(|s| format!("class/{s}/errors.py")).collect();
    let mut joined = Vec::new();
    for k in 1..=4 {
        let shard = format!("{k}/4");
        let run =
            graded(command(&w, &["grade", "class", "--partition", &shard, "--format", "csv"]));
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(summary(&run.stderr).starts_with("graded "), "{}", run.stderr);
        assert!(run.stderr.contains(&format!("(shard {k}/4 of 33)")), "{}", run.stderr);
        let mut rows = run.stdout.lines();
        assert!(rows.next().unwrap().starts_with("file,status,passed,total,fail-flags-failure,"));
        let files: Vec<String> = rows.map(|r| r.split(',').next().unwrap().to_string()).collect();
        assert!((8..=9).contains(&files.len()), "shard {k}: {files:?}");
        joined.extend(files);
    }
    assert_eq!(joined, whole, "the shards in order are the class in order, each file once");
}

/// Shards draw the same samples only from the same key: with one shared `WORKSHOP_SEED` their
/// lines add up to one grade's; without it each shard says, once, that its key is its own.
#[test]
fn shards_add_up_to_one_grade_with_a_shared_seed_and_say_so_without_one() {
    let w = Workshop::lesson5();
    let starter = w.read("starter/structured-errors/errors.py");
    for name in ["amy", "bo", "cy", "di"] {
        w.write(&format!("class/{name}/errors.py"), &format!("# {name}\n{starter}"));
    }
    let grade = |args: &[&str], seed: Option<&str>| {
        let mut cmd = command(&w, args);
        match seed {
            Some(seed) => cmd.env("WORKSHOP_SEED", seed),
            None => cmd.env_remove("WORKSHOP_SEED"),
        };
        let run = graded(cmd);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run
    };
    let alone = grade(&["grade", "class", "--partition", "1/2"], None);
    let said = alone.stderr.matches("--partition without WORKSHOP_SEED").count();
    assert_eq!(said, 1, "said once: {}", alone.stderr);
    assert!(alone.stderr.contains("this shard's own"), "{}", alone.stderr);

    let seed = "5eed5eed5eed5eed";
    let whole = grade(&["grade", "class"], Some(seed));
    let mut shards = String::new();
    for k in ["1/2", "2/2"] {
        let shard = grade(&["grade", "class", "--partition", k], Some(seed));
        assert!(shard.stderr.contains("every shard given the same one"), "{}", shard.stderr);
        assert!(!shard.stderr.contains("without WORKSHOP_SEED"), "{}", shard.stderr);
        shards.push_str(&shard.stdout);
    }
    assert_eq!(shards, whole.stdout, "the shards' lines in order are one grade's");
}

#[test]
fn csv_has_a_column_per_check_and_matches_the_json_lines() {
    let w = Workshop::lesson5();
    for name in ["good_match.py", "bug_wrong_category.py", "bad_syntax.py"] {
        let text = std::fs::read_to_string(fixture(name)).unwrap();
        // Names with a comma and a quote must come out quoted.
        w.write(&format!("class/{}, \"x\".py", name.trim_end_matches(".py")), &text);
    }
    let json = graded(command(&w, &["grade", "class"]));
    let csv = graded(command(&w, &["grade", "class", "--format", "csv"]));
    assert_eq!((json.code, csv.code), (0, 0), "{}{}", json.stderr, csv.stderr);
    assert!(
        json.stderr.contains("graded 3 files") && csv.stderr.contains("graded 3 files"),
        "{}",
        json.stderr
    );
    let rows: Vec<&str> = csv.stdout.split("\r\n").filter(|r| !r.is_empty()).collect();
    let header: Vec<&str> = rows[0].split(',').collect();
    let reports = lines(&json.stdout);
    let ids: Vec<&str> = reports[0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(header[..4], ["file", "status", "passed", "total"]);
    assert_eq!(header[4..], ids[..]);
    assert_eq!(rows.len(), 1 + reports.len());
    for (row, report) in rows[1..].iter().zip(&reports) {
        let file = report["file"].as_str().unwrap();
        let quoted = format!("\"{}\"", file.replace('"', "\"\""));
        assert!(row.starts_with(&quoted), "{row}");
        let cells: Vec<&str> = row[quoted.len() + 1..].split(',').collect();
        assert_eq!(cells[0], report["status"]);
        assert_eq!(cells[1], report["passed"].to_string());
        assert_eq!(cells[2], report["total"].to_string());
        let statuses: Vec<&str> = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["status"].as_str().unwrap())
            .collect();
        assert_eq!(cells[3..], statuses[..], "{file}");
    }
}

#[test]
fn a_folder_without_work_files_grades_every_py_file_and_files_can_be_named_directly() {
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    let bug = std::fs::read_to_string(fixture("bug_no_is_error.py")).unwrap();
    w.write("drop/zoe.py", &good)
        .write("drop/deeper/amy.py", &bug)
        .write("drop/notes.txt", "not python");
    let run1 = graded(command(&w, &["grade", "drop"]));
    assert_eq!(run1.code, 0, "{}", run1.stderr);
    assert!(run1.stderr.contains("graded 2 files"), "{}", run1.stderr);
    let files: Vec<String> =
        lines(&run1.stdout).iter().map(|r| r["file"].as_str().unwrap().to_string()).collect();
    assert_eq!(files, ["drop/deeper/amy.py", "drop/zoe.py"]);
    let run2 = graded(command(&w, &["grade", "drop/zoe.py"]));
    assert_eq!(lines(&run2.stdout)[0]["file"], "drop/zoe.py");
    assert_eq!(lines(&run2.stdout)[0]["status"], "pass");
    assert!(run2.stderr.contains("graded 1 file in"), "{}", run2.stderr);
}

#[test]
fn a_file_cannot_change_a_classmates_grade_by_rewriting_their_file() {
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    let victim = w.path("class/b_victim/errors.py");
    let attack = format!(
        "try:\n    open({:?}, 'w').write('this is not python (')\nexcept OSError as e:\n    print('could not rewrite:', e.strerror)\n\n{good}",
        victim.to_str().unwrap()
    );
    w.write("class/a_attacker/errors.py", &attack).write("class/b_victim/errors.py", &good);
    // Without a sandbox the attack reaches the file, but the grade comes from the copy read
    // before any file ran.
    let run = graded(command(&w, &["grade", "class", "--jobs", "1", "--sandbox", "none"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("graded 2 files"), "{}", run.stderr);
    let reports = lines(&run.stdout);
    assert_eq!(reports[1]["file"], "class/b_victim/errors.py");
    assert_eq!(reports[1]["status"], "pass", "graded from the copy read before any file ran");
    // As root, grade runs each file as nobody, who cannot even reach the class (0700 here).
    let rewritten = std::fs::read_to_string(&victim).unwrap().contains("not python");
    assert_eq!(rewritten, !crate::sandbox::is_root(), "the attack ran, as the grading user could");

    // Under bubblewrap the file is not even in view.
    if !crate::sandbox::needs_bwrap() {
        return;
    }
    w.write("class/b_victim/errors.py", &good);
    let run = graded(command(&w, &["grade", "class", "--jobs", "1", "--sandbox", "bwrap"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let reports = lines(&run.stdout);
    assert_eq!(reports[1]["status"], "pass");
    assert!(
        reports[0]["output"]
            .as_str()
            .unwrap()
            .contains("could not rewrite: No such file or directory"),
        "{}",
        reports[0]
    );
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        good,
        "the classmate's file is untouched"
    );
}

#[test]
fn each_file_runs_in_a_fresh_folder_under_resource_limits() {
    let w = Workshop::lesson5();
    let buggy = std::fs::read_to_string(fixture("bug_no_is_error.py")).unwrap();
    let probe = r#"
import os, resource
_probed = []
_graded_fail = fail


def fail(category, message):
    if not _probed:
        _probed.append(1)
        for name in ["RLIMIT_AS", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_CPU"]:
            print(name, resource.getrlimit(getattr(resource, name)))
        print("cwd", os.getcwd() == os.environ["HOME"], sorted(os.listdir(".")))
        try:
            bytearray(2 << 30)
            print("memory: allowed")
        except MemoryError:
            print("memory: refused")
        try:
            with open("big.bin", "wb") as out:
                out.write(b"x" * (17 << 20))
            print("file: allowed")
        except OSError as e:
            print("file: refused", e.strerror)
    return _graded_fail(category, message)
"#;
    w.write("class/probe/errors.py", &format!("{buggy}\n{probe}"));
    let run = graded(command(&w, &["grade", "class"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("graded 1 file in"), "{}", run.stderr);
    let report = &lines(&run.stdout)[0];
    let printed = report["checks"][0]["output"].as_str().unwrap();
    assert!(printed.contains("RLIMIT_AS (1073741824, 1073741824)"), "{printed}");
    assert!(printed.contains("RLIMIT_FSIZE (16777216, 16777216)"), "{printed}");
    assert!(printed.contains("RLIMIT_CPU (30, 30)"), "{printed}");
    assert!(!printed.contains("RLIMIT_NPROC (-1"), "a process limit is set: {printed}");
    assert!(printed.contains("cwd True ['errors.py']"), "{printed}");
    assert!(printed.contains("memory: refused"), "{printed}");
    assert!(printed.contains("file: refused File too large"), "{printed}");
    assert!(!w.path("class/probe/big.bin").exists());

    // An operator's tighter limit stands: 4 MiB files (bash counts in KiB).
    let mut cmd = std::process::Command::new("bash");
    w.at_home(&mut cmd)
        .args(["-c", "ulimit -S -f 4096 && exec \"$0\" \"$@\"", BIN, "grade", "class"])
        .current_dir(w.root())
        .env("WORKSHOP_PYTHON", crate::sandbox::grading_python())
        .stdin(std::process::Stdio::null());
    let run = crate::common::run(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("graded 1 file in"), "{}", run.stderr);
    let printed = lines(&run.stdout)[0]["checks"][0]["output"].as_str().unwrap().to_string();
    assert!(printed.contains("RLIMIT_FSIZE (4194304, 4194304)"), "{printed}");
}

#[test]
fn grade_exits_2_when_it_cannot_run() {
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    w.write("class/amy/errors.py", &good);
    std::fs::create_dir_all(w.path("empty")).unwrap();
    let cases: [(&[&str], &str); 8] = [
        (
            &["grade", "no-such-lesson", "class"],
            "'no-such-lesson' is neither a lesson nor a file or folder here",
        ),
        (&["grade", "structured-errors"], "give the files or folders to grade after the lesson"),
        (&["grade", "empty"], "there is no file to grade in empty"),
        (&["grade", "class", "missing"], "there is no file or folder at missing"),
        (&["grade", "class", "--partition", "3/2"], "--partition 3/2 is out of range"),
        (&["grade", "class", "--partition", "two"], "--partition two is not K/N"),
        (&["grade", "class", "--jobs", "0"], "--jobs 0 grades nothing"),
        (&["grade", "class", "--timeout", "0"], "0 s is out of range"),
    ];
    for (args, message) in cases {
        let run = run(command(&w, args));
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
    }
    // With two lessons, grade needs to be told which.
    let two = Workshop::new();
    two.write("class/amy/errors.py", &good);
    let run2 = run(command(&two, &["grade", "class"]));
    assert_eq!(run2.code, 2, "{}", run2.stderr);
    assert!(run2.stderr.contains("name a lesson"), "{}", run2.stderr);
    let run2 = run(command(&two, &["grade", "structured-errors", "class"]));
    assert_eq!(run2.code, 0, "{}", run2.stderr);
    assert!(run2.stderr.contains("graded 1 file in"), "{}", run2.stderr);

    let mut cmd = w.command(&["grade", "class"]);
    cmd.env("WORKSHOP_PYTHON", "/nonexistent/python3");
    let run = run(cmd);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("could not run Python 3 as /nonexistent/python3"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn a_reader_that_stops_early_ends_the_grading_quietly() {
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    for name in ["amy", "bob", "cy", "dee"] {
        w.write(&format!("class/{name}/errors.py"), &good);
    }
    let mut cmd = std::process::Command::new("bash");
    w.at_home(&mut cmd)
        .args([
            "-c",
            "\"$0\" grade class --jobs 1 | head -c 1 >/dev/null; echo \"status ${PIPESTATUS[0]}\"",
            BIN,
        ])
        .current_dir(w.root())
        .env("WORKSHOP_PYTHON", crate::sandbox::grading_python())
        .stdin(std::process::Stdio::null());
    let run = crate::common::run(cmd);
    assert_eq!(run.stdout.trim(), "status 0", "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

#[test]
fn an_empty_shard_of_a_small_class_is_not_an_error() {
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    w.write("class/amy/errors.py", &good);
    let run = graded(command(&w, &["grade", "class", "--partition", "1/3"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert!(summary(&run.stderr).starts_with("graded 0 files (shard 1/3 of 1)"), "{}", run.stderr);
}

// `check --format exercism`: the results object of the Exercism test-runner interface, v3.

const TOP: [&str; 4] = ["version", "status", "message", "tests"];
const PER_TEST: [&str; 6] = ["name", "test_code", "status", "message", "output", "task_id"];

/// The object has only the interface's fields, with their types, and the ones it requires.
fn assert_valid_results(results: &Value) {
    let top = results.as_object().expect("an object");
    for key in top.keys() {
        assert!(TOP.contains(&key.as_str()), "unknown top-level field {key}");
    }
    assert_eq!(results["version"], 3);
    let status = results["status"].as_str().expect("status is a string");
    assert!(["pass", "fail", "error"].contains(&status));
    if status == "error" {
        assert!(results["message"].as_str().is_some_and(|m| !m.is_empty()), "an error says why");
    } else {
        assert!(results.get("message").is_none_or(Value::is_null));
    }
    let tests = results["tests"].as_array().expect("tests is a list");
    assert!(!tests.is_empty());
    for test in tests {
        for key in test.as_object().expect("a test is an object").keys() {
            assert!(PER_TEST.contains(&key.as_str()), "unknown per-test field {key}");
        }
        assert!(test["name"].is_string());
        assert!(["pass", "fail", "error"].contains(&test["status"].as_str().unwrap()));
        for key in ["test_code", "message", "output"] {
            assert!(test.get(key).is_none_or(|v| v.is_string() || v.is_null()), "{key}");
        }
        if let Some(output) = test.get("output").and_then(Value::as_str) {
            assert!(output.chars().count() <= 500, "output over 500 characters");
        }
        assert!(test.get("task_id").is_none_or(Value::is_u64));
    }
    let all_pass = tests.iter().all(|t| t["status"] == "pass");
    assert_eq!(status == "pass", all_pass);
}

fn exercism(w: &Workshop, file: &str) -> (Run, Value) {
    let run = run(command(w, &["check", "--file", file, "--format", "exercism"]));
    let value = run.json();
    assert_valid_results(&value);
    (run, value)
}

#[test]
fn exercism_results_follow_the_interface_for_pass_fail_and_error() {
    let w = Workshop::lesson5();
    let (run, pass) = exercism(&w, "lessons/structured-errors/solution/errors.py");
    assert_eq!((run.code, pass["status"].as_str()), (0, Some("pass")));
    assert_eq!(pass["tests"].as_array().unwrap().len(), 14);
    assert_eq!(pass["tests"][0]["name"], "every failure sets isError to true");

    let file = w.learner("bug_wrong_category.py");
    let (run, fail) = exercism(&w, &file);
    assert_eq!((run.code, fail["status"].as_str()), (1, Some("fail")));
    let failed: Vec<&Value> =
        fail["tests"].as_array().unwrap().iter().filter(|t| t["status"] == "fail").collect();
    assert_eq!(failed.len(), 1);
    assert!(failed[0]["test_code"].as_str().unwrap().starts_with("fail('"), "{}", failed[0]);
    assert!(failed[0]["message"].as_str().unwrap().contains("errorCategory"), "{}", failed[0]);

    let file = w.learner("bad_syntax.py");
    let (run, error) = exercism(&w, &file);
    assert_eq!((run.code, error["status"].as_str()), (2, Some("error")));
    assert!(error["message"].as_str().unwrap().contains("SyntaxError"), "{error}");

    let file = w.learner("bad_prints_megabytes.py");
    let (_, flood) = exercism(&w, &file);
    let output = flood["tests"][0]["output"].as_str().unwrap();
    assert_eq!(output.chars().count(), 500);
    assert!(
        output.starts_with("tracing line 0000") && output.ends_with("500 characters of output]")
    );
}

#[test]
fn exercism_results_link_checks_to_the_lessons_tasks() {
    let w = Workshop::lesson5();
    let manifest = w.read("lessons/structured-errors/lesson.toml");
    let tasked = manifest
        .replace("id = \"fail-flags-failure\"\n", "id = \"fail-flags-failure\"\ntask = 1\n")
        .replace("id = \"retry-transient\"\n", "id = \"retry-transient\"\ntask = 2\n");
    assert_ne!(tasked, manifest);
    w.write("lessons/structured-errors/lesson.toml", &tasked);
    let (_, results) = exercism(&w, "lessons/structured-errors/solution/errors.py");
    let tasks: Vec<Option<u64>> = results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.get("task_id").and_then(Value::as_u64))
        .collect();
    assert_eq!(tasks[0], Some(1));
    assert_eq!(tasks[5], Some(2));
    assert_eq!(tasks.iter().flatten().count(), 2, "only the checks with a task link to one");
}

#[test]
fn exercism_results_without_python_are_still_an_error_object() {
    let w = Workshop::lesson5();
    let file = w.learner("good_match.py");
    let mut cmd = w.command(&["check", "--file", &file, "--format", "exercism"]);
    cmd.env("WORKSHOP_PYTHON", "/nonexistent/python3");
    let run = run(cmd);
    assert_eq!(run.code, 2);
    let results = run.json();
    assert_valid_results(&results);
    assert_eq!(results["status"], "error");
    assert!(
        run.stderr.contains("error: could not run Python 3 as /nonexistent/python3"),
        "{}",
        run.stderr
    );
}

#[test]
fn one_files_clean_up_never_kills_what_a_classmates_code_is_still_running() {
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    // A daemon by double fork: the shell exits at once, so the sleep is re-parented to the
    // workshop while this file is still being graded. The file passes only if its daemon is
    // still there on its later calls.
    let daemon = r#"
import os, subprocess, time
subprocess.run(["sh", "-c", "sleep 323 & echo $! > daemon.pid"], check=True)
_pid = int(open("daemon.pid").read())
_calls = [0]

def _alive():
    try:
        os.kill(_pid, 0)
        if not os.path.isdir("/proc/self"):
            return True  # no /proc (macOS): launchd, its parent there, reaps it at once
        state = open(f"/proc/{_pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
"#;
    // The learner's own fail, renamed, behind one that sleeps on its first call and checks the
    // daemon on every call.
    let slow = format!(
        "{}\n\ndef fail(category, message):\n    _calls[0] += 1\n    if _calls[0] == 1:\n        time.sleep(0.8)\n    if not _alive():\n        return {{\"daemon\": \"killed\"}}\n    return _own_fail(category, message)\n",
        good.replace("def fail(", "def _own_fail(")
    );
    assert!(slow.contains("def _own_fail("), "the fixture's fail is wrapped:\n{slow}");
    w.write("class/a_daemon/errors.py", &format!("{daemon}\n{slow}"));
    // A quick classmate, graded beside it: its worker ends (and cleans up) while the other sleeps.
    w.write("class/b_quick/errors.py", &good);
    let run = graded(command(&w, &["grade", "class", "--jobs", "2", "--timeout", "3"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("graded 2 files"), "{}", run.stderr);
    let reports = lines(&run.stdout);
    assert_eq!(reports[0]["file"], "class/a_daemon/errors.py");
    assert_eq!(
        reports[0]["status"], "pass",
        "the daemon lived until its own file was done: {}",
        reports[0]
    );
    assert_eq!(reports[1]["status"], "pass");
}

// ---- what each file is given, and what it leaves: tests that fail if any of it slips ----------

/// A class of one: a file that forgets `isError` (so the first check fails and shows what it
/// printed), with `snippet` run on the first call of fail.
fn graded_alone(
    w: &Workshop,
    snippet: &str,
    cmd: impl FnOnce(std::process::Command) -> std::process::Command,
) -> Value {
    let buggy = std::fs::read_to_string(fixture("bug_no_is_error.py")).unwrap();
    let body: String = snippet.lines().map(|l| format!("        {l}\n")).collect();
    let probe = format!(
        "{buggy}\n\nimport os, resource\n_graded_fail = fail\n_probed = []\n\n\ndef fail(category, message):\n    if not _probed:\n        _probed.append(1)\n{body}    return _graded_fail(category, message)\n"
    );
    w.write("class/probe/errors.py", &probe);
    let run = run(cmd(command(w, &["grade", "class"])));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("graded 1 file in"), "{}", run.stderr);
    lines(&run.stdout).remove(0)
}

#[test]
fn a_graded_file_sees_only_the_variables_python_needs() {
    let w = Workshop::lesson5();
    let report = graded_alone(&w, "print('\\n'.join(sorted(os.environ)))", |mut cmd| {
        for name in [
            "XDG_CONFIG_HOME",
            "XDG_RUNTIME_DIR",
            "XDG_DATA_HOME",
            "PYTHONPATH",
            "SSH_AUTH_SOCK",
            "USER",
        ] {
            cmd.env(name, "/not-for-submissions");
        }
        cmd.env("GITHUB_TOKEN", TOKEN).env("ANTHROPIC_API_KEY", API_KEY);
        cmd
    });
    let printed = report["checks"][0]["output"].as_str().unwrap();
    // PWD: the sandbox's own folder, as bubblewrap's --chdir sets it.
    let allowed = ["PATH", "LANG", "LANGUAGE", "TZ", "HOME", "TMPDIR", "PWD", "WORKSHOP_BRIDGE"];
    for name in printed.lines() {
        assert!(
            allowed.contains(&name) || name.starts_with("LC_"),
            "{name} reached a graded file:\n{printed}"
        );
    }
    assert!(printed.lines().any(|n| n == "PATH"), "{printed}");
}

/// How many processes the real user of this test runs now (`RLIMIT_NPROC` counts them all):
/// from /proc on Linux, from `ps` elsewhere.
fn user_processes() -> u64 {
    // SAFETY: getuid(2) cannot fail.
    let uid = unsafe { libc::getuid() }.to_string();
    if !cfg!(target_os = "linux") {
        let ps = std::process::Command::new("ps").args(["-A", "-o", "ruid="]).output().unwrap();
        let listed = String::from_utf8_lossy(&ps.stdout).into_owned();
        return listed.lines().filter(|l| l.trim() == uid).count() as u64;
    }
    let mut count = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let status = std::fs::read_to_string(entry.path().join("status")).unwrap_or_default();
        let real = status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|l| l.split_whitespace().next());
        count += u64::from(real == Some(uid.as_str()));
    }
    count
}

#[test]
fn a_graded_file_may_start_only_a_few_processes_more_than_the_user_runs() {
    let w = Workshop::lesson5();
    // The soft limit as high as the hard one lets it: what a file gets is the workshop's doing.
    let before = user_processes();
    let report = graded_alone(&w, "print(resource.getrlimit(resource.RLIMIT_NPROC)[0])", |_| {
        let mut cmd = std::process::Command::new("bash");
        w.at_home(&mut cmd)
            .args([
                "-c",
                "ulimit -S -u \"$(ulimit -H -u)\" && exec \"$0\" \"$@\"",
                BIN,
                "grade",
                "class",
            ])
            .current_dir(w.root())
            .env("WORKSHOP_PYTHON", crate::sandbox::grading_python())
            .stdin(std::process::Stdio::null());
        cmd
    });
    let limit: i64 = report["checks"][0]["output"].as_str().unwrap().trim().parse().unwrap();
    let after = user_processes();
    // What the user ran then, plus the workshop's margin (64), plus what started meanwhile.
    let most = before.max(after) as i64 + 64 + 64;
    assert!(limit > 0 && limit <= most, "RLIMIT_NPROC is {limit}, not at most {most}");
}

#[test]
fn grading_leaves_no_folder_behind_in_the_temporary_folder() {
    let w = Workshop::lesson5();
    let tmp = grade_temp();
    graded_alone(&w, "open('left-here.txt', 'w').write('x')", |mut cmd| {
        cmd.env("TMPDIR", tmp.path());
        cmd
    });
    let left: Vec<_> =
        std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(left.is_empty(), "left behind in TMPDIR: {left:?}");
}

#[test]
fn csv_keeps_a_carriage_return_in_a_name_from_breaking_its_row() {
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    w.write("class/back\rslash/errors.py", &good);
    let run = graded(command(&w, &["grade", "class", "--format", "csv"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let rows: Vec<&str> = run.stdout.split("\r\n").collect();
    assert!(rows[1].starts_with("class/back\\rslash/errors.py,"), "{:?}", rows[1]);
    assert_eq!(
        run.stdout.matches('\r').count(),
        run.stdout.matches("\r\n").count(),
        "no lone carriage return: {:?}",
        run.stdout
    );
}

#[test]
fn a_reader_that_stops_early_stops_the_grading_too() {
    // Eighty files of a quarter second each, one at a time: twenty seconds to grade them all.
    // The reader takes one byte and goes; the grading must stop within a few files, so the test
    // gives up waiting at half the whole (a bound on a hang, not a speed figure).
    let w = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    for n in 0..80 {
        w.write(
            &format!("class/s{n:02}/errors.py"),
            &format!("import time\ntime.sleep(0.25)\n{good}"),
        );
    }
    let mut cmd = std::process::Command::new("bash");
    cmd.args([
        "-c",
        "\"$0\" grade class --jobs 1 --timeout 5 | head -c 1 >/dev/null; echo \"status ${PIPESTATUS[0]}\"",
        BIN,
    ])
    .current_dir(w.root())
    .env("WORKSHOP_PYTHON", crate::sandbox::grading_python())
    .stdin(std::process::Stdio::null());
    w.at_home(&mut cmd);
    let run = run_within(cmd, 10, "the grading went on after its reader left");
    assert_eq!(run.stdout.trim(), "status 0", "{}", run.stderr);
}

/// How many cores this process may run on.
#[cfg(target_os = "linux")]
fn usable_cores() -> i32 {
    // SAFETY: sched_getaffinity(2) writes at most the size it is given into the set.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set);
        libc::CPU_COUNT(&set)
    }
}

/// The lesson's world, which every grading thread asks, is moved onto the core of the thread
/// that asks it and waits for its answer: the world's refund runs on each file's core in turn.
/// Four copies of the solution, two threads (each keeping to a core of its own): a flaky payment
/// is retried (a second refund, asked once the file's answer says so), and the world, logging its
/// cores at each refund, ran on one thread's core alone and on the other's (where this machine
/// lets the tests use two). Linux only: macOS has no CPU affinity, so no core is chosen there.
#[cfg(target_os = "linux")]
#[test]
fn the_world_runs_on_the_core_of_the_grading_thread_that_asks_it() {
    let w = Workshop::lesson5();
    let log = w.path("world-cores.txt");
    let world = w.read("worlds/lumen/world.py");
    let refund = "    def process_refund(self, input):\n";
    assert!(world.contains(refund), "the world's refund moved");
    let logged = format!(
        "{refund}        with open({log:?}, \"a\") as out:\n            out.write(repr(sorted(__import__(\"os\").sched_getaffinity(0))) + \"\\n\")\n",
        log = log.to_str().unwrap()
    );
    w.write("worlds/lumen/world.py", &world.replacen(refund, &logged, 1));
    // Each lingers a moment as it loads, so one thread cannot grade them all before the other
    // has begun.
    let solution = w.read("lessons/structured-errors/solution/errors.py");
    for name in ["a", "b", "c", "d"] {
        w.write(
            &format!("class/{name}/errors.py"),
            &format!("import time\ntime.sleep(0.1)\n{solution}"),
        );
    }
    let run = graded(command(&w, &["grade", "class", "--jobs", "2"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(lines(&run.stdout).iter().all(|r| r["status"] == "pass"), "{}", run.stdout);
    let seen = w.read("world-cores.txt");
    let alone: std::collections::BTreeSet<Vec<u32>> = seen
        .lines()
        .map(|l| serde_json::from_str::<Vec<u32>>(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .filter(|cores| cores.len() == 1)
        .collect();
    if usable_cores() >= 2 {
        assert_eq!(
            alone.len(),
            2,
            "the world ran on one thread's core alone, then the other's:\n{seen}"
        );
    }
}

/// Each grading thread keeps to a core no other keeps to, and so does every Python it starts: a
/// file's calls are then a switch on that core, not a wake-up of another. Four files, two
/// threads: each file's process may run on one core only, and the two threads' cores differ
/// (where this machine lets the tests use two). Linux only: macOS has no CPU affinity.
#[cfg(target_os = "linux")]
#[test]
fn each_grading_thread_and_the_files_it_grades_keep_to_a_core_of_their_own() {
    let w = Workshop::lesson5();
    let buggy = std::fs::read_to_string(fixture("bug_no_is_error.py")).unwrap();
    // On its first call each file prints the cores it may run on, then lingers a moment so the
    // two threads grade side by side.
    let probe = format!(
        "{buggy}\n\nimport os, time\n_graded_fail = fail\n_probed = []\n\n\ndef fail(category, message):\n    if not _probed:\n        _probed.append(1)\n        print(sorted(os.sched_getaffinity(0)))\n        time.sleep(0.3)\n    return _graded_fail(category, message)\n"
    );
    for name in ["a", "b", "c", "d"] {
        w.write(&format!("class/{name}/errors.py"), &probe);
    }
    let run = graded(command(&w, &["grade", "class", "--jobs", "2"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut cores = std::collections::BTreeSet::new();
    for report in lines(&run.stdout) {
        let printed = report["checks"][0]["output"].as_str().unwrap_or_default().trim().to_string();
        let mine: Vec<u32> = serde_json::from_str(&printed)
            .unwrap_or_else(|e| panic!("{e}: {printed:?} in {report}"));
        assert_eq!(mine.len(), 1, "{} may run on {mine:?}", report["file"]);
        cores.insert(mine[0]);
    }
    if usable_cores() >= 2 {
        assert_eq!(cores.len(), 2, "two threads, two cores: {cores:?}");
    }
}
