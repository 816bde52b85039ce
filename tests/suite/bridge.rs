//! The Python bridge's start-up: the runner is imported from a cached copy when there is a cache
//! folder to write (so Python keeps its bytecode), and sent as source when there is not.

use crate::common::*;

fn grade_with_cache(w: &Workshop, cache: &std::path::Path) -> Run {
    let file = w.learner("good_helpers.py");
    let mut cmd = w.command(&["check", "--file", &file, "--format", "json"]);
    cmd.env("XDG_CACHE_HOME", cache);
    run(cmd)
}

#[test]
fn bridge_keeps_a_copy_of_the_runner_in_the_cache_folder() {
    let w = Workshop::lesson5();
    let cache = tempdir();
    for _ in 0..2 {
        let run = grade_with_cache(&w, cache.path());
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    }
    let names: Vec<String> = std::fs::read_dir(cache.path().join("workshop"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let copies: Vec<&String> =
        names.iter().filter(|n| n.starts_with("workshop_runner_") && n.ends_with(".py")).collect();
    assert_eq!(copies.len(), 1, "{names:?}");
    assert!(!names.iter().any(|n| n.contains(".tmp")), "{names:?}");
}

#[test]
fn bridge_sends_the_runner_as_source_without_a_writable_cache() {
    let w = Workshop::lesson5();
    let run = grade_with_cache(&w, std::path::Path::new("/proc/no-cache-here"));
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.json()["passed"], 14);
}

#[test]
fn bridge_replaces_a_damaged_copy_of_the_runner() {
    let w = Workshop::lesson5();
    let cache = tempdir();
    assert_eq!(grade_with_cache(&w, cache.path()).code, 0);
    let dir = cache.path().join("workshop");
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        if entry.file_name().to_string_lossy().ends_with(".py") {
            std::fs::write(entry.path(), "raise SystemExit('damaged')\n").unwrap();
        }
    }
    let run = grade_with_cache(&w, cache.path());
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn bridge_grades_an_edit_of_the_same_size_made_right_after_a_check() {
    // The compiled learner code is cached; an edit must never be graded from the old code, even
    // one that keeps the file's size and lands within the same second.
    let w = Workshop::lesson5();
    let cache = tempdir();
    let file = w.learner("good_dict_literal.py");
    let grade = || {
        let mut cmd = w.command(&["check", "--file", &file, "--format", "json"]);
        cmd.env("XDG_CACHE_HOME", cache.path());
        run(cmd)
    };
    assert_eq!(grade().code, 0);
    let text = w.read(&file);
    let edited = text.replace("category == \"transient\"", "category != \"transient\"");
    assert_eq!(edited.len(), text.len());
    w.write(&file, &edited);
    let run = grade();
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.json()["passed"], 9);
    w.write(&file, &text);
    assert_eq!(grade().code, 0);
}

