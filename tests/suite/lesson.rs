//! `workshop lesson`: the lesson text rendered for the terminal.

use crate::common::*;

#[test]
fn lesson_renders_the_text_in_plain_styles() {
    let w = Workshop::lesson5();
    let run = w.run(&["lesson", "structured-errors", "--no-pager"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!("lesson_structured_errors", run.stdout);
}

#[test]
fn lesson_text_fits_the_width_except_code() {
    let w = Workshop::lesson5();
    let run = w.run(&["lesson", "--no-pager"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Off a terminal the width is 80; only code blocks (indented by four) may run past it.
    for line in run.stdout.lines().filter(|l| !l.starts_with("    ") || l.starts_with("    -")) {
        assert!(line.chars().count() <= 80, "too wide: {line:?}");
    }
    assert!(
        run.stdout.contains("\n    {\n      \"isError\": true,\n"),
        "a code block keeps its shape"
    );
}

#[test]
fn lesson_off_a_terminal_never_starts_the_pager() {
    let w = Workshop::lesson5();
    let mut cmd = w.command(&["lesson"]);
    // A pager that would fail loudly: it must not be started when stdout is a pipe.
    cmd.env("PAGER", "sh -c 'echo pager-ran; exit 3'");
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("pager-ran"));
    assert_eq!(run.stdout, w.run(&["lesson", "--no-pager"]).stdout);
}

#[test]
fn lesson_without_text_says_so() {
    let w = Workshop::lesson5();
    std::fs::remove_file(w.path("lessons/structured-errors/lesson.md")).unwrap();
    let run = w.run(&["lesson", "--no-pager"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("has no text yet") && run.stderr.contains("lesson.md"),
        "{}",
        run.stderr
    );
}

#[test]
fn lesson_unknown_id_lists_the_lessons() {
    let w = Workshop::lesson5();
    let run = w.run(&["lesson", "no-such-lesson"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("structured-errors"), "{}", run.stderr);
}

/// `workshop lesson` for a lesson text, at a width.
fn rendered(w: &Workshop, lesson: &str, columns: usize) -> String {
    let mut cmd = w.command(&["lesson", lesson, "--no-pager"]);
    cmd.env("COLUMNS", columns.to_string());
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    run.stdout.clone()
}

/// The same text at 80 and at 50 columns, for one snapshot.
fn at_both_widths(w: &Workshop, lesson: &str) -> String {
    format!(
        "--- 80 columns ---\n{}--- 50 columns ---\n{}",
        rendered(w, lesson, 80),
        rendered(w, lesson, 50)
    )
}

#[test]
fn shipped_lessons_render_at_80_and_50_columns() {
    let w = Workshop::new();
    // At 80, structured-errors is the `lesson_structured_errors` snapshot above.
    let default = w.run(&["lesson", "structured-errors", "--no-pager"]).stdout.clone();
    assert_eq!(rendered(&w, "structured-errors", 80), default);
    let shipped = [
        ("structured-errors", 50),
        ("uncertain-state", 80),
        ("uncertain-state", 50),
        ("tool-results", 80),
        ("tool-results", 50),
    ];
    for (id, columns) in shipped {
        let text = rendered(&w, id, columns);
        insta::assert_snapshot!(format!("lesson_{id}_{columns}"), text);
    }
}

/// Each Markdown construct a lesson text may use, rendered through the real command.
const CONSTRUCTS: &[(&str, &str)] = &[
    ("headings", "# A lesson title\n\n## A part of it\n\n### A smaller part\n\nText under it.\n"),
    (
        "paragraphs",
        "Lumen Supply sells electronics online, and a Claude agent answers its customers. When the\nagent asks the refund tool for something it cannot do, the tool answers with one word.\n\nA second paragraph with a hard break here:  \nthe next line starts anew.\n",
    ),
    (
        "emphasis",
        "A result is *uncertain* when nobody answered, _not_ when the answer was no. **Never retry it blindly**, and ***never*** guess: **ask with *a read* first**.\n",
    ),
    (
        "inline_code",
        "Call `should_retry(result[\"error\"])`, not `should_retry(result)`: the flag lives under `\"error\"`, and a code span such as `./workshop check structured-errors` is never split.\n",
    ),
    (
        "code_blocks",
        "Fenced:\n\n```python\nwhile result.get(\"isError\") and attempt < MAX_ATTEMPTS:  # a long line that is never wrapped, however narrow\n    attempt += 1\n\n    result = call_tool(name, args)\n```\n\nIndented:\n\n    {\"orders\": [], \"message\": \"none\"}\n",
    ),
    (
        "lists",
        "Bullets, one nested:\n\n- **transient**: a fault that may clear by itself, so a retry is worth it, as the first attempt shows\n- **validation**: the input is wrong\n  - an order id with a letter in it\n  - an order that does not exist\n- **business**: a rule says no\n\nNumbered from three:\n\n3. Retry only what a retry can fix.\n4. Bound the retries.\n   1. at most 3 attempts in all\n   2. then hand the last result to the model\n\nLoose, with two paragraphs and code in an item:\n\n1. Copy the starter file.\n\n2. Grade it:\n\n   ```\n   ./workshop check\n   ```\n\n   Then read the first failure.\n",
    ),
    (
        "block_quotes",
        "> A failed tool call should tell the agent what to do next, in words the customer can be told.\n>\n> - say what went wrong\n> - say what to do next\n>\n> > A quote inside a quote.\n\nAfter the quote.\n",
    ),
    (
        "links",
        "Read [the Messages API's tool-use rules](https://docs.example.com/tool-use) first, then <https://example.com/mcp>. A [reference link][spec] and a [*styled* link](https://example.com/s). An image: ![a diagram](diagram.png).\n\n[spec]: https://example.com/spec\n",
    ),
    (
        "table_fits",
        "| category | retry? | example |\n| :--- | :---: | ---: |\n| transient | yes | a timeout |\n| validation | no | `12a4` |\n| permission | no | someone else's order |\n| business | no | the 30-day window |\n",
    ),
    (
        "table_wraps",
        "| id | customer asks | tool outcome | category |\n| --- | --- | --- | --- |\n| `old-order` | refund order 0871, a wobbly laptop stand | bought 239 days ago, window is 30 days | business |\n| `wrong-id` | refund an order whose id has a letter in it | no such order id | validation |\n| `flaky-payment` | refund a recent order | payment service times out on the 1st attempt, succeeds on the 2nd | transient |\n",
    ),
    (
        "table_long_cells",
        "| field | what it holds | example |\n| --- | --- | --- |\n| `errorCategory` | which kind of failure happened | `transient`, `validation`, `permission`, `business` |\n| `isRetryable` | whether the same call could succeed later | `true` |\n",
    ),
];

#[test]
fn each_markdown_construct_renders_at_80_and_50_columns() {
    let w = Workshop::from_fixture("toy");
    for (name, markdown) in CONSTRUCTS {
        w.write("lessons/parcel-desk/lesson.md", markdown);
        let text = at_both_widths(&w, "parcel-desk");
        // Only code blocks may run past the width; nothing is left as raw Markdown.
        for (columns, part) in
            [(80, text.split("--- 50").next().unwrap()), (50, text.split("--- 50").nth(1).unwrap())]
        {
            for line in part.lines().filter(|l| !l.contains("a long line that is never wrapped")) {
                assert!(line.chars().count() <= columns, "{name} at {columns}: too wide: {line:?}");
            }
        }
        assert!(
            !text.contains("**") && !text.contains("](") && !text.contains("| ---"),
            "{name}: {text}"
        );
        insta::assert_snapshot!(format!("lesson_construct_{name}"), text);
    }
}

#[test]
fn a_manifest_in_the_earlier_harness_form_is_refused_with_the_hooks_to_write_instead() {
    let ws = Workshop::from_fixture("toy");
    let path = "lessons/parcel-desk/lesson.toml";
    let text = ws.read(path);
    let start = text.find("# The desk's own failure shape").unwrap();
    let end = text.find("[harness]").unwrap();
    // The form lessons were written in before [hooks]: the harness's roles under [harness].
    let old = format!(
        "{}[harness]\nbuild = \"problem\"\ndecide = \"next_move\"\ngive = \"result\"\nanswers = {{ again = \"retry\", halt = \"report\" }}\n{}",
        &text[..start],
        &text[end + "[harness]\n".len()..]
    );
    ws.write(path, &old);
    let line = old.lines().position(|l| l == "[harness]").unwrap() + 1;
    let run = ws.run(&["doctor", "parcel-desk"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let said = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        said.contains(&format!(
            "line {line}: [harness] has build, decide, give, answers, the earlier form of the hooks, which is no longer read: write [hooks.build] with function = \"problem\" and args = [\"category\", \"message\"], and [hooks.decide] with function = \"next_move\", args = [\"result\"] and answers = {{ again = \"retry\", halt = \"report\" }} instead, with a [failure] table"
        )),
        "{}",
        run.stdout
    );
    // pass_verify alone says only to remove it.
    ws.write(path, &text.replace("[harness]\n", "[harness]\npass_verify = true\n"));
    let run = ws.run(&["doctor", "parcel-desk"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("[harness] has pass_verify, the earlier form of the hooks, which is no longer read: remove them"),
        "{}",
        run.stdout
    );
}
