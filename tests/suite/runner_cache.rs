//! One `check` cannot poison the next through the runner's cached bytecode: a `.pyc` that Python
//! would not write for the runner's source is removed before the runner is imported, and one
//! that changed while learner code ran is removed when the command ends.

use crate::common::*;

/// Learner code that writes bytecode for the runner's module: the runner's own source with a
/// first line that leaves a mark, as an unchecked hash-based `.pyc` (flags 1) or as a
/// timestamp-based one forged to match the source (flags 0); `kill` then ends the workshop
/// outright, so no clean-up of its runs.
fn poisoner(mark: &std::path::Path, flags: u32, kill: bool) -> String {
    format!(
        r#"import sys, os, marshal, importlib.util
_mod = next(m for n, m in sys.modules.items() if n.startswith('workshop_runner_'))
_src = open(_mod.__file__, 'rb').read()
_evil = compile(b"open(%r, 'w').write('ran')\n" % {mark:?} + _src, _mod.__file__, 'exec')
_st = os.stat(_mod.__file__)
if {flags} == 1:
    _head = (1).to_bytes(4, 'little') + importlib.util.source_hash(_src)
else:
    _head = (0).to_bytes(4, 'little') + int(_st.st_mtime).to_bytes(4, 'little') + (_st.st_size & 0xffffffff).to_bytes(4, 'little')
_pyc = importlib.util.cache_from_source(_mod.__file__)
os.makedirs(os.path.dirname(_pyc), exist_ok=True)
with open(_pyc, 'wb') as _f:
    _f.write(importlib.util.MAGIC_NUMBER + _head + marshal.dumps(_evil))
if {kill}:
    import signal
    os.kill(os.getppid(), signal.SIGKILL)
"#,
        mark = mark.to_str().unwrap(),
        kill = if kill { "True" } else { "False" },
    )
}

#[test]
fn bytecode_written_by_learner_code_never_runs_as_the_next_commands_runner() {
    for (flags, kill) in [(1, true), (1, false), (0, false)] {
        let w = Workshop::lesson5();
        let mark = w.home().join("poisoned");
        let starter = w.read("starter/structured-errors/errors.py");
        w.write("attack.py", &format!("{}\n{starter}", poisoner(&mark, flags, kill)));
        // Once so the cache exists, then the attack.
        let first =
            w.run(&["check", "--file", "starter/structured-errors/errors.py", "--format", "json"]);
        assert_eq!(first.code, 1, "{}", first.stderr);
        let attack = w.run(&["check", "--file", "attack.py", "--format", "json"]);
        if !kill {
            assert_eq!(attack.code, 1, "{}{}", attack.stderr, attack.stdout);
        }
        // The workshop's own start-up may import the runner again (a spare process): the
        // mark must not appear, and the starter must fail as it always does.
        let _ = std::fs::remove_file(&mark);
        let next =
            w.run(&["check", "--file", "starter/structured-errors/errors.py", "--format", "json"]);
        assert_eq!(next.code, 1, "flags {flags}, kill {kill}: {}", next.stderr);
        assert!(
            !mark.exists(),
            "flags {flags}, kill {kill}: the forged runner ran in the next check"
        );
        assert_eq!(next.json()["passed"], first.json()["passed"], "flags {flags}, kill {kill}");
    }
}

/// A file whose `fail` prints the message it was given: the sample the check drew.
const ECHO: &str = "from kit.api import Json\n\n\ndef fail(category: str, message: str) -> Json:\n    print('drawn:', message)\n    return {'isError': True}\n\n\ndef should_retry(error: Json) -> bool:\n    return False\n";

/// The messages `fail` was given in one run, as the report's outputs show them.
fn drawn(report: &serde_json::Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            c["output"].as_str().unwrap_or("").lines().map(String::from).collect::<Vec<_>>()
        })
        .filter(|l| l.starts_with("drawn:"))
        .collect()
}

