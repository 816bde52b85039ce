//! `watch --compare` draws each run's cards from its own events: the part shown once before
//! "the runs split here" is only what both runs did *and* what their cards say alike, checked
//! here for every ticket of every lesson, the starter against the fix and every mistake file.

use crate::common::*;

use std::collections::BTreeMap;

/// The cards of a replay printed alone: everything after its header.
fn cards_alone(part: &str) -> &str {
    let at = part.find("\n\n").unwrap_or_else(|| panic!("no header: {part}"));
    &part[at + 2..]
}

/// The cards `--compare` shows once, before the marker where the runs split.
fn shared(part: &str) -> &str {
    let start = part.find("\n\n").unwrap() + 2;
    let marker = ["the runs split here", "the runs never split"]
        .iter()
        .filter_map(|m| part.find(m))
        .min()
        .unwrap_or_else(|| panic!("no split marker: {part}"));
    let line = part[..marker].rfind('\n').unwrap() + 1;
    &part[start..line.max(start)]
}

/// A `watch` of every ticket cut into each ticket's part, header first, by the ticket's id.
fn by_ticket<'r>(stdout: &'r str, lesson: &str) -> BTreeMap<String, &'r str> {
    let head = format!("{lesson} · ticket ");
    let starts: Vec<usize> = stdout
        .match_indices(&head)
        .map(|(at, _)| at)
        .filter(|&at| at == 0 || stdout[..at].ends_with('\n'))
        .collect();
    let mut parts = BTreeMap::new();
    for (i, &at) in starts.iter().enumerate() {
        let part = &stdout[at..starts.get(i + 1).copied().unwrap_or(stdout.len())];
        let id = part[head.len()..].split_whitespace().next().unwrap().to_string();
        parts.insert(id, part);
    }
    parts
}

/// The lesson's tickets that replay in `runtime`.
fn tickets_in(ws: &Workshop, lesson: &str, runtime: &str) -> Vec<String> {
    let manifest: toml::Value =
        toml::from_str(&ws.read(&format!("lessons/{lesson}/lesson.toml"))).unwrap();
    let mut ids: Vec<String> = manifest["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| {
            t.get("runtimes").is_none_or(|list| {
                list.as_array().unwrap().iter().any(|r| r.as_str() == Some(runtime))
            })
        })
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

/// The code under comparison: the fix, then every mistake file of the lesson.
fn codes_of(ws: &Workshop, lesson: &str) -> Vec<String> {
    let mut mistakes: Vec<String> =
        std::fs::read_dir(ws.path(&format!("lessons/{lesson}/mistakes")))
            .map(|d| {
                d.map(|e| {
                    format!(
                        "lessons/{lesson}/mistakes/{}",
                        e.unwrap().file_name().to_string_lossy()
                    )
                })
                .collect()
            })
            .unwrap_or_default();
    mistakes.sort();
    std::iter::once("solution".to_string()).chain(mistakes).collect()
}

#[test]
fn no_card_before_the_split_differs_from_the_same_card_in_either_run_alone() {
    let ws = Workshop::new();
    let each: Vec<(&str, &str)> = ["tool-results", "structured-errors", "uncertain-state"]
        .into_iter()
        .flat_map(|lesson| ["harness", "sdk"].map(|runtime| (lesson, runtime)))
        .collect();
    let compared: usize = map_at_once(&each, |&(lesson, runtime)| {
        let tickets = tickets_in(&ws, lesson, runtime);
        if tickets.is_empty() {
            return 0;
        }
        // Every ticket in one command; each ticket's part is what `--ticket` alone prints.
        let watch = |code: &str, compare: bool| {
            let mut args = vec!["watch", lesson, "--runtime", runtime, "--code", code, "--no-anim"];
            if compare {
                args.push("--compare");
            }
            let run = ws.run(&args);
            run.gave_a_verdict(&format!("{args:?}"));
            let parts: BTreeMap<String, String> = by_ticket(&run.stdout, lesson)
                .into_iter()
                .map(|(id, part)| (id, part.to_string()))
                .collect();
            assert_eq!(
                parts.keys().cloned().collect::<Vec<_>>(),
                tickets,
                "{args:?}: every ticket, once"
            );
            parts
        };
        let starter = watch("starter", false);
        let mut compared = 0;
        for code in codes_of(&ws, lesson) {
            let both = watch(&code, true);
            let alone = watch(&code, false);
            for id in &tickets {
                let once = shared(&both[id]);
                for (name, part) in [("starter", &starter[id]), (code.as_str(), &alone[id])] {
                    assert!(
                        cards_alone(part).starts_with(once),
                        "{lesson} {id} {runtime}: starter against {code}: a card before the split differs from {name} alone.\nshared:\n{once}\n{name} alone:\n{}",
                        cards_alone(part)
                    );
                }
                compared += 1;
            }
        }
        compared
    })
    .into_iter()
    .sum();
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
    let failed: Vec<&serde_json::Value> = json["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "attempt" && e["failed"] == true)
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["tone"], "dropped", "{:#}", failed[0]);
    let text = ws.run(&[
        "watch",
        "tool-results",
        "--ticket",
        "two-parcels",
        "--code",
        "starter",
        "--no-anim",
    ]);
    assert!(
        text.stdout.contains("failed, no result sent: the API refused the next request"),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains("reported and not retried"), "{}", text.stdout);
    // A failure whose result reached the model is still reported.
    let fixed = ws.run(&[
        "watch",
        "tool-results",
        "--ticket",
        "crash-trace",
        "--code",
        "fixed",
        "--no-anim",
    ]);
    assert!(fixed.stdout.contains("failed, reported and not retried"), "{}", fixed.stdout);
}
