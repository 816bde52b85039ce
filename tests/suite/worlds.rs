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
    ws.write("work/structured-errors/errors.py", &ws.read("lessons/structured-errors/solution/errors.py"));
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
        run.stderr.contains(&format!("{WORLD}: line {line}: while running the tool process_refund")),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("which is not plain JSON"), "{}", run.stderr);
}

#[test]
fn a_world_that_hangs_is_stopped_at_its_deadline_and_named() {
    let ws = broken_refund("        while True: pass");
    let run = check(&ws);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(&format!("error: {WORLD}: while running call, the world did not return within 5 s")),
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
    let run = ws.run(&["check"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("setting 'lumen' is not a world here: there is no worlds/lumen/world.py (worlds here: shop)"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_second_world_added_as_files_loads_without_a_rebuild() {
    // A copy of the Lumen world under another name, and a copy of lesson 5 set in it.
    let ws = Workshop::lesson5();
    copy_dir(&ws.path("worlds/lumen"), &ws.path("worlds/harbour"));
    for part in ["lessons", "starter", "recordings"] {
        copy_dir(&ws.path(&format!("{part}/structured-errors")), &ws.path(&format!("{part}/harbour-desk")));
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

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
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
    let run = ws.run(&["watch", "ferry-desk", "--ticket", "busy-line", "--code", "fixed", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let replay = run.json();
    assert_eq!(replay["verdict"]["seats_booked"]["09:00"], 1, "{replay}");
    let cards = ws.run(&["watch", "ferry-desk", "--ticket", "busy-line", "--code", "fixed", "--no-anim"]);
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
    let run = ws.run(&["watch", "ferry-desk", "--ticket", "full-sailing", "--code", "fixed", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let replay = run.json();
    let attempt = replay["events"].as_array().unwrap().iter().find(|e| e.get("output").is_some()).unwrap();
    // The world gave next_sailing; the learner's problem(kind, note, next_sailing) kept it.
    assert_eq!(attempt["output"]["problem"]["next"], "09:00", "{attempt}");
    // A check on it passes with the fix and fails with the starter.
    let fixed = ws.run(&["check", "ferry-desk", "--file", "lessons/ferry-desk/solution/desk.py", "--format", "json"]);
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
        run.stderr.contains("[failure] fields names 'message', which the build hook is given anyway"),
        "{}",
        run.stderr
    );
}