/// The compiled runner in the cache's `__pycache__` (not the workshop's kept copy of it).
fn runner_bytecode(cache: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(cache.join("workshop/__pycache__"))
        .map(|dir| {
            dir.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    let name = p.file_name().unwrap().to_string_lossy();
                    name.starts_with("workshop_runner_") && name.ends_with(".pyc")
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn bridge_rewrites_a_corrupt_compiled_runner_instead_of_paying_for_it_on_every_run() {
    let w = Workshop::lesson5();
    let cache = tempdir();
    assert_eq!(grade_with_cache(&w, cache.path()).code, 0);
    let compiled = runner_bytecode(cache.path());
    assert_eq!(compiled.len(), 1, "{compiled:?}");
    // A valid header (so Python trusts it) over a body that is not bytecode.
    let mut bytes = std::fs::read(&compiled[0]).unwrap();
    bytes.truncate(16);
    bytes.extend_from_slice(&[0xff; 64]);
    std::fs::write(&compiled[0], &bytes).unwrap();
    let run = grade_with_cache(&w, cache.path());
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let compiled = runner_bytecode(cache.path());
    assert_eq!(compiled.len(), 1, "{compiled:?}");
    assert_ne!(std::fs::read(&compiled[0]).unwrap(), bytes, "the compiled runner was rewritten");
}

/// A virtual environment of the tests' interpreter with `module` (Python source) installed in its
/// site-packages as `name.py`: where only `site` looks.
fn venv_with(w: &Workshop, name: &str, module: &str) -> std::path::PathBuf {
    let venv = w.home().join("venv");
    let made = std::process::Command::new(python())
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success(), "python -m venv");
    let lib = std::fs::read_dir(venv.join("lib"))
        .unwrap()
        .flatten()
        .next()
        .expect("lib/pythonX.Y")
        .path();
    std::fs::write(lib.join("site-packages").join(format!("{name}.py")), module).unwrap();
    venv.join("bin/python")
}

#[test]
fn bridge_starts_without_site_yet_finds_what_only_site_provides() {
    let w = Workshop::lesson5();
    let venv = venv_with(
        &w,
        "lumen_rules",
        "def flag(error):\n    return error.get('isRetryable') is True\n",
    );
    let solution =
        std::fs::read_to_string(repo().join("lessons/structured-errors/solution/errors.py"))
            .unwrap();
    let check = |file: &str| {
        let mut cmd = w.command(&["check", "--file", file, "--format", "json"]);
        cmd.env("WORKSHOP_PYTHON", &venv);
        run(cmd)
    };
    // A file of the standard library alone: no `site` at all.
    let plain = "learners/plain.py";
    let probe = "import sys as _sys\nprint('site' in _sys.modules, _sys.flags.no_site)\n";
    w.write(plain, &format!("{probe}{solution}"));
    let run = check(plain);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json()["output"], "False 1\n", "{}", run.stdout);
    // A package from the environment's site-packages: found, as a normal start finds it.
    let with_package = "learners/with_package.py";
    let uses = solution
        .replace("def should_retry", "import lumen_rules\n\n\ndef _unused_should_retry")
        + "\n\ndef should_retry(error):\n    return lumen_rules.flag(error)\n";
    w.write(with_package, &uses);
    let run = check(with_package);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json()["passed"], 14, "{}", run.stdout);
    // `exit`, which `site` defines, ends a call as it does in a normal start.
    let exits = "learners/exits.py";
    w.write(
        exits,
        &solution.replace(
            "def fail(category: str, message: str) -> Json:",
            "def fail(category: str, message: str) -> Json:\n    exit(3)",
        ),
    );
    let run = check(exits);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = run.json();
    let first = &report["checks"][0];
    assert!(first["message"].as_str().unwrap().starts_with("called sys.exit(3)"), "{first}");
}

#[test]
fn a_file_naming_a_builtin_of_site_gets_it_the_first_time_and_from_the_cache() {
    let w = Workshop::lesson5();
    let solution =
        std::fs::read_to_string(repo().join("lessons/structured-errors/solution/errors.py"))
            .unwrap();
    // `license` comes with `site`, which the runner completes only for a file that names it;
    // whether it does is kept with the file's cached code, so the second check must agree.
    w.write("learners/names_license.py", &format!("print(type(license).__name__)\n{solution}"));
    w.write("learners/plain.py", &format!("print('license' in dir(__builtins__))\n{solution}"));
    for round in ["first", "cached"] {
        let named =
            run(w.command(&["check", "--file", "learners/names_license.py", "--format", "json"]));
        assert_eq!(named.code, 0, "{round}: {}", named.stdout);
        assert_eq!(named.json()["output"], "_Printer\n", "{round}: {}", named.stdout);
        let plain = run(w.command(&["check", "--file", "learners/plain.py", "--format", "json"]));
        assert_eq!(plain.json()["output"], "False\n", "{round}: {}", plain.stdout);
    }
}
