//! `workshop reset`: the starter back, the learner's version kept, a question on a terminal.

use crate::common::*;

const WORK: &str = "work/structured-errors/errors.py";
const STARTER: &str = "starter/structured-errors/errors.py";

fn backups(w: &Workshop) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(w.path("work/structured-errors"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".backup-"))
        .collect();
    names.sort();
    names
}

#[test]
fn reset_puts_the_starter_back_and_keeps_the_edit_as_a_backup() {
    let w = Workshop::lesson5();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    w.write(WORK, "# my edit\n");
    let run = w.run(&["reset"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(w.read(WORK), w.read(STARTER));
    let kept = backups(&w);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(w.read(&format!("work/structured-errors/{}", kept[0])), "# my edit\n");
    assert!(run.stdout.contains("kept"), "{}", run.stdout);
}

#[test]
fn reset_of_an_unedited_file_changes_nothing() {
    let w = Workshop::lesson5();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let run = w.run(&["reset", "structured-errors"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("nothing to reset"), "{}", run.stdout);
    assert!(backups(&w).is_empty());
}

#[test]
fn reset_on_a_terminal_asks_first_and_no_keeps_the_file() {
    let w = Workshop::lesson5();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    w.write(WORK, "# keep me\n");
    let Some(term) = Tmux::start(&w, "reset") else {
        eprintln!("tmux is not available: skipped");
        return;
    };
    term.wait_for("[y/N]");
    term.keys(&["n", "Enter"]);
    term.wait_for("EXITED 1");
    assert_eq!(w.read(WORK), "# keep me\n");
    assert!(backups(&w).is_empty());

    let Some(term) = Tmux::start(&w, "reset") else { return };
    term.wait_for("[y/N]");
    term.keys(&["y", "Enter"]);
    term.wait_for("EXITED 0");
    assert_eq!(w.read(WORK), w.read(STARTER));
    assert_eq!(backups(&w).len(), 1);
}

#[test]
fn reset_undo_brings_the_last_backup_back() {
    let w = Workshop::lesson5();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    w.write(WORK, "# first edit\n");
    assert_eq!(w.run(&["reset"]).code, 0);
    w.write(WORK, "# second edit\n");
    assert_eq!(w.run(&["reset"]).code, 0);
    assert_eq!(backups(&w).len(), 2);
    let run = w.run(&["reset", "--undo"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(w.read(WORK), "# second edit\n", "the last backup, not the first");
    assert!(run.stdout.contains("restored"), "{}", run.stdout);
    // The backup is moved back, not copied: the one before it is still there for another undo.
    assert_eq!(backups(&w).len(), 1);
    assert_eq!(w.read(&format!("work/structured-errors/{}", backups(&w)[0])), "# first edit\n");
}

#[test]
fn reset_undo_refuses_to_clobber_edits_made_since_and_force_keeps_them() {
    let w = Workshop::lesson5();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    w.write(WORK, "# before the reset\n");
    assert_eq!(w.run(&["reset"]).code, 0);
    w.write(WORK, "# since the reset\n");
    let run = w.run(&["reset", "--undo"]);
    assert_eq!(run.code, 1);
    assert_eq!(w.read(WORK), "# since the reset\n");
    let words = flat(&run.stderr);
    assert!(words.contains("has changed since"), "{words}");
    assert!(words.contains("./workshop reset structured-errors --undo --force"), "{words}");
    assert_eq!(backups(&w).len(), 1);
    let forced = w.run(&["reset", "--undo", "--force"]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert_eq!(w.read(WORK), "# before the reset\n");
    let kept = backups(&w);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(w.read(&format!("work/structured-errors/{}", kept[0])), "# since the reset\n");
    assert!(forced.stdout.contains("kept"), "{}", forced.stdout);
}

#[test]
fn reset_undo_without_a_backup_says_there_is_none() {
    let w = Workshop::lesson5();
    assert_eq!(w.run(&["start", "structured-errors"]).code, 0);
    let run = w.run(&["reset", "--undo"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("there is no backup of work/structured-errors/errors.py to bring back"),
        "{}",
        run.stderr
    );
    assert_eq!(w.read(WORK), w.read(STARTER));
    let force = w.run(&["reset", "--force"]);
    assert_eq!(force.code, 2, "--force goes with --undo only");
    assert!(force.stderr.contains("--undo"), "{}", force.stderr);
}
