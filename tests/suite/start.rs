//! `workshop start`: copy the starter, never lose the learner's edits.

use crate::common::*;

const WORK: &str = "work/structured-errors/errors.py";
const STARTER: &str = "starter/structured-errors/errors.py";

fn backups(w: &Workshop) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(w.path("work/structured-errors"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("errors.backup-"))
        .collect();
    names.sort();
    names
}

#[test]
fn start_copies_the_starter_and_says_what_to_open_and_run_next() {
    let w = Workshop::new();
    let run = w.run(&["start", "structured-errors"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(w.read(WORK), w.read(STARTER));
    // The next steps, in order: read, see the failure, edit, check.
    let steps: Vec<&str> = [
        "./workshop lesson structured-errors",
        "./workshop watch structured-errors --compare",
        "work/structured-errors/errors.py",
        "./workshop check structured-errors",
    ]
    .into_iter()
    .collect();
    let mut at = 0;
    for step in steps {
        let found = run.stdout[at..]
            .find(step)
            .unwrap_or_else(|| panic!("{step} after byte {at}:\n{}", run.stdout));
        at += found + step.len();
    }
    assert!(run.stdout.contains("Foundations, lesson 5"), "{}", run.stdout);
    // The heading carries no stray separator, and step 2 says whose run is beside the starter's.
    assert!(
        run.stdout.starts_with("Started Structured tool errors (Foundations, lesson 5)\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("the starter beside the fix; after your edits, yours"),
        "{}",
        run.stdout
    );
}

#[test]
fn start_creates_the_work_folder_when_it_is_missing() {
    let w = Workshop::new();
    std::fs::remove_dir_all(w.path("work")).unwrap();
    let run = w.run(&["start", "structured-errors"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(w.read(WORK), w.read(STARTER));
}

#[test]
fn start_again_on_an_unchanged_file_succeeds_without_a_copy() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let again = w.run(&["start", "structured-errors"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(backups(&w).is_empty());
}

#[test]
fn start_refuses_to_overwrite_edits() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    w.work_file_from("good_match.py");
    let edited = w.read(WORK);
    let run = w.run(&["start", "structured-errors"]);
    assert_eq!(run.code, 1);
    assert_eq!(w.read(WORK), edited, "the learner's file is untouched");
    assert!(
        run.stderr.contains("work/structured-errors/errors.py has your edits"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("./workshop start structured-errors --force"), "{}", run.stderr);
    assert!(backups(&w).is_empty());
}

#[test]
fn start_force_keeps_a_timestamped_copy_and_restores_the_starter() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    w.work_file_from("good_match.py");
    let edited = w.read(WORK);
    let run = w.run(&["start", "structured-errors", "--force"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(w.read(WORK), w.read(STARTER));
    let kept = backups(&w);
    assert_eq!(kept.len(), 1, "{kept:?}");
    // errors.backup-2026-05-14T09-30-00Z.py: sortable, and no ':' for other file systems.
    let stamp = kept[0].strip_prefix("errors.backup-").and_then(|s| s.strip_suffix(".py")).unwrap();
    assert_eq!(stamp.len(), "2026-05-14T09-30-00Z".len(), "{stamp}");
    assert!(stamp.chars().all(|c| c.is_ascii_digit() || "-TZ".contains(c)), "{stamp}");
    assert_eq!(w.read(&format!("work/structured-errors/{}", kept[0])), edited);
    assert!(run.stdout.contains(&format!(
        "kept     your previous version as work/structured-errors/{}",
        kept[0]
    )));
}

#[test]
fn start_force_twice_in_a_second_keeps_both_copies() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    w.work_file_from("good_match.py");
    assert_eq!(w.run(&["start", "structured-errors", "--force"]).code, 0);
    w.work_file_from("good_helpers.py");
    assert_eq!(w.run(&["start", "structured-errors", "--force"]).code, 0);
    let kept = backups(&w);
    assert_eq!(kept.len(), 2, "{kept:?}");
    let texts: Vec<String> =
        kept.iter().map(|k| w.read(&format!("work/structured-errors/{k}"))).collect();
    assert!(texts.contains(&std::fs::read_to_string(fixture("good_match.py")).unwrap()));
    assert!(texts.contains(&std::fs::read_to_string(fixture("good_helpers.py")).unwrap()));
}

#[test]
fn start_force_on_an_unchanged_file_keeps_no_copy() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    assert_eq!(w.run(&["start", "structured-errors", "--force"]).code, 0);
    assert!(backups(&w).is_empty());
}

#[test]
fn start_of_an_unknown_lesson_lists_the_known_ones() {
    let w = Workshop::new();
    let run = w.run(&["start", "structured-errorz"]);
    assert_eq!(run.code, 2);
    let said = "there is no lesson 'structured-errorz'.\nDid you mean structured-errors?";
    assert!(run.stderr.contains(said), "{}", run.stderr);
    // Every lesson is offered, whatever lessons the repository ships.
    for id in std::fs::read_dir(w.path("lessons")).unwrap().flatten().filter(|e| e.path().is_dir())
    {
        let id = id.file_name().into_string().unwrap();
        assert!(run.stderr.contains(&id), "{id} offered in: {}", run.stderr);
    }
    assert!(!w.path("work/structured-errorz").exists());
}

#[test]
fn start_refuses_a_lesson_id_with_a_path_separator_or_dots() {
    let w = Workshop::new();
    for id in ["../escape", "..", "a/b", "a\\b", "structured-errors/..", ".hidden"] {
        let run = w.run(&["start", id]);
        assert_eq!(run.code, 2, "{id}: {}", run.stdout);
        assert!(run.stderr.contains("is not a lesson id"), "{id}: {}", run.stderr);
    }
    assert!(!w.root().parent().unwrap().join("escape").exists());
    assert_eq!(std::fs::read_dir(w.path("work")).unwrap().count(), 0, "nothing was written");
}

#[test]
fn start_without_a_lesson_lists_the_lessons() {
    // A course of its own: the columns follow the longest lesson id, which any added lesson may change.
    let w = Workshop::foundations();
    let run = w.run(&["start"]);
    assert_eq!(run.code, 2);
    assert!(!run.stderr.contains("--root"), "no usage line: {}", run.stderr);
    assert!(run.stderr.contains("structured-errors  Structured tool errors"), "{}", run.stderr);
    assert!(
        run.stderr.contains("Start one with ./workshop start <lesson>, such as ./workshop start "),
        "{}",
        run.stderr
    );
}

#[test]
fn start_refuses_a_fifo_in_place_of_the_work_file() {
    let w = Workshop::new();
    std::fs::create_dir_all(w.path("work/structured-errors")).unwrap();
    mkfifo(&w.path(WORK));
    for args in [&["start", "structured-errors"][..], &["start", "structured-errors", "--force"]] {
        let run = run_guarded(w.command(args));
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains(
                "work/structured-errors/errors.py is a named pipe (FIFO), not a regular file"
            ),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains("Move it away"), "{}", run.stderr);
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(w.path(WORK)).unwrap().file_type().is_fifo(),
        "left as it was"
    );
    assert!(backups(&w).is_empty());
}

#[test]
fn start_refuses_a_link_to_a_device_without_reading_it() {
    let w = Workshop::new();
    std::fs::create_dir_all(w.path("work/structured-errors")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", w.path(WORK)).unwrap();
    let run = run_guarded(memory_capped(w.command(&["start", "structured-errors", "--force"])));
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("errors.py is a character device, not a regular file"),
        "{}",
        run.stderr
    );
    assert!(
        std::fs::symlink_metadata(w.path(WORK)).unwrap().file_type().is_symlink(),
        "left as it was"
    );
}

#[test]
fn start_refuses_a_folder_in_place_of_the_work_file() {
    let w = Workshop::new();
    w.write("work/structured-errors/errors.py/notes.txt", "mine");
    let run = w.run(&["start", "structured-errors", "--force"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("errors.py is a folder, not a regular file"), "{}", run.stderr);
    assert_eq!(w.read("work/structured-errors/errors.py/notes.txt"), "mine");
    assert!(backups(&w).is_empty());
}

#[test]
fn start_refuses_an_edit_that_kept_the_length() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    // One character changed: the same size, the same line count, different code.
    let starter = w.read(STARTER);
    let at = starter.find("Error").expect("the starter's bare Error");
    let edited = format!("{}error{}", &starter[..at], &starter[at + "Error".len()..]);
    assert_eq!(edited.len(), starter.len());
    w.write(WORK, &edited);
    let run = w.run(&["start", "structured-errors"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stderr.contains("has your edits, so start left it alone"), "{}", run.stderr);
    assert_eq!(w.read(WORK), edited, "the learner's file is untouched");
    let forced = w.run(&["start", "structured-errors", "--force"]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    let kept = backups(&w);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(w.read(&format!("work/structured-errors/{}", kept[0])), edited);
}

#[test]
fn start_force_leaves_every_other_file_in_the_work_folder() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    w.write("work/structured-errors/errors.backup-2020-01-01T00-00-00Z.py", "an earlier copy");
    w.write("work/structured-errors/notes.txt", "my notes");
    w.write("work/structured-errors/scratch/try.py", "print(1)");
    w.work_file_from("good_match.py");
    let run = w.run(&["start", "structured-errors", "--force"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        w.read("work/structured-errors/errors.backup-2020-01-01T00-00-00Z.py"),
        "an earlier copy"
    );
    assert_eq!(w.read("work/structured-errors/notes.txt"), "my notes");
    assert_eq!(w.read("work/structured-errors/scratch/try.py"), "print(1)");
    assert_eq!(backups(&w).len(), 2);
    assert_eq!(w.read(WORK), w.read(STARTER));
}

#[test]
fn start_force_run_twice_at_once_keeps_the_edit_exactly_once() {
    let w = Workshop::new();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let edit = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    for round in 1..=25 {
        w.write(WORK, &format!("{edit}\n# round {round}\n"));
        let children: Vec<_> = (0..2)
            .map(|_| {
                let mut cmd = w.command(&["start", "structured-errors", "--force"]);
                cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
                cmd.spawn().unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        // The second run, having waited for the first, found the starter and kept nothing more.
        let kept = backups(&w);
        assert_eq!(kept.len(), round, "round {round}: {kept:?}");
        let copies = kept
            .iter()
            .filter(|k| {
                w.read(&format!("work/structured-errors/{k}"))
                    .contains(&format!("# round {round}\n"))
            })
            .count();
        assert_eq!(copies, 1, "round {round}: {kept:?}");
        assert_eq!(w.read(WORK), w.read(STARTER));
    }
}
