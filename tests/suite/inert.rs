//! What the learner's code prints is shown inert: escape sequences and control characters appear
//! as escapes (`\x1b[2J`), never act on the terminal, in `check`'s report and `watch`'s cards.
//! JSON carries them as JSON escapes.

use crate::common::*;

use serde_json::Value;

/// What the fixtures print: clear the screen, the alternate screen, hide the cursor, a window
/// title, a bell, a carriage return.
const PRINTED: &str = "\x1b[2J\x1b[?1049h\x1b[?25l\x1b]0;owned\x07ring\x07\rback";
/// The same, as the text output shows it.
const SHOWN: &str = "\\x1b[2J\\x1b[?1049h\\x1b[?25l\\x1b]0;owned\\x07ring\\x07\\rback";

/// Control characters other than line breaks, which no text output should carry.
fn raw_controls(text: &str) -> Vec<char> {
    text.chars().filter(|c| c.is_control() && *c != '\n').collect()
}

#[test]
fn check_shows_printed_escape_sequences_as_text() {
    let ws = Workshop::lesson5();
    let file = ws.learner("bad_prints_escapes.py");
    let run = ws.run(&["check", "--file", &file]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(raw_controls(&run.stdout), Vec::<char>::new(), "{}", run.stdout);
    // The report wraps long lines: compare with the breaks taken out.
    let joined: String = run.stdout.lines().map(str::trim).collect();
    assert!(joined.contains(SHOWN), "{}", run.stdout);
}

#[test]
fn check_json_carries_printed_escape_sequences_as_json_escapes() {
    let ws = Workshop::lesson5();
    let file = ws.learner("bad_prints_escapes.py");
    let run = ws.run(&["check", "--file", &file, "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(raw_controls(&run.stdout), Vec::<char>::new(), "{}", run.stdout);
    assert!(run.stdout.contains("\\u001b[2J"), "{}", run.stdout);
    let report = run.json();
    let printed: Vec<&str> =
        report["checks"].as_array().unwrap().iter().filter_map(|c| c["output"].as_str()).collect();
    assert!(
        printed.iter().any(|p| p.contains(PRINTED)),
        "the value read back is what was printed: {printed:?}"
    );
}

#[test]
fn watch_cards_show_printed_escape_sequences_as_text() {
    let ws = Workshop::lesson5();
    let file = "learners/prints_escapes.py";
    ws.copy_watch_fixture(file, file);
    let run = ws.run(&["watch", "--ticket", "flaky-payment", "--code", file]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(raw_controls(&run.stdout), Vec::<char>::new(), "{}", run.stdout);
    let joined: String = run.stdout.lines().map(str::trim).collect();
    assert!(joined.contains(&format!("printed: fail{SHOWN}should_retry{SHOWN}")), "{}", run.stdout);

    let json = ws.run(&["watch", "--ticket", "flaky-payment", "--code", file, "--format", "json"]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    assert_eq!(raw_controls(&json.stdout), Vec::<char>::new(), "{}", json.stdout);
    let replay = json.json();
    let attempts: Vec<&Value> =
        replay["events"].as_array().unwrap().iter().filter(|e| e["kind"] == "attempt").collect();
    let printed = attempts[0]["printed"].as_str().unwrap();
    assert!(printed.contains(PRINTED), "{printed:?}");
}

#[test]
fn an_exception_message_with_escapes_is_shown_as_text() {
    let ws = Workshop::lesson5();
    ws.write("learners/raises_escapes.py", "raise ValueError('\\x1b[2J\\x1b]0;owned\\x07')\n");
    let run = ws.run(&["check", "--file", "learners/raises_escapes.py"]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(raw_controls(&run.stdout), Vec::<char>::new(), "{}", run.stdout);
    assert!(run.stdout.contains("\\x1b[2J"), "{}", run.stdout);
}

#[test]
fn an_error_line_on_stderr_shows_escapes_as_text() {
    // The lesson named on the command line comes back in the error: escapes in it stay inert.
    let ws = Workshop::lesson5();
    let run = ws.run(&["check", "oops\x1b[2J\x1b]0;owned\x07"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("oops\\x1b[2J\\x1b]0;owned\\x07"), "{}", run.stderr);
    assert_eq!(raw_controls(run.stderr.text()), Vec::<char>::new(), "{}", run.stderr);
}

/// A name no message may print as it is: an escape sequence that would write the terminal's
/// clipboard (OSC 52), and U+202E, which shows what follows it right to left.
const NASTY: &str = "a\x1b]52;c;b3duZWQ=\x07b\u{202e}yp.c";
const NASTY_SHOWN: &str = "a\\x1b]52;c;b3duZWQ=\\x07b\\u202eyp.c";

/// Characters that act on a terminal, line breaks aside.
fn acting(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| {
            (c.is_control() && *c != '\n')
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

#[test]
fn check_file_and_watch_code_name_a_file_with_escapes_in_its_name_escaped() {
    let ws = Workshop::lesson5();
    let good = std::fs::read_to_string(fixture("good_match.py")).unwrap();
    let name = format!("{NASTY}.py");
    ws.write(&name, &good);
    let check = ws.run(&["check", "--file", &name]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert_eq!(acting(&check.stdout), Vec::<char>::new(), "{}", check.stdout);
    assert!(check.stdout.contains(NASTY_SHOWN), "{}", check.stdout);
    let json = ws.run(&["check", "--file", &name, "--format", "json"]);
    assert_eq!(acting(&json.stdout), Vec::<char>::new(), "{}", json.stdout);
    // JSON names the file itself, with what would act on a terminal as JSON escapes.
    assert_eq!(json.json()["file"], name);
    let watch = ws.run(&[
        "watch",
        "structured-errors",
        "--ticket",
        "old-order",
        "--code",
        &name,
        "--no-anim",
    ]);
    assert_eq!(watch.code, 0, "{}", watch.stderr);
    assert_eq!(acting(&watch.stdout), Vec::<char>::new(), "{}", watch.stdout);
    assert!(watch.stdout.contains(NASTY_SHOWN), "{}", watch.stdout);
    // A name that is not there is named escaped in the error too.
    let missing = ws.run(&["check", "--file", "gone\x1b[2J\u{202e}.py"]);
    assert_eq!(missing.code, 2);
    assert_eq!(acting(&missing.stderr), Vec::<char>::new(), "{}", missing.stderr);
    assert!(missing.stderr.contains("gone\\x1b[2J\\u202e.py"), "{}", missing.stderr);
}

#[test]
fn lesson_text_that_would_act_on_the_terminal_is_shown_escaped() {
    let ws = Workshop::lesson5();
    let text = ws.read("lessons/structured-errors/lesson.md");
    ws.write(
        "lessons/structured-errors/lesson.md",
        &format!("{text}\n\nCopied: \x1b]52;c;cm0gLXJmIH4=\x07 and \u{202e}gnp.exe\n\n```\nin code \x1b[2J too\n```\n"),
    );
    let run = ws.run(&["lesson", "structured-errors", "--no-pager"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(acting(&run.stdout), Vec::<char>::new(), "{}", run.stdout);
    assert!(
        run.stdout.contains("Copied: \\x1b]52;c;cm0gLXJmIH4=\\x07 and \\u202egnp.exe"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("in code \\x1b[2J too"), "{}", run.stdout);
}

/// Python's spelling of characters that act although nothing shows: zero-width space, word
/// joiner, byte order mark, two Unicode tags (which can spell hidden text), the line and
/// paragraph separators; then the one-byte CSI and two bidi controls.
const INVISIBLE_PY: &str = concat!(
    r"zw\u200bsp|wj\u2060|bom\ufeff|tag\U000e0041\U000e007f|",
    r"ls\u2028ps\u2029|csi\x9b31m|rlo\u202epdf\u202c"
);
/// The same characters themselves.
const INVISIBLE: &str = concat!(
    "zw\u{200b}sp|wj\u{2060}|bom\u{feff}|tag\u{e0041}\u{e007f}|",
    "ls\u{2028}ps\u{2029}|csi\u{9b}31m|rlo\u{202e}pdf\u{202c}"
);

/// Characters of `INVISIBLE` that are not plain text.
fn unseen(text: &str) -> Vec<char> {
    text.chars().filter(|c| !c.is_ascii() && INVISIBLE.contains(*c)).collect()
}

/// The starter's results (so checks fail and show what was printed), printing the invisible
/// characters on every call.
fn prints_invisible() -> String {
    let starter =
        std::fs::read_to_string(repo().join("starter/structured-errors/errors.py")).unwrap();
    let renamed =
        starter.replace("def fail(", "def _fail(").replace("def should_retry(", "def _retry(");
    let print = format!("    print('{INVISIBLE_PY}')\n");
    format!(
        "{renamed}\n\ndef fail(category, message):\n{print}    return _fail(category, message)\n\n\
         def should_retry(error):\n{print}    return _retry(error)\n"
    )
}

#[test]
fn check_format_exercism_escapes_c1_and_bidi_controls_as_json_does() {
    let ws = Workshop::lesson5();
    ws.write("learners/prints_invisible.py", &prints_invisible());
    let run = ws.run(&["check", "--file", "learners/prints_invisible.py", "--format", "exercism"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    for c in ['\u{9b}', '\u{202e}', '\u{202c}'] {
        assert!(!run.stdout.contains(c), "{c:?} raw in {:?}", run.stdout);
    }
    assert!(
        run.stdout.contains("\\u009b31m") && run.stdout.contains("\\u202epdf\\u202c"),
        "{}",
        run.stdout
    );
    let results = run.json();
    let output = results["tests"][0]["output"].as_str().unwrap();
    assert!(output.contains(INVISIBLE), "the value reads back as printed: {output:?}");
}

#[test]
fn watch_html_names_the_page_it_wrote_escaped() {
    let ws = Workshop::lesson5();
    let name = format!("{NASTY}\x1b[2J.html");
    let run = ws.run(&["watch", "--ticket", "old-order", "--code", "structured", "--html", &name]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(ws.path(&name).is_file(), "the page is written under its own name");
    assert_eq!(acting(&run.stdout), Vec::<char>::new(), "{:?}", run.stdout);
    assert!(run.stdout.contains(&format!("Wrote {NASTY_SHOWN}\\x1b[2J.html (")), "{}", run.stdout);
}

#[test]
fn invisible_characters_are_shown_escaped_in_reports_cards_pages_and_the_summary() {
    let ws = Workshop::lesson5();
    let file = "learners/prints_invisible.py";
    ws.write(file, &prints_invisible());
    let joined = |text: &str| -> String { text.lines().map(str::trim).collect() };

    let check = ws.run(&["check", "--file", file]);
    assert_eq!(check.code, 1, "{}", check.stderr);
    assert_eq!(unseen(&check.stdout), Vec::<char>::new(), "{}", check.stdout);
    assert!(joined(&check.stdout).contains(INVISIBLE_PY), "{}", check.stdout);
    let json = ws.run(&["check", "--file", file, "--format", "json"]);
    assert_eq!(unseen(&json.stdout), Vec::<char>::new(), "{}", json.stdout);
    assert!(
        json.json()["checks"][0]["output"].as_str().unwrap().contains(INVISIBLE),
        "{}",
        json.stdout
    );

    let cards = ws.run(&["watch", "--ticket", "flaky-payment", "--code", file, "--no-anim"]);
    assert_eq!(cards.code, 0, "{}", cards.stderr);
    assert_eq!(unseen(&cards.stdout), Vec::<char>::new(), "{}", cards.stdout);
    assert!(joined(&cards.stdout).contains(INVISIBLE_PY), "{}", cards.stdout);
    let replay =
        ws.run(&["watch", "--ticket", "flaky-payment", "--code", file, "--format", "json"]);
    assert_eq!(unseen(&replay.stdout), Vec::<char>::new(), "{}", replay.stdout);
    assert!(replay.stdout.contains("\\udb40\\udc41"), "a tag as JSON spells it: {}", replay.stdout);
    let page =
        ws.run(&["watch", "--ticket", "flaky-payment", "--code", file, "--html", "page.html"]);
    assert_eq!(page.code, 0, "{}", page.stderr);
    let html = ws.read("page.html");
    assert_eq!(unseen(&html), Vec::<char>::new(), "the page");
    assert!(html.contains(INVISIBLE_PY), "the page shows them escaped");

    // In grade: a name and a reason, in the summary, the lines and the class's page.
    let name = format!("class/{}/errors.py", INVISIBLE.replace('|', "_"));
    ws.write(&name, &format!("raise Exception('{INVISIBLE_PY}')\n"));
    let grade = crate::grade::graded(crate::grade::command(&ws, &["grade", "class"]));
    assert_eq!(grade.code, 0, "{}", grade.stderr);
    assert_eq!(unseen(&grade.stderr), Vec::<char>::new(), "{}", grade.stderr);
    assert!(grade.stderr.contains(&format!("Exception: {INVISIBLE_PY}")), "{}", grade.stderr);
    assert_eq!(unseen(&grade.stdout), Vec::<char>::new(), "{}", grade.stdout);
    assert_eq!(
        crate::grade::lines(&grade.stdout)[0]["file"],
        name,
        "the line names the file itself"
    );
    let class =
        crate::grade::graded(crate::grade::command(&ws, &["grade", "class", "--format", "html"]));
    assert_eq!(unseen(&class.stdout), Vec::<char>::new(), "the class's page");
}
