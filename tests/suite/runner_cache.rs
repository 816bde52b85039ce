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
        let first = w.run(&["check", "--file", "starter/structured-errors/errors.py", "--format", "json"]);
        assert_eq!(first.code, 1, "{}", first.stderr);
        let attack = w.run(&["check", "--file", "attack.py", "--format", "json"]);
        if !kill {
            assert_eq!(attack.code, 1, "{}{}", attack.stderr, attack.stdout);
        }
        // The workshop's own start-up may import the runner again (a spare process): the
        // mark must not appear, and the starter must fail as it always does.
        let _ = std::fs::remove_file(&mark);
        let next = w.run(&["check", "--file", "starter/structured-errors/errors.py", "--format", "json"]);
        assert_eq!(next.code, 1, "flags {flags}, kill {kill}: {}", next.stderr);
        assert!(!mark.exists(), "flags {flags}, kill {kill}: the forged runner ran in the next check");
        assert_eq!(next.json()["passed"], first.json()["passed"], "flags {flags}, kill {kill}");
    }
}
