//! Progress survives commands that run at the same time.

use crate::common::*;

#[test]
fn parallel_hints_each_keep_their_step() {
    let w = Workshop::lesson5();
    let ids = [
        "fail-flags-failure",
        "fail-names-category",
        "fail-retry-hint",
        "fail-keeps-message",
        "empty-is-not-failure",
        "retry-transient",
        "no-retry-refusals",
        "no-retry-without-flag",
    ];
    let children: Vec<_> = ids
        .iter()
        .map(|id| {
            w.command(&["hint", "--check", id]).stdout(std::process::Stdio::null()).spawn().unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let progress: serde_json::Value = serde_json::from_str(&w.read("work/.progress.json")).unwrap();
    let steps = &progress["lessons"]["structured-errors"]["hint_steps"];
    for id in ids {
        assert_eq!(steps[id], 1, "the step of {id} was lost: {progress}");
    }
}
