//! Worlds are Python files (`worlds/<name>/world.py`) run in a process of their own. A world
//! that raises, hangs or answers what it must not is its author's error, naming the world's file
//! and line; never a failure of the learner's code.

use crate::common::*;

const WORLD: &str = "worlds/lumen/world.py";

/// Lesson 5 with its world's refund tool changed: `body` replaces the tool's first line.
fn broken_refund(body: &str) -> Workshop {
    let ws = Workshop::lesson5();
    let text = ws.read(WORLD);
    let head = "    def process_refund(self, input):\n";
    assert!(text.contains(head), "the refund tool moved");
    ws.write(WORLD, &text.replacen(head, &format!("{head}{body}\n"), 1));
    ws.write(
        "work/structured-errors/errors.py",
        &ws.read("lessons/structured-errors/solution/errors.py"),
    );
    ws
}

/// The line of `WORLD` in this root that holds `text`.
fn line_of(ws: &Workshop, text: &str) -> usize {
    ws.read(WORLD).lines().position(|l| l.contains(text)).map(|i| i + 1).expect("the line is there")
}

fn check(ws: &Workshop) -> Run {
    ws.run(&["check", "structured-errors", "--timeout", "30"])
}

#[test]
fn a_world_that_raises_is_an_error_in_its_own_file_and_line_not_a_failed_check() {
    let ws = broken_refund("        raise KeyError('ledger')");
    let run = check(&ws);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    let line = line_of(&ws, "raise KeyError('ledger')");
    let want = format!("error: {WORLD}: line {line}: while running the tool process_refund");
    assert!(run.stderr.contains(&want), "{want}\n{}", run.stderr);
    assert!(run.stderr.contains("the world failed: KeyError: 'ledger'"), "{}", run.stderr);
    assert!(run.stderr.contains("not in the learner's code: fix the world file"), "{}", run.stderr);
    // No grade was given: nothing says the learner's checks failed.
    assert!(!run.stdout.contains("passed"), "{}", run.stdout);
}

#[test]
fn a_world_that_answers_garbage_names_its_tool_and_line() {
    let ws = broken_refund("        return {'paid': {1, 2}}");
    let run = check(&ws);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    let line = line_of(&ws, "def process_refund");
    assert!(
        run.stderr
            .contains(&format!("{WORLD}: line {line}: while running the tool process_refund")),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("which is not plain JSON"), "{}", run.stderr);
}

#[test]
fn a_world_that_hangs_is_stopped_at_its_deadline_and_named() {
    // It sleeps rather than spins: the deadline is the world's own, five seconds of a busy core.
    let ws = broken_refund("        while True: __import__('time').sleep(0.05)");
    let run = check(&ws);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "error: {WORLD}: while running a tool call, the world did not return within 5 s: an infinite loop? This"
        )),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("fix the world file"), "{}", run.stderr);
}

#[test]
fn a_world_that_does_not_load_is_named_with_its_line_by_every_command() {
    let ws = Workshop::lesson5();
    let text = ws.read(WORLD);
    ws.write(WORLD, &text.replacen("class Lumen(World):", "class Lumen(World)\n", 1));
    assert_eq!(ws.run(&["start", "structured-errors"]).code, 0, "start needs no world");
    let line = line_of(&ws, "class Lumen(World)");
    for args in [&["check"][..], &["watch", "--ticket", "old-order", "--no-anim"], &["doctor"]] {
        let run = ws.run(args);
        assert_eq!(run.code, 2, "{args:?}: {}\n{}", run.stdout, run.stderr);
        let want = format!("{WORLD}: line {line}: while loading, the world failed: SyntaxError");
        assert!(
            run.stderr.contains(&want) || run.stdout.contains(&want),
            "{args:?}: {want}\n{}{}",
            run.stdout,
            run.stderr
        );
    }
}