#[test]
fn a_file_cannot_choose_its_samples_grade_draws_with_a_new_key_each_run_and_says_it() {
    let w = Workshop::lesson5();
    w.write("class/echo/errors.py", ECHO);
    let grade = |seed: Option<&str>| {
        let mut cmd = crate::grade::command(&w, &["grade", "class"]);
        match seed {
            Some(seed) => cmd.env("WORKSHOP_SEED", seed),
            None => cmd.env_remove("WORKSHOP_SEED"),
        };
        let run = crate::grade::graded(cmd);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let report = crate::grade::lines(&run.stdout).remove(0);
        assert!(!drawn(&report).is_empty(), "{report}");
        (drawn(&report), run.stderr.text().to_string())
    };
    // Three runs with no key given: each draws anew (all three alike by chance: 1 in 10^8).
    let runs: Vec<_> = (0..3).map(|_| grade(None)).collect();
    assert!(
        runs.windows(2).any(|w| w[0].0 != w[1].0),
        "the same samples three times: {:?}",
        runs[0].0
    );
    // The key a run names repeats it exactly.
    let (samples, summary) = &runs[0];
    let key = summary.split("WORKSHOP_SEED=").nth(1).unwrap().split_whitespace().next().unwrap();
    assert_eq!(&grade(Some(key)).0, samples, "{summary}");
    // check keeps one key per user, so the learner sees the same sentences each time.
    let check = |w: &Workshop| {
        let mut cmd = w.command(&["check", "--file", "class/echo/errors.py", "--format", "json"]);
        cmd.env_remove("WORKSHOP_SEED");
        drawn(&run(cmd).json())
    };
    assert_eq!(check(&w), check(&w));
    let bad = {
        let mut cmd = w.command(&["check", "--file", "class/echo/errors.py"]);
        cmd.env("WORKSHOP_SEED", "not-hex");
        run(cmd)
    };
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("WORKSHOP_SEED=not-hex is not a sample key"), "{}", bad.stderr);
}

/// Another version of the workshop may share the cache with an entry layout of its own (a
/// learner trying two checkouts, or a benchmark running two builds side by side): each keeps its
/// compiled code in a folder named after its layout, so neither finds the other's entries
/// unreadable and rewrites them at every check, and an entry of ours is written once.
#[test]
fn compiled_code_of_another_layout_is_left_alone_and_ours_is_written_once() {
    let w = Workshop::lesson5();
    let check = |w: &Workshop| {
        let run = w.run(&["check", "--file", "lessons/structured-errors/solution/errors.py"]);
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    };
    check(&w);
    let code = w.home().join(".cache/workshop/code");
    let folders: Vec<std::path::PathBuf> =
        std::fs::read_dir(&code).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(folders.len(), 1, "one folder of compiled code: {folders:?}");
    let ours = &folders[0];
    let tag = std::process::Command::new(python())
        .args(["-I", "-S", "-c", "import sys; print(sys.implementation.cache_tag)"])
        .output()
        .unwrap();
    let tag = String::from_utf8(tag.stdout).unwrap().trim().to_string();
    let name = ours.file_name().unwrap().to_str().unwrap();
    let layout = name
        .strip_prefix(&format!("{tag}-"))
        .unwrap_or_else(|| panic!("{name} names no layout after {tag}"));
    assert!(layout.parse::<u32>().is_ok(), "{name}");
    let entries = |dir: &std::path::Path| -> Vec<(String, Vec<u8>, std::time::SystemTime)> {
        let mut found: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let path = e.unwrap().path();
                let modified = path.metadata().unwrap().modified().unwrap();
                (
                    path.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&path).unwrap(),
                    modified,
                )
            })
            .collect();
        found.sort();
        found
    };
    let written = entries(ours);
    assert!(!written.is_empty(), "the checked file's code is kept");
    // The same entries as another layout would have them, where that layout keeps them.
    let theirs = code.join(&tag);
    std::fs::create_dir(&theirs).unwrap();
    for (file, _, _) in &written {
        std::fs::write(theirs.join(file), b"an entry of another layout").unwrap();
    }
    let planted = entries(&theirs);
    std::thread::sleep(std::time::Duration::from_millis(20));
    check(&w);
    assert_eq!(entries(&theirs), planted, "another layout's entries were rewritten");
    assert_eq!(entries(ours), written, "our entries were written again");
}

