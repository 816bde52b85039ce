//! On a 50-column terminal every line of start, check and hint fits, for every lesson.

use crate::common::*;

fn narrow(w: &Workshop, args: &[&str]) -> Run {
    let mut cmd = w.command(args);
    cmd.env("COLUMNS", "50");
    run(cmd)
}

#[test]
fn start_check_and_hint_fit_fifty_columns() {
    for lesson in ["tool-results", "structured-errors", "uncertain-state"] {
        let w = Workshop::only(lesson);
        for args in [vec!["start", lesson], vec!["check", lesson], vec!["hint", lesson]] {
            let run = narrow(&w, &args);
            run.gave_a_verdict(&format!("{args:?}"));
            for line in run.stdout.lines().chain(run.stderr.lines()) {
                assert!(
                    line.chars().count() <= 50,
                    "{args:?}, {} columns: {line}\n{}",
                    line.chars().count(),
                    run.stdout
                );
            }
        }
    }
}