#[test]
fn a_lessons_world_data_is_checked_by_its_world_with_the_manifests_line() {
    let ws = Workshop::lesson5();
    let path = "lessons/structured-errors/lesson.toml";
    let text = ws.read(path);
    ws.write(path, &text.replacen("customer = \"ada\"\n", "customer = \"zed\"\n", 1));
    assert_eq!(ws.run(&["start", "structured-errors"]).code, 0, "start needs no world");
    let run = ws.run(&["check"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains(&format!("{path}: line ")), "{}", run.stderr);
    assert!(
        run.stderr.contains("names an unknown customer 'zed'")
            || run.stderr.contains("belongs to an unknown customer 'zed'"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_lesson_whose_world_is_not_there_names_the_worlds_that_are() {
    let ws = Workshop::lesson5();
    // Only lumen, renamed: the list must not depend on which other worlds the checkout ships.
    for entry in std::fs::read_dir(ws.path("worlds")).unwrap().flatten() {
        if entry.file_name() != "lumen" {
            std::fs::remove_dir_all(entry.path()).unwrap();
        }
    }
    std::fs::rename(ws.path("worlds/lumen"), ws.path("worlds/shop")).unwrap();
    // Said at once, with the manifest's line: no world process is needed to know it.
    let run = ws.run(&["check"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("setting 'lumen' is not a world here: there is no worlds/lumen/world.py"),
        "{}",
        run.stderr
    );
    // Every world of the root by name, whatever others the checkout gains.
    let listed = run.stderr.split("(worlds here: ").nth(1).and_then(|rest| rest.split(')').next());
    let named: Vec<&str> = listed.map(|list| list.split(", ").collect()).unwrap_or_default();
    assert!(named.contains(&"shop") && !named.contains(&"lumen"), "{}", run.stderr);
}

/// The world file's code is kept in the workshop's cache, never beside the author's file, and
/// an edit to the file is what the next command runs: never the code kept for its old bytes.
#[test]
fn an_edited_world_runs_as_it_now_reads_not_as_its_code_was_kept() {
    let ws = Workshop::lesson5();
    ws.write(
        "work/structured-errors/errors.py",
        &ws.read("lessons/structured-errors/solution/errors.py"),
    );
    let first = check(&ws);
    assert_eq!(first.code, 0, "{}\n{}", first.stdout, first.stderr);
    let kept = |ws: &Workshop| -> usize {
        let folders = std::fs::read_dir(ws.home().join(".cache/workshop/code"))
            .expect("the code folder is made");
        folders
            .flatten()
            .flat_map(|f| std::fs::read_dir(f.path()).into_iter().flatten().flatten())
            .count()
    };
    // The world host's, the world file's and the learner's, one entry each; nothing beside the
    // world file.
    assert_eq!(kept(&ws), 3);
    assert!(!ws.path("worlds/lumen/__pycache__").exists());
    let text = ws.read(WORLD);
    let head = "    def process_refund(self, input):\n";
    ws.write(WORLD, &text.replacen(head, &format!("{head}        raise KeyError('edited')\n"), 1));
    let edited = check(&ws);
    assert_eq!(edited.code, 2, "{}\n{}", edited.stdout, edited.stderr);
    assert!(edited.stderr.contains("the world failed: KeyError: 'edited'"), "{}", edited.stderr);
    // Back as it was: the entry now holds the edited bytes, so the file is compiled afresh.
    ws.write(WORLD, &text);
    let again = check(&ws);
    assert_eq!(again.code, 0, "{}\n{}", again.stdout, again.stderr);
    assert_eq!(kept(&ws), 3, "one entry for the world's path, whatever its bytes were");
}

#[test]
fn a_second_world_added_as_files_loads_without_a_rebuild() {
    // A copy of the Lumen world under another name, and a copy of lesson 5 set in it.
    let ws = Workshop::lesson5();
    copy_tree(&ws.path("worlds/lumen"), &ws.path("worlds/harbour"));
    for part in ["lessons", "starter", "recordings"] {
        copy_tree(
            &ws.path(&format!("{part}/structured-errors")),
            &ws.path(&format!("{part}/harbour-desk")),
        );
    }
    let manifest = ws.read("lessons/harbour-desk/lesson.toml");
    let manifest = manifest
        .replacen("id = \"structured-errors\"", "id = \"harbour-desk\"", 1)
        .replacen("number = 5", "number = 9", 1)
        .replacen("setting = \"lumen\"", "setting = \"harbour\"", 1);
    ws.write("lessons/harbour-desk/lesson.toml", &manifest);
    let run = ws.run(&["doctor", "harbour-desk", "--timeout", "30"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
}

/// The tutorial's world (docs/authors.md walks through these files): a world of its own, as
/// files, that records, passes doctor, grades and replays with its own counts and cards.
#[test]
fn the_tutorial_world_records_passes_doctor_and_counts_its_own_effects() {
    let ws = Workshop::from_fixture("ferry");
    assert!(!ws.path("worlds/lumen").exists(), "the tutorial's root has its own world only");
    let record = ws.run(&["record", "ferry-desk"]);
    assert_eq!(record.code, 0, "{}\n{}", record.stdout, record.stderr);
    let doctor = ws.run(&["doctor", "ferry-desk", "--timeout", "30"]);
    assert_eq!(doctor.code, 0, "{}\n{}", doctor.stdout, doctor.stderr);
    assert!(doctor.stdout.contains("check fixed passes as it should (4/4"), "{}", doctor.stdout);
    let run = ws.run(&[
        "watch",
        "ferry-desk",
        "--ticket",
        "busy-line",
        "--code",
        "fixed",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let replay = run.json();
    assert_eq!(replay["verdict"]["seats_booked"]["09:00"], 1, "{replay}");
    let cards =
        ws.run(&["watch", "ferry-desk", "--ticket", "busy-line", "--code", "fixed", "--no-anim"]);
    assert!(cards.stdout.contains("books a seat on the 09:00 sailing"), "{}", cards.stdout);
    assert!(cards.stdout.contains("Booked one seat on the 09:00 sailing."), "{}", cards.stdout);
}

const SAID: &str = "The desk's screen now shows 1 seats left on the 09:00 sailing.";

#[test]
fn a_worlds_own_lines_are_kept_with_the_events_and_shown_on_the_card() {
    let ws = Workshop::from_fixture("ferry");
    assert_eq!(ws.run(&["record", "ferry-desk"]).code, 0);
    let watch = |extra: &[&str]| {
        let mut args = vec!["watch", "ferry-desk", "--ticket", "busy-line", "--code", "fixed"];
        args.extend_from_slice(extra);
        let run = ws.run(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout.clone()
    };
    // On the card of the attempt it is about, with and without --expand.
    for extra in [&["--no-anim"][..], &["--no-anim", "--expand"]] {
        let cards = watch(extra);
        let attempt = cards.find("Attempt 2").expect("a second attempt");
        let said = cards.find(SAID).unwrap_or_else(|| panic!("{extra:?}:\n{cards}"));
        assert!(said > attempt && cards[attempt..said].lines().count() <= 3, "{cards}");
    }
    // Kept with the events: --format json holds it on the attempt.
    let json: serde_json::Value = serde_json::from_str(&watch(&["--format", "json"])).unwrap();
    let said: Vec<&serde_json::Value> =
        json["events"].as_array().unwrap().iter().filter(|e| e.get("said").is_some()).collect();
    assert_eq!(said.len(), 1, "{json}");
    assert_eq!(said[0]["said"], serde_json::json!([SAID]));
    assert_eq!(said[0]["number"], 2);
}

#[test]
fn a_failures_own_fields_reach_the_build_hook_by_the_names_the_manifest_declares() {
    let ws = Workshop::from_fixture("ferry");
    assert_eq!(ws.run(&["record", "ferry-desk"]).code, 0);
    let run = ws.run(&[
        "watch",
        "ferry-desk",
        "--ticket",
        "full-sailing",
        "--code",
        "fixed",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let replay = run.json();
    let attempt =
        replay["events"].as_array().unwrap().iter().find(|e| e.get("output").is_some()).unwrap();
    // The world gave next_sailing; the learner's problem(kind, note, next_sailing) kept it.
    assert_eq!(attempt["output"]["problem"]["next"], "09:00", "{attempt}");
    // A check on it passes with the fix and fails with the starter.
    let fixed = ws.run(&[
        "check",
        "ferry-desk",
        "--file",
        "lessons/ferry-desk/solution/desk.py",
        "--format",
        "json",
    ]);
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    // An argument the manifest does not declare is refused, with the points that can give it.
    let path = "lessons/ferry-desk/lesson.toml";
    ws.write(path, &ws.read(path).replace("fields = [\"next_sailing\"]\n", ""));
    let run = ws.run(&["check", "ferry-desk"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("the build hook is given 'next_sailing', which that point of a run cannot give: choose from category, message, verify, tool, input"),
        "{}",
        run.stderr
    );
    // A declared field that shadows a built-in argument is refused too.
    ws.write(path, &ws.read(path).replace("[failure]\n", "[failure]\nfields = [\"message\"]\n"));
    let run = ws.run(&["check", "ferry-desk"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("[failure] fields names 'message', which the build hook is given anyway"),
        "{}",
        run.stderr
    );
}

/// A lesson-5 file that, as it loads, writes to `out` what it sees of the processes carrying its
/// own bridge mark (which a process inherits): each one's parent, group, command line and pipes;
/// the cores its own process and the workshop may run on, and whether garbage is collected.
#[cfg(target_os = "linux")]
fn process_probe(ws: &Workshop, out: &std::path::Path) -> String {
    let probe = format!(
        r#"import json, os


def _stat(pid):
    with open(f"/proc/{{pid}}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    with open(f"/proc/{{pid}}/cmdline", "rb") as cmdline:
        line = cmdline.read().decode("utf-8", "replace")
    pipes = []
    for fd in os.listdir(f"/proc/{{pid}}/fd"):
        try:
            target = os.readlink(f"/proc/{{pid}}/fd/{{fd}}")
        except OSError:
            continue
        if target.startswith("pipe:"):
            pipes.append(target)
    return {{"pid": int(pid), "ppid": int(fields[1]), "pgrp": int(fields[2]), "cmdline": line, "pipes": pipes}}


# The learner's process marks what it starts as its own (the mark it was forked with, then its
# pid); the process it was forked from keeps the mark they were both started with.
own_mark = os.environ["WORKSHOP_BRIDGE"]
mark = ("WORKSHOP_BRIDGE=" + own_mark.rpartition(".")[0]).encode()
others = []
for name in os.listdir("/proc"):
    if name.isdigit() and int(name) != os.getpid():
        try:
            with open(f"/proc/{{name}}/environ", "rb") as environ:
                if mark in environ.read().split(b"\0"):
                    others.append(_stat(name))
        except OSError:
            pass
# What the first process read ahead before it forked this one: (its pid, path) of each file.
import sys
ahead = [[entry[0], entry[1]] for entry in sys.modules["_workshop_runner"]._AHEAD]
with open({out:?}, "w") as written:
    me = {{**_stat(os.getpid()), "mark": own_mark, "cores": sorted(os.sched_getaffinity(0)), "gc": __import__("gc").isenabled()}}
    workshop_cores = sorted(os.sched_getaffinity(os.getppid()))
    json.dump({{"me": me, "others": others, "ahead": ahead, "workshop_cores": workshop_cores}}, written)

"#,
        out = out.to_str().unwrap()
    );
    probe + &ws.read("lessons/structured-errors/solution/errors.py") + CORES_PROBE
}

/// Appended to `process_probe`: `fail` first writes, beside the probe's file, the cores its own
/// process and every other process with its mark may run on, then does what the solution does.
#[cfg(target_os = "linux")]
const CORES_PROBE: &str = r#"

_solution_fail = fail


def fail(category, message):
    cores = {"mine": sorted(os.sched_getaffinity(0)), "others": [sorted(os.sched_getaffinity(o["pid"])) for o in others]}
    with open(__file__ + ".cores.json", "w") as written:
        json.dump(cores, written)
    return _solution_fail(category, message)
"#;

/// While `check` and `watch` call the learner's file, its process, the world's and the workshop
/// take turns on one core: each call is a switch on that core, not a wake-up of another. (Only
/// the commands that warm up do this; `grade`'s files run side by side.)
// Linux only: it reads /proc and the cores, and macOS has neither /proc nor CPU affinity.
#[cfg(target_os = "linux")]
#[test]
fn the_learners_and_the_worlds_processes_take_turns_on_one_core() {
    let ws = Workshop::lesson5();
    ws.write("probe.py", &process_probe(&ws, &ws.path("processes.json")));
    let seen = |ws: &Workshop| -> serde_json::Value {
        serde_json::from_str(&ws.read("probe.py.cores.json")).unwrap()
    };
    for args in [
        &["check", "structured-errors", "--file", "probe.py"][..],
        &["watch", "structured-errors", "--ticket", "old-order", "--code", "probe.py", "--no-anim"],
    ] {
        let run = ws.run(args);
        assert_eq!(run.code, 0, "{args:?}: {}\n{}", run.stdout, run.stderr);
        let seen = seen(&ws);
        assert_eq!(seen["mine"].as_array().unwrap().len(), 1, "{args:?}: {seen}");
        assert_eq!(
            seen["others"],
            serde_json::json!([seen["mine"]]),
            "{args:?}: the world's on the same core: {seen}"
        );
    }
}

/// `check` and `watch` start one interpreter for the learner's file and the world: the learner's
/// process is forked from it before anything loads (the same command line, which names the
/// world's host for the first process to read ahead), handed to the workshop (the same parent, so
/// neither is a descendant of the other) and each leads a group of its own (so ending the
/// learner's group leaves the world). Neither holds a pipe of the other's: the learner's code
/// cannot write on the world's channel. And it still runs every check.
// Linux only: the fork is made where the workshop is a child subreaper, and is seen in /proc.
#[cfg(target_os = "linux")]
#[test]
fn the_world_is_forked_from_the_learners_interpreter_before_the_file_loads_and_is_not_its_child() {
    let ws = Workshop::lesson5();
    let out = ws.path("processes.json");
    ws.write("probe.py", &process_probe(&ws, &out));
    let run = ws.run(&["check", "structured-errors", "--file", "probe.py"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("14/14 passed"), "{}", run.stdout);
    one_forked_world(&serde_json::from_str(&ws.read("processes.json")).unwrap());
    std::fs::remove_file(&out).unwrap();
    let run = ws.run(&[
        "watch",
        "structured-errors",
        "--ticket",
        "old-order",
        "--code",
        "probe.py",
        "--no-anim",
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("Verdict"), "{}", run.stdout);
    one_forked_world(&serde_json::from_str(&ws.read("processes.json")).unwrap());
}

/// A program the learner's code starts (with `os.system`, which passes on every descriptor not
/// marked close-on-exec) holds no pipe but its output: not the channel of the learner's process,
/// not the world's.
// Linux only: what each descriptor is (`pipe:[…]`) is read from /proc/self/fd.
#[cfg(target_os = "linux")]
#[test]
fn a_program_the_learners_code_starts_holds_no_channel() {
    let ws = Workshop::lesson5();
    let listed = ws.path("descriptors.txt");
    let solution = ws.read("lessons/structured-errors/solution/errors.py");
    let probe = format!(
        "{solution}\n\nimport os\n_solution_fail = fail\n\n\ndef fail(category, message):\n    if not os.path.exists({listed:?}):\n        os.system(\"exec ls -l /proc/self/fd > {listed}\")\n    return _solution_fail(category, message)\n",
        listed = listed.to_str().unwrap()
    );
    ws.write("probe.py", &probe);
    let run = ws.run(&["check", "structured-errors", "--file", "probe.py"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let seen = ws.read("descriptors.txt");
    let pipes: Vec<&str> = seen.lines().filter(|l| l.contains("pipe:")).collect();
    // Its standard error (the capture pipe; its output is the listing) and nothing else.
    assert!(!pipes.is_empty(), "{seen}");
    assert!(pipes.iter().all(|l| l.contains(" 2 -> ")), "{seen}");
}

/// The world's file is read ahead too, before the fork, when the workshop has asked for the
/// world by then: it names the file in the call behind the load request, which the first process
/// looks at without taking it. (Here the interpreter starts only once something waits on its
/// channel, and two seconds later, so the ask is whole even on a busy machine, where half a
/// second was once too short; in a `check` it is waiting, since the lesson is read in less time
/// than Python starts.)
// Linux only: the fork it reads ahead before is made only where the workshop is a subreaper.
#[cfg(target_os = "linux")]
#[test]
fn the_worlds_file_is_read_ahead_before_the_fork_when_the_world_is_already_asked_for() {
    let ws = Workshop::lesson5();
    let out = ws.path("processes.json");
    ws.write("probe.py", &process_probe(&ws, &out));
    // Waits (up to 10 s) until its channel can be read, without reading it: a fixed sleep was
    // once too short on a busy machine.
    let wait = "import select; select.select([0], [], [], 10)";
    ws.write(
        "slow-python",
        &format!("#!/bin/sh\n'{0}' -I -S -c '{wait}'\nsleep 2\nexec '{0}' \"$@\"\n", python()),
    );
    let slow = ws.path("slow-python");
    std::fs::set_permissions(&slow, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut cmd = ws.command(&["check", "structured-errors", "--file", "probe.py"]);
    cmd.env("WORKSHOP_PYTHON", &slow);
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let seen: serde_json::Value = serde_json::from_str(&ws.read("processes.json")).unwrap();
    let world = seen["others"][0]["pid"].as_i64();
    let ahead = read_ahead(&seen);
    assert!(
        ahead
            .iter()
            .any(|(pid, path)| Some(*pid) == world && path.ends_with("worlds/lumen/world.py")),
        "the world's file, read by the world's process: {seen:#}"
    );
}

/// What `process_probe` saw shows one other process, the world's, of the same start, the
/// workshop's child in a group of its own, holding no pipe of the learner's process.
#[cfg(target_os = "linux")]
fn one_forked_world(seen: &serde_json::Value) {
    let me = &seen["me"];
    let others = seen["others"].as_array().unwrap();
    assert_eq!(others.len(), 1, "one other process, the world's: {seen:#}");
    let world = &others[0];
    assert_eq!(world["cmdline"], me["cmdline"], "forked from the same start: {seen:#}");
    let cmdline = me["cmdline"].as_str().unwrap();
    assert!(cmdline.contains("\0=\0"), "started to fork a second spare: {seen:#}");
    assert!(
        cmdline.contains("workshop_world_host_"),
        "told to read the world's host ahead: {seen:#}"
    );
    assert_eq!(world["ppid"], me["ppid"], "the workshop's child, like the learner's: {seen:#}");
    assert_eq!(world["pgrp"], world["pid"], "it leads its own group: {seen:#}");
    assert_eq!(me["pgrp"], me["pid"], "so does the learner's: {seen:#}");
    let own_mark = me["mark"].as_str().unwrap();
    assert!(
        own_mark.ends_with(&format!(".{}", me["pid"])),
        "what the learner's starts is marked as its own: {seen:#}"
    );
    assert_ne!(world["pgrp"], me["pgrp"], "{seen:#}");
    // Forked by a process moved off the world's core so that it starts at once, the learner's
    // is not kept off it: as it loads (before the calls take turns on one core) it may run on
    // every core the workshop may.
    assert_eq!(
        me["cores"], seen["workshop_cores"],
        "the learner's process may run on every core: {seen:#}"
    );
    // The runner collects no garbage while it starts; the learner's file loads with it on.
    assert_eq!(me["gc"], true, "the garbage collector is on for the learner's file: {seen:#}");
    // Before it forked, the world's process read ahead the host's code; the learner's process
    // keeps what was read as it was, never its own.
    let ahead = read_ahead(seen);
    assert!(
        ahead.iter().all(|(pid, _)| world["pid"].as_i64() == Some(*pid)),
        "read by the world's process: {seen:#}"
    );
    assert!(
        ahead.iter().any(|(_, path)| path.contains("workshop_world_host_")),
        "the host: {seen:#}"
    );
    let pipes = |p: &serde_json::Value| -> Vec<String> {
        p["pipes"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
    };
    let (mine, worlds) = (pipes(me), pipes(world));
    assert!(mine.len() >= 3 && worlds.len() >= 3, "each has its channel and output: {seen:#}");
    assert!(mine.iter().all(|p| !worlds.contains(p)), "a pipe held by both: {seen:#}");
}

/// What `process_probe` saw read ahead before the fork: (the reading process's pid, path).
#[cfg(target_os = "linux")]
fn read_ahead(seen: &serde_json::Value) -> Vec<(i64, String)> {
    let entries = seen["ahead"].as_array().unwrap().iter();
    entries.map(|e| (e[0].as_i64().unwrap(), e[1].as_str().unwrap().to_string())).collect()
}

/// Lesson 5's world changed to tell, in `log`, whether a request was waiting for it while it
/// loaded (its `load` looks for one, up to `look` seconds, without taking it), and to write there,
/// each time a method runs (`def`, a line of the world file), what a Python expression says
/// (`input` is the tool's input).
fn world_that_watches_its_load(
    ws: &Workshop,
    log: &std::path::Path,
    logged: &[(&str, &str)],
    look: u32,
) {
    let mut text = ws.read(WORLD);
    let load = "    def load(self, data, tools, tickets, problems):\n";
    assert!(text.contains(load), "the world's load moved");
    let looks = format!(
        r#"{load}        import sys, time, select
        # Read ahead by the runner already, or still in the channel.
        runner = sys.modules["_workshop_runner"]
        waiting, until = False, time.monotonic() + {look}
        while not waiting and time.monotonic() < until:
            waiting = bool(runner._pending) or bool(select.select([runner._CHANNEL[0]], [], [], 0.01)[0])
        with open({log:?}, "a") as out:
            out.write(("asked while loading" if waiting else "nothing asked while loading") + "\n")
"#
    );
    text = text.replacen(load, &looks, 1);
    for (def, says) in logged {
        assert!(text.contains(def), "the world's {def} moved");
        let counts =
            format!("{def}        with open({log:?}, \"a\") as out:\n            out.write({says} + \"\\n\")\n");
        text = text.replacen(def, &counts, 1);
    }
    ws.write(WORLD, &text);
}

/// A check asks the world for its sample fields while the world still loads: the request is
/// waiting when the world's `load` runs, the world draws for the check once (after the draw its
/// loading makes to learn the fields' names), and the check grades as ever.
#[test]
fn a_checks_sample_draw_is_asked_while_the_world_loads_and_drawn_once() {
    let ws = Workshop::lesson5();
    world_that_watches_its_load(
        &ws,
        &ws.path("world.log"),
        &[("    def sample_fields(self, draw):\n", "'drawn'")],
        2,
    );
    ws.write("fixed.py", &ws.read("lessons/structured-errors/solution/errors.py"));
    let run = ws.run(&["check", "structured-errors", "--file", "fixed.py"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("14/14 passed"), "{}", run.stdout);
    let seen = ws.read("world.log");
    assert_eq!(
        seen.lines().collect::<Vec<_>>(),
        ["asked while loading", "drawn", "drawn"],
        "{seen}"
    );
}

/// A replay asks the world for its first tool call while the world still loads: the model's
/// first turn comes from the recording, without the world, and the call it makes is waiting when
/// the world's `load` runs; the tool runs once for it, and the replay shows what it always did.
#[test]
fn a_replays_first_tool_call_is_asked_while_the_world_loads_and_runs_once() {
    let ws = Workshop::lesson5();
    let watch = [
        "watch",
        "structured-errors",
        "--ticket",
        "old-order",
        "--code",
        "structured",
        "--format",
        "json",
    ];
    let plain = ws.run(&watch);
    assert_eq!(plain.code, 0, "{}\n{}", plain.stdout, plain.stderr);
    world_that_watches_its_load(
        &ws,
        &ws.path("world.log"),
        &[("    def process_refund(self, input):\n", "'refund'")],
        2,
    );
    let run = ws.run(&watch);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.stdout, plain.stdout, "the same replay");
    let seen = ws.read("world.log");
    assert_eq!(seen.lines().collect::<Vec<_>>(), ["asked while loading", "refund"], "{seen}");
}

/// Lesson 5 with its world writing to `world.log` each refund it runs (with the order id) and
/// each lookup of orders, after the line `world_that_watches_its_load` writes as it loads (having
/// looked for a waiting request for up to `look` seconds).
fn lesson5_logging_refunds(look: u32) -> (Workshop, std::path::PathBuf) {
    let ws = Workshop::lesson5();
    let log = ws.path("world.log");
    let logged = [
        ("    def process_refund(self, input):\n", "'refund ' + str(input.get('order_id'))"),
        ("    def lookup_orders(self, input):\n", "'orders'"),
    ];
    world_that_watches_its_load(&ws, &log, &logged, look);
    (ws, log)
}

/// A check asks the world, while it loads, for the first call of each ticket check's run: each
/// runs once, before any check needs it, in the order of the checks, and the check takes its
/// answer; what depends on the learner's answers (the flaky payment's second attempt) is asked
/// when it comes, so it runs last. Graded as ever: the solution passes, and a file that never
/// retries fails the one check that needs a retry, its first calls asked ahead all the same.
#[test]
fn a_checks_ticket_runs_have_their_first_calls_asked_while_the_world_loads_and_run_once() {
    let (ws, log) = lesson5_logging_refunds(2);
    let solution = ws.read("lessons/structured-errors/solution/errors.py");
    ws.write("fixed.py", &solution);
    let run = ws.run(&["check", "structured-errors", "--file", "fixed.py"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("14/14 passed"), "{}", run.stdout);
    let first_calls = ["refund 0871", "refund 12O4", "refund 0544", "refund 1042", "orders"];
    let seen = ws.read("world.log");
    let expected: Vec<&str> =
        std::iter::once("asked while loading").chain(first_calls).chain(["refund 1042"]).collect();
    assert_eq!(seen.lines().collect::<Vec<_>>(), expected, "{seen}");

    std::fs::remove_file(&log).unwrap();
    let never = "def should_retry(error: Json) -> bool:";
    assert!(solution.contains(never), "the solution's should_retry moved");
    ws.write(
        "never.py",
        &solution.replacen(never, &format!("{never}\n    return False\n\n\ndef _was(error):"), 1),
    );
    let run = ws.run(&["check", "structured-errors", "--file", "never.py", "--format", "json"]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let failed: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] != "pass")
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert!(failed.iter().any(|id| id.contains("flaky")), "{failed:?}");
    let seen = ws.read("world.log");
    let expected: Vec<&str> = std::iter::once("asked while loading").chain(first_calls).collect();
    assert_eq!(seen.lines().collect::<Vec<_>>(), expected, "{seen}");
}

/// A world that serves file after file (`grade`) is asked each file's ticket first calls as the
/// file's grading starts, while its Python starts: each runs once, ahead of the flaky payment's
/// second attempt, and every file grades as `check` grades it.
#[test]
fn grade_asks_the_loaded_world_each_files_ticket_first_calls_as_the_file_starts() {
    // Whether anything was asked while the world loaded is not what this test reads: its load
    // does not wait to see.
    let (ws, _) = lesson5_logging_refunds(0);
    let solution = ws.read("lessons/structured-errors/solution/errors.py");
    ws.write("class/a/errors.py", &solution);
    ws.write("class/b/errors.py", &solution);
    let args = ["grade", "structured-errors", "class", "--jobs", "1", "--sandbox", "none"];
    let run = crate::grade::graded(crate::grade::command(&ws, &args));
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let passed: Vec<bool> = run.stdout.lines().map(|l| l.contains("\"status\":\"pass\"")).collect();
    assert_eq!(passed, [true, true], "{}", run.stdout);
    let one_file =
        ["refund 0871", "refund 12O4", "refund 0544", "refund 1042", "orders", "refund 1042"];
    let expected: Vec<&str> = one_file.into_iter().chain(one_file).collect();
    // The first line says whether anything was asked while the world loaded (grade opens it
    // before the first file starts, so nothing was): each file's calls were asked of it loaded.
    let seen = ws.read("world.log");
    assert_eq!(seen.lines().skip(1).collect::<Vec<_>>(), expected, "{seen}");
}
