//! The README's learner session is what the tool prints: each command of it runs here, in order,
//! on a fresh root, and every line shown (all but the `…` that mark lines left out) comes out in
//! that order. The two `$EDITOR` steps make the edits the session's comments describe.

use crate::common::*;

const WORK: &str = "work/tool-results/results.py";

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

/// The learner's edits, in the session's order: first every call answered, then the rest.
fn edit(w: &Workshop, n: usize) {
    let text = w.read(WORK);
    let note_first = "    content = []\n    if note:\n        # TODO(workshop): does the API want to read the note first?\n        content.append({\"type\": \"text\", \"text\": note})\n";
    let text = match n {
        0 => text.replace(
            &format!("    use, outcome = tool_uses[0], outcomes[0]\n{note_first}    content.append(result(use, outcome))\n"),
            &format!("{note_first}    for use, outcome in zip(tool_uses, outcomes):\n        content.append(result(use, outcome))\n"),
        ),
        _ => text
            .replace(
                &format!("{note_first}    for use, outcome in zip(tool_uses, outcomes):\n        content.append(result(use, outcome))\n"),
                "    content = [result(use, outcome) for use, outcome in zip(tool_uses, outcomes)]\n    if note:\n        content.append({\"type\": \"text\", \"text\": note})\n",
            )
            .replace(
                "    text = outcome[\"content\"] if outcome[\"ok\"] else outcome[\"message\"]\n    return {\"type\": \"tool_result\", \"tool_use_id\": use[\"id\"], \"content\": text}",
                "    block = {\"type\": \"tool_result\", \"tool_use_id\": use[\"id\"]}\n    if outcome[\"ok\"]:\n        block[\"content\"] = outcome[\"content\"]\n        return block\n    block[\"is_error\"] = True\n    if outcome[\"kind\"] == \"crashed\":\n        block[\"content\"] = \"The tool broke down on our side. Tell the customer it cannot be checked right now.\"\n    else:\n        block[\"content\"] = outcome[\"message\"]\n    return block",
            ),
    };
    assert_ne!(text, w.read(WORK), "edit {n} changed nothing: the starter moved on");
    w.write(WORK, &text);
}

#[test]
fn the_readme_session_is_what_the_tool_prints() {
    // The session is captured from the course of lessons 4, 5 and 6.
    let w = Workshop::foundations();
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
        // What it printed on stderr is part of the session the README shows.
        let printed = format!("{}{}", &*run.stderr, run.stdout);
        let mut lines = printed.lines();
        for want in shown.iter().filter(|l| l.trim() != "…" && !l.is_empty()) {
            assert!(
                lines.any(|got| got == want),
                "`{command}` did not print, in this order:\n{want}\n\nIt printed:\n{printed}"
            );
        }
    }
    assert_eq!(edits, 2);
}