/// Rewrites, in place, every compiled-code entry of the cache at `cache` (the learner's file's,
/// the world file's) and every `.pyc` of the runner: the same path, source and header, with code
/// that first leaves a mark at `mark` and then runs the real code. What another user who can
/// write to the folder would plant.
fn plant(cache: &std::path::Path, mark: &std::path::Path) {
    let script = r#"import glob, marshal, sys
cache, mark = sys.argv[1], sys.argv[2]
evil = lambda source, path: compile(b"open(%r, 'w').write('ran')\n" % mark + source, path, 'exec')
entries = glob.glob(cache + '/workshop/code/*/*.code')
for entry in entries:
    path, source, code, wants_site = marshal.loads(open(entry, 'rb').read())
    open(entry, 'wb').write(marshal.dumps((path, source, evil(source, path), wants_site)))
pycs = glob.glob(cache + '/workshop/__pycache__/workshop_runner_*.pyc')
for pyc in pycs:
    head = open(pyc, 'rb').read()[:16]
    module = pyc.split('/')[-1].split('.')[0]
    source = cache + '/workshop/' + module + '.py'
    open(pyc, 'wb').write(head + marshal.dumps(evil(open(source, 'rb').read(), source)))
print(len(entries), len(pycs))
"#;
    let mut planter = std::process::Command::new(python());
    let out = planter.args(["-I", "-S", "-c", script]).arg(cache).arg(mark).output().unwrap();
    let counts = String::from_utf8_lossy(&out.stdout).to_string();
    let counts: Vec<usize> = counts.split_whitespace().filter_map(|n| n.parse().ok()).collect();
    assert!(
        counts.len() == 2 && counts[0] >= 2 && counts[1] >= 1,
        "entries and .pyc planted: {out:?}"
    );
}

/// Planted code in a cache folder another user owns or can write (`XDG_CACHE_HOME` or `HOME`
/// kept by `sudo -E`) never runs: the workshop runs without that cache and says why.
#[test]
fn a_cache_folder_another_user_owns_or_can_write_is_not_used() {
    use std::os::unix::fs::PermissionsExt;
    /// What makes the cache folder another user's to write.
    type Giving = fn(&std::path::Path) -> std::io::Result<()>;
    let setups: [(&str, Giving); 2] = [
        ("owned by nobody", |dir| {
            for entry in walk(dir) {
                std::os::unix::fs::lchown(&entry, Some(65534), Some(65534))?;
            }
            Ok(())
        }),
        ("writable by all", |dir| {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777))
        }),
    ];
    for (setup, make) in setups {
        let w = Workshop::lesson5();
        let starter =
            ["check", "--file", "starter/structured-errors/errors.py", "--format", "json"];
        let first = w.run(&starter);
        assert_eq!(first.code, 1, "{}", first.stderr);
        let cache = w.home().join(".cache");
        let mark = w.path("planted-code-ran");
        plant(&cache, &mark);
        if let Err(e) = make(&cache.join("workshop")) {
            // Giving a folder away takes root; the other setup runs as anyone.
            eprintln!("SKIPPED the cache {setup}: {e}");
            continue;
        }
        let next = w.run(&starter);
        assert!(!mark.exists(), "{setup}: the planted code ran");
        assert_eq!(next.code, 1, "{setup}: {}", next.stderr);
        assert_eq!(next.json()["passed"], first.json()["passed"], "{setup}");
        assert!(next.stderr.contains("not using the cache folder"), "{setup}: {}", next.stderr);
    }
}

/// Every file and folder under `dir`, `dir` itself first.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = vec![dir.to_path_buf()];
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                found.extend(walk(&entry.path()));
            } else {
                found.push(entry.path());
            }
        }
    }
    found
}

/// A runner `.pyc` whose header is what Python writes for the runner's source (its time and
/// size) but whose code is another's is never imported: what runs is vetted, not a header.
#[test]
fn a_runner_pyc_with_the_right_header_and_other_code_never_runs() {
    let w = Workshop::lesson5();
    let starter = ["check", "--file", "starter/structured-errors/errors.py", "--format", "json"];
    let first = w.run(&starter);
    assert_eq!(first.code, 1, "{}", first.stderr);
    let mark = w.path("planted-code-ran");
    plant(&w.home().join(".cache"), &mark);
    // The compiled-code entries are the same user's to write (see the trust of the cache): here
    // only the runner's .pyc is in question, so the entries go.
    std::fs::remove_dir_all(w.home().join(".cache/workshop/code")).unwrap();
    let next = w.run(&starter);
    assert!(!mark.exists(), "the planted runner ran");
    assert_eq!(next.code, 1, "{}", next.stderr);
    assert_eq!(next.json()["passed"], first.json()["passed"]);
}
