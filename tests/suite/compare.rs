//! `watch --compare` draws each run's cards from its own events: the part shown once before
//! "the runs split here" is only what both runs did *and* what their cards say alike, checked
//! here for every ticket of every lesson, the starter against the fix and every mistake file.

use crate::common::*;

/// The cards of a replay printed alone: everything after its header.
fn cards_alone(run: &Run) -> &str {
    let at = run.stdout.find("\n\n").unwrap_or_else(|| panic!("no header: {}", run.stdout));
    &run.stdout[at + 2..]
}

/// The cards `--compare` shows once, before the marker where the runs split.
fn shared(run: &Run) -> &str {
    let start = run.stdout.find("\n\n").unwrap() + 2;
    let marker = ["the runs split here", "the runs never split"]
        .iter()
        .filter_map(|m| run.stdout.find(m))
        .min()
        .unwrap_or_else(|| panic!("no split marker: {}", run.stdout));
    let line = run.stdout[..marker].rfind('\n').unwrap() + 1;
    &run.stdout[start..line.max(start)]
}

#[test]
fn no_card_before_the_split_differs_from_the_same_card_in_either_run_alone() {
    let ws = Workshop::new();
    let mut compared = 0;
    for lesson in ["tool-results", "structured-errors", "uncertain-state"] {
        let manifest: toml::Value = toml::from_str(&ws.read(&format!("lessons/{lesson}/lesson.toml"))).unwrap();
        let mut codes = vec!["solution".to_string()];
        let mut mistakes: Vec<String> = std::fs::read_dir(ws.path(&format!("lessons/{lesson}/mistakes")))
            .map(|d| {
                d.map(|e| format!("lessons/{lesson}/mistakes/{}", e.unwrap().file_name().to_string_lossy())).collect()
            })
            .unwrap_or_default();
        mistakes.sort();
        codes.extend(mistakes);
        for ticket in manifest["tickets"].as_array().unwrap() {
            let id = ticket["id"].as_str().unwrap();
            let runtimes: Vec<&str> = match ticket.get("runtimes") {
                Some(list) => list.as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect(),
                None => vec!["harness", "sdk"],
            };
            for runtime in runtimes {
                let watch = |code: &str, compare: bool| {
                    let mut args =
                        vec!["watch", lesson, "--ticket", id, "--runtime", runtime, "--code", code, "--no-anim"];
                    if compare {
                        args.push("--compare");
                    }
                    let run = ws.run(&args);
                    assert!(
                        run.code == 0 || run.code == 1,
                        "{args:?}: exit {}\n{}\n{}",
                        run.code,
                        run.stdout,
                        run.stderr
                    );
                    run
                };
                let starter = watch("starter", false);
                for code in &codes {
                    let both = watch(code, true);
                    let alone = watch(code, false);
                    let once = shared(&both);
                    for (name, run) in [("starter", &starter), (code.as_str(), &alone)] {
                        assert!(
                            cards_alone(run).starts_with(once),
                            "{lesson} {id} {runtime}: starter against {code}: a card before the split differs from {name} alone.\nshared:\n{once}\n{name} alone:\n{}",
                            cards_alone(run)
                        );
                    }
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 20, "only {compared} comparisons ran");
}

#[test]
fn a_failed_call_whose_result_was_never_sent_says_so() {
    let ws = Workshop::new();
    let run = ws.run(&[
        "watch",
        "tool-results",
        "--ticket",
        "two-parcels",
        "--code",
        "starter",
        "--no-anim",
        "--format",
        "json",
    ]);
    let json = run.json();
    let failed: Vec<&serde_json::Value> =
        json["events"].as_array().unwrap().iter().filter(|e| e["kind"] == "attempt" && e["failed"] == true).collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["tone"], "dropped", "{:#}", failed[0]);
    let text = ws.run(&["watch", "tool-results", "--ticket", "two-parcels", "--code", "starter", "--no-anim"]);
    assert!(text.stdout.contains("failed, no result sent: the API refused the next request"), "{}", text.stdout);
    assert!(!text.stdout.contains("reported and not retried"), "{}", text.stdout);
    // A failure whose result reached the model is still reported.
    let fixed = ws.run(&["watch", "tool-results", "--ticket", "crash-trace", "--code", "fixed", "--no-anim"]);
    assert!(fixed.stdout.contains("failed, reported and not retried"), "{}", fixed.stdout);
}
