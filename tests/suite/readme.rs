//! The README's learner session is what the tool prints: each command of it runs here, in order,
//! on a fresh copy of the whole course, and the block is made again from what they print, lines
//! left out where `SESSION` says. It must equal the README's block; with
//! `WORKSHOP_UPDATE_README=1` the test writes it into the README instead. The two `$EDITOR` steps
//! make the edits their comments describe.

use crate::common::*;

const WORK: &str = "work/tool-results/results.py";

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

/// Which lines of a command's output the README shows; `…` marks those left out.
#[derive(Clone, Copy)]
enum Shown {
    All,
    /// All but the lines after the one starting with `after` and before the one with `before`.
    Cut {
        after: &'static str,
        before: &'static str,
    },
    /// Only the lines from the one that starts with this on.
    From(&'static str),
}

/// The `No recording` card without the request it shows.
const NO_RECORDING: Shown = Shown::Cut { after: "No recording", before: "Closest" };

/// The session, in order: each command and what of its output is shown.
const SESSION: [(&str, Shown); 11] = [
    ("./workshop", Shown::All),
    ("./workshop start tool-results", Shown::All),
    ("./workshop check", Shown::Cut { after: "✗ one-result-per-call: ", before: "  where" }),
    ("./workshop hint", Shown::All),
    (
        "$EDITOR work/tool-results/results.py   # a tool_result for every call, \
         in a loop",
        Shown::All,
    ),
    ("./workshop check", Shown::From("9/12 passed")),
    ("./workshop watch --ticket two-parcels --compare", NO_RECORDING),
    (
        "$EDITOR work/tool-results/results.py   # results first, then the note; failures flagged; \
         no crash text",
        Shown::All,
    ),
    ("./workshop check", Shown::From("12/12 passed")),
    ("./workshop list", Shown::All),
    ("./workshop lesson 5", Shown::Cut { after: "Foundations, lesson 5.", before: "" }),
];

/// The lines of `printed` the README shows, with `…` (indented as the first of them) for the
/// lines left out.
fn shown(printed: &str, how: Shown, command: &str) -> Vec<String> {
    let lines: Vec<&str> = printed.lines().collect();
    let find = |start: usize, prefix: &str| {
        (start..lines.len())
            .find(|i| lines[*i].starts_with(prefix))
            .unwrap_or_else(|| panic!("`{command}` printed no line starting with {prefix:?}"))
    };
    let mut out: Vec<String> = Vec::new();
    match how {
        Shown::All => out.extend(lines.iter().map(|l| l.to_string())),
        Shown::From(prefix) => {
            out.push("…".into());
            out.extend(lines[find(0, prefix)..].iter().map(|l| l.to_string()));
        }
        Shown::Cut { after, before } => {
            let from = find(0, after) + 1;
            // An empty `before`: everything after is left out.
            let to = if before.is_empty() { lines.len() } else { find(from, before) };
            out.extend(lines[..from].iter().map(|l| l.to_string()));
            let first = lines.get(from).copied().unwrap_or_default();
            let indent = &first[..first.len() - first.trim_start().len()];
            out.push(format!("{indent}…"));
            out.extend(lines[to..].iter().map(|l| l.to_string()));
        }
    }
    out
}

/// The session as the README's block holds it, made from what the commands print now.
fn session() -> String {
    let w = Workshop::new();
    let mut block = String::new();
    let mut edits = 0;
    for (command, how) in SESSION {
        block.push_str(&format!("$ {command}\n"));
        if command.starts_with("$EDITOR") {
            edit(&w, edits);
            edits += 1;
            block.push('\n');
            continue;
        }
        let args: Vec<&str> = command
            .strip_prefix("./workshop")
            .expect("a workshop command")
            .split_whitespace()
            .collect();
        let run = w.run(&args);
        run.gave_a_verdict(command);
        // What it printed on stderr (the note on the lesson meant) comes first, as on a terminal.
        let printed = format!("{}{}", &*run.stderr, run.stdout);
        for line in shown(&printed, how, command) {
            block.push_str(line.trim_end());
            block.push('\n');
        }
        if !block.ends_with("\n\n") {
            block.push('\n');
        }
    }
    assert_eq!(edits, 2);
    block.trim_end().to_string() + "\n"
}

#[test]
fn the_readme_session_is_what_the_tool_prints() {
    let path = repo().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let start = readme.find("## A learner's session").expect("a session section");
    let open = start + readme[start..].find("```text\n").expect("a text block") + "```text\n".len();
    let close = open + readme[open..].find("```\n").expect("the block ends");
    let made = session();
    if std::env::var_os("WORKSHOP_UPDATE_README").is_some() {
        std::fs::write(&path, format!("{}{made}{}", &readme[..open], &readme[close..])).unwrap();
        return;
    }
    let shown = &readme[open..close];
    if shown != made {
        let diff = similar::TextDiff::from_lines(shown, made.as_str());
        let diff = diff.unified_diff().header("README", "now").to_string();
        let update = "WORKSHOP_UPDATE_README=1 writes it";
        panic!("the README's session is not what the tool prints now ({update}):\n{diff}");
    }
}
