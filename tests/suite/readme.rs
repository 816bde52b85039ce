//! The README's learner session is what the tool prints: each command of it runs here, in order,
//! on a fresh root, and every line shown (all but the `…` that mark lines left out) comes out in
//! that order. The two `$EDITOR` steps make the edits the session's comments describe.

use crate::common::*;

const WORK: &str = "work/structured-errors/errors.py";

/// The session block of the README, split into commands, each with the lines shown under it.
fn session() -> Vec<(String, Vec<String>)> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let start = readme.find("## A learner's session").expect("a session section");
    let block = &readme[start..];
    let open = block.find("```text\n").expect("a text block") + "```text\n".len();
    let body = &block[open..open + block[open..].find("\n```").expect("the block ends")];
    let mut steps: Vec<(String, Vec<String>)> = Vec::new();
    for line in body.lines() {
        match line.strip_prefix("$ ") {
            Some(command) => steps.push((command.to_string(), Vec::new())),
            None => steps.last_mut().expect("a command first").1.push(line.to_string()),
        }
    }
    steps
}

/// The learner's edits, in the session's order.
fn edit(w: &Workshop, n: usize) {
    let text = w.read(WORK);
    let text = match n {
        0 => text.replace(
            "    return {\"error\": {\"message\": \"Error\"}}",
            "    return {\n        \"isError\": True,\n        \"error\": {\n            \"errorCategory\": category,\n            \"isRetryable\": category == \"transient\",\n            \"message\": message,\n        },\n    }",
        ),
        _ => text
            .replace(
                "    return {\n        \"isError\": True,",
                "    if category == \"empty\":\n        return {\"orders\": [], \"message\": message}\n    return {\n        \"isError\": True,",
            )
            .replace("    return True", "    return error.get(\"isRetryable\") is True"),
    };
    w.write(WORK, &text);
}

#[test]
fn the_readme_session_is_what_the_tool_prints() {
    let w = Workshop::new();
    let steps = session();
    assert!(steps.len() >= 8, "{steps:?}");
    let mut edits = 0;
    for (command, shown) in steps {
        if command.starts_with("$EDITOR") {
            edit(&w, edits);
            edits += 1;
            continue;
        }
        let args: Vec<&str> =
            command.strip_prefix("./workshop").expect("a workshop command").split_whitespace().collect();
        let run = w.run(&args);
        let printed = format!("{}{}", run.stderr, run.stdout);
        let mut lines = printed.lines();
        for want in shown.iter().filter(|l| l.as_str() != "…" && !l.is_empty()) {
            assert!(
                lines.any(|got| got == want),
                "`{command}` did not print, in this order:\n{want}\n\nIt printed:\n{printed}"
            );
        }
    }
    assert_eq!(edits, 2);
}
