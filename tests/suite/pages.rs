//! The pages to share: `watch --html FILE` and `grade --format html`. Each is one file with
//! nothing to fetch, made from the same events and reports as the cards and the JSON (a card per
//! event, a row per graded file), with every piece of hostile text escaped and a policy that
//! lets only the page's own script and style run. The browser's side is in `browser.rs`.

use crate::common::*;

use serde_json::Value;

/// A file name that would be an image with a script, were it markup.
pub(crate) const HOSTILE: &str = "<img src=x onerror=alert(1)>";

/// The lesson's reference fix, with `fail` printing markup on every call.
fn hostile_code() -> String {
    let solution =
        std::fs::read_to_string(repo().join("lessons/structured-errors/solution/errors.py"))
            .unwrap();
    format!("{solution}\n\n_real_fail = fail\n\n\ndef fail(category, message):\n    print(\"<script>alert('printed')</script>\")\n    return _real_fail(category, message)\n")
}

/// A learner's file under a hostile name, in `code/` of the root; its path as given to `--code`.
pub(crate) fn hostile_file(ws: &Workshop) -> String {
    let rel = format!("code/{HOSTILE}.py");
    ws.write(&rel, &hostile_code());
    rel
}

/// A class: a correct file, two buggy ones, one under a hostile name, one that does not load,
/// and a FIFO that is skipped.
pub(crate) fn class(ws: &Workshop) -> &'static str {
    for name in ["good_match.py", "bug_no_is_error.py", "bug_retry_always.py", "bad_syntax.py"] {
        ws.write(&format!("class/{name}"), &std::fs::read_to_string(fixture(name)).unwrap());
    }
    ws.write(&format!("class/{HOSTILE}.py"), &hostile_code());
    mkfifo(&ws.path("class/fifo.py"));
    "class"
}

/// How many cards a page of these replays (`watch --format json`, compared or not) shows: the
/// events two runs share once, then each run's own.
pub(crate) fn cards_of(replays: &Value) -> usize {
    let all: Vec<&Value> = match replays {
        Value::Array(all) => all.iter().collect(),
        one => vec![one],
    };
    all.iter()
        .map(|r| match r["runs"].as_array() {
            Some(runs) => {
                let len = |i: usize| runs[i]["events"].as_array().unwrap().len();
                let common = r["split_at"].as_u64().map_or(len(0), |s| s as usize);
                common + (len(0) - common) + len(1).saturating_sub(common)
            }
            None => r["events"].as_array().unwrap().len(),
        })
        .sum()
}

/// The elements of a page outside its script and style, each as its name and its attributes'
/// names and values. Escaped text holds no `<`, so every `<` left is the page's own markup.
fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut markup = String::new();
    let mut rest = html;
    while let Some(at) = rest.find("<script>").into_iter().chain(rest.find("<style>")).min() {
        markup.push_str(&rest[..at]);
        let close = if rest[at..].starts_with("<script>") { "</script>" } else { "</style>" };
        rest = &rest[at + rest[at..].find(close).unwrap()..];
    }
    markup.push_str(rest);
    let mut out = Vec::new();
    for piece in markup.split('<').skip(1) {
        let chars: Vec<char> = piece.chars().collect();
        let name_end =
            chars.iter().position(|c| c.is_whitespace() || *c == '>').unwrap_or(chars.len());
        let name: String = chars[..name_end].iter().collect();
        let mut attrs = Vec::new();
        let mut i = name_end;
        loop {
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            if i >= chars.len() || chars[i] == '>' || chars[i] == '/' {
                break;
            }
            let from = i;
            while i < chars.len() && !chars[i].is_whitespace() && !matches!(chars[i], '=' | '>') {
                i += 1;
            }
            let attr: String = chars[from..i].iter().collect();
            let mut value = String::new();
            if chars.get(i) == Some(&'=') {
                let quote = chars[i + 1];
                assert!(quote == '"', "every value is quoted: <{piece:.80}");
                let end = i + 2 + chars[i + 2..].iter().position(|c| *c == '"').unwrap();
                value = chars[i + 2..end].iter().collect();
                i = end + 1;
            }
            attrs.push((attr, value));
        }
        out.push((name.to_lowercase(), attrs));
    }
    out
}

/// What every page must hold, and must not: one document, a policy of hashes only, nothing
/// fetched from outside the file, no handler, and no script or style but the page's own.
pub(crate) fn assert_self_contained(html: &str) {
    assert!(html.starts_with("<!doctype html>"), "{:.200}", html);
    let policy = html
        .split("Content-Security-Policy\" content=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert!(policy.starts_with("default-src 'none'; style-src 'sha256-"), "{policy}");
    assert!(policy.contains("; script-src 'sha256-") && !policy.contains("unsafe"), "{policy}");
    assert!(
        html.find("Content-Security-Policy") < html.find("<style>"),
        "the policy comes before the style"
    );
    assert_eq!(html.matches("<script>").count(), 1, "one script, the page's own");
    assert_eq!(html.matches("<style>").count(), 1, "one style, the page's own");
    for (name, attrs) in tags(html) {
        let fetches = [
            "img", "link", "iframe", "object", "embed", "base", "video", "audio", "source", "form",
        ];
        assert!(!fetches.contains(&name.as_str()), "<{name}> on the page");
        for (attr, value) in attrs {
            assert!(!attr.to_lowercase().starts_with("on"), "<{name} {attr}=...>: a handler");
            assert!(
                !["src", "style", "srcdoc", "action"].contains(&attr.as_str()),
                "<{name} {attr}=...>"
            );
            if attr == "href" {
                assert!(
                    value.starts_with('#'),
                    "<{name} href={value}>: only links within the page"
                );
            }
        }
    }
}

#[test]
fn watch_html_writes_a_page_of_every_lesson_with_a_card_per_event() {
    let ws = Workshop::new();
    for lesson in ["tool-results", "structured-errors", "uncertain-state"] {
        let file = format!("{lesson}.html");
        let run = ws.run(&["watch", lesson, "--compare", "--html", &file]);
        assert_eq!(run.code, 0, "{lesson}: {}", run.stderr);
        assert!(run.stdout.starts_with(&format!("Wrote {file} (")), "{}", run.stdout);
        assert!(run
            .stdout
            .contains(&format!("file://{}", ws.path(&file).canonicalize().unwrap().display())));
        let html = ws.read(&file);
        assert_self_contained(&html);
        let json = ws.run(&["watch", lesson, "--compare", "--format", "json"]).json();
        assert_eq!(html.matches("<li class=\"card ").count(), cards_of(&json), "{lesson}");
        let tickets = json.as_array().unwrap();
        assert_eq!(html.matches("<section class=\"ticket\"").count(), tickets.len(), "{lesson}");
        for replay in tickets {
            let verdicts = replay["runs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["verdict"]["text"].as_str().unwrap());
            for text in verdicts {
                let shown =
                    text.replace('&', "&amp;").replace('\'', "&#39;").replace('"', "&quot;");
                assert!(html.contains(&shown), "{lesson}: the verdict {text:?} is on the page");
            }
        }
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(ws.path(&file)).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o644, "a page to share is readable by others");
    }
}

#[test]
fn the_replay_page_of_one_compared_ticket() {
    let ws = Workshop::lesson5();
    let run = ws.run(&["watch", "--ticket", "old-order", "--compare", "--html", "-"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_self_contained(&run.stdout);
    // The markup, not the style and script (whose hashes the policy checks).
    let body = run.stdout.split("<body>\n").nth(1).unwrap().split("<script>").next().unwrap();
    insta::assert_snapshot!(body);
}

#[test]
fn a_replay_page_shows_each_runtime_and_code_it_was_asked_for() {
    let ws = Workshop::lesson5();
    let run = ws.run(&[
        "watch",
        "--ticket",
        "flaky-payment",
        "--runtime",
        "sdk",
        "--code",
        "structured",
        "--html",
        "-",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let html = &run.stdout;
    assert!(
        html.contains("code <strong>structured</strong> · runtime <strong>sdk</strong>"),
        "{html}"
    );
    assert!(html.contains("MCP CallToolResult"), "the SDK's result is behind its expander");
    assert!(!html.contains("class=\"split\""), "one run, no split");
    // The lesson's count question is asked before a starter run only.
    assert!(!html.contains("Predict first"), "{html}");
    let starter =
        ws.run(&["watch", "--ticket", "flaky-payment", "--code", "starter", "--html", "-"]);
    assert!(starter.stdout.contains("Predict first"), "{}", starter.stdout);
    assert!(starter.stdout.contains("<summary>Reveal the answer</summary>"));
    let json = ws
        .run(&["watch", "--ticket", "flaky-payment", "--code", "starter", "--format", "json"])
        .json();
    let ran = json["verdict"]["tool_calls"].as_u64().unwrap();
    let words = ["not at all", "once", "twice", "three times"][ran as usize];
    let answer = starter.stdout.split("Reveal the answer</summary><p>").nth(1).unwrap();
    assert!(answer.starts_with(words), "the answer is what the run did ({words}): {answer:.80}");
    let quiet = ws.run(&[
        "watch",
        "--ticket",
        "flaky-payment",
        "--code",
        "starter",
        "--no-predict",
        "--html",
        "-",
    ]);
    assert!(!quiet.stdout.contains("Predict first"));
}

#[test]
fn hostile_names_and_output_stay_text_on_the_replay_page() {
    let ws = Workshop::lesson5();
    let code = hostile_file(&ws);
    let run = ws.run(&["watch", "--ticket", "old-order", "--code", &code, "--html", "page.html"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let html = ws.read("page.html");
    assert_self_contained(&html);
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "the name is shown, escaped");
    assert!(
        html.contains("&lt;script&gt;alert(&#39;printed&#39;)&lt;/script&gt;"),
        "what the code printed, escaped"
    );
    assert!(!html.contains("<img") && !html.contains("alert('printed')"));
}

#[test]
fn watch_html_refuses_a_folder_a_missing_folder_and_another_format() {
    let ws = Workshop::lesson5();
    std::fs::create_dir_all(ws.path("pages")).unwrap();
    let run = ws.run(&["watch", "--ticket", "old-order", "--html", "pages"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("--html pages is a folder: give a file name, such as pages/replay.html"),
        "{}",
        run.stderr
    );
    let run = ws.run(&["watch", "--ticket", "old-order", "--html", "nowhere/page.html"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("could not write the page to nowhere/page.html (does its folder exist"),
        "{}",
        run.stderr
    );
    assert!(!ws.path("nowhere").exists());
    let run = ws.run(&["watch", "--ticket", "old-order", "--html", "p.html", "--format", "json"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("'--html <FILE>' cannot be used with '--format <FORMAT>'"),
        "{}",
        run.stderr
    );
    assert!(
        std::fs::read_dir(ws.root())
            .unwrap()
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().starts_with(".workshop-page")),
        "no temporary file is left"
    );
}

#[test]
fn grade_html_shows_the_class_from_the_same_reports_as_jsonl() {
    let ws = Workshop::lesson5();
    let folder = class(&ws);
    let run = crate::common::run(crate::grade::command(
        &ws,
        &["grade", folder, "--format", "html", "--sandbox", "none", "--jobs", "2"],
    ));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("graded 5 files"));
    let html = &run.stdout;
    assert_self_contained(html);
    let jsonl = crate::common::run(crate::grade::command(
        &ws,
        &["grade", folder, "--sandbox", "none", "--jobs", "2"],
    ));
    assert!(jsonl.stderr.contains("graded 5 files"));
    let reports = crate::grade::lines(&jsonl.stdout);
    let ran: Vec<&Value> = reports.iter().filter(|r| r["status"] != "error").collect();
    assert_eq!(ran.len(), 4);
    assert_eq!(html.matches("<tr data-file=").count(), ran.len(), "a row per file that ran");
    assert_eq!(html.matches("<li><code>").count(), 2, "one file could not run, one was skipped");
    assert!(
        html.contains("<ul class=\"errors\" id=\"errors\">\n<li><code>class/bad_syntax.py</code>"),
        "{html}"
    );
    assert!(html.contains("<li><code>class/fifo.py</code>: a FIFO</li>"));
    assert!(html.contains("sandbox: none (--sandbox none); not isolated:"));
    bars_count_passes(html, &ran);
    // Best score first; each failing file's first failure with its guidance.
    let files: Vec<&str> =
        html.split("<tr data-file=\"").skip(1).map(|r| r.split('"').next().unwrap()).collect();
    let hostile = format!("class/{}.py", HOSTILE.replace('<', "&lt;").replace('>', "&gt;"));
    assert_eq!(
        files[..2],
        [hostile.as_str(), "class/good_match.py"],
        "full scores first, then by name"
    );
    assert_eq!(files[3], "class/bug_retry_always.py", "{files:?}");
    let row = html
        .split("<tr data-file=\"class/bug_no_is_error.py\"")
        .nth(1)
        .unwrap()
        .split("</tr>")
        .next()
        .unwrap();
    assert!(
        row.contains("<code>fail-flags-failure</code> isError: expected True, got missing"),
        "{row}"
    );
    assert!(row.contains("The result says nothing a program can test."), "{row}");
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;") && !html.contains("<img"));
}

/// A bar per check on the class's page, with how many of the class's files pass it (one of the
/// five could not run).
fn bars_count_passes(html: &str, ran: &[&Value]) {
    let checks = ran[0]["checks"].as_array().unwrap();
    assert_eq!(html.matches("<meter ").count(), checks.len());
    for check in checks {
        let id = check["id"].as_str().unwrap();
        let pass = ran
            .iter()
            .filter(|r| {
                r["checks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c["id"] == id && c["status"] == "pass")
            })
            .count();
        let bar = format!("<th scope=\"row\"><code>{id}</code>");
        let row = html.split(&bar).nth(1).unwrap_or_else(|| panic!("no bar for {id}"));
        assert!(
            row.contains(&format!("value=\"{pass}\"")) && row.contains(&format!("{pass} of 5<")),
            "{id}: {row:.200}"
        );
    }
}

#[test]
fn the_replay_page_says_whose_run_is_beside_the_starter_without_the_terminals_options() {
    let ws = Workshop::lesson5();
    assert_eq!(ws.run(&["start", "structured-errors"]).code, 0);
    ws.work_file_from("bug_no_is_error.py");
    let mut pages = Vec::new();
    for columns in ["60", "80", "120"] {
        let mut cmd = ws.command(&["watch", "--ticket", "old-order", "--compare", "--html", "-"]);
        cmd.env("COLUMNS", columns);
        let run = crate::common::run(cmd);
        assert_eq!(run.code, 0, "{}", run.stderr);
        pages.push(run.stdout.clone());
    }
    let html = &pages[0];
    let fact = "The starter beside yours (work/structured-errors/errors.py).";
    assert!(html.contains(fact), "{html}");
    // A page has no command line to add an option to.
    assert!(!html.contains("--code structured") && !html.contains("instead: "), "{html}");
    assert!(pages.iter().all(|p| p == html), "the page is the same whatever the terminal's width");
    // The terminal keeps its way to the fix.
    let cards = ws.run(&["watch", "--ticket", "old-order", "--compare", "--no-anim"]);
    let how = "The reference fix instead: --code structured";
    assert!(flat(&cards.stdout).contains(how), "{}", cards.stdout);
}

#[test]
fn the_class_page_counts_every_file_in_each_checks_bar_and_keeps_names_whole() {
    let ws = Workshop::lesson5();
    let folder = class(&ws);
    let mut pages = Vec::new();
    for columns in ["60", "80", "120"] {
        let args = ["grade", folder, "--format", "html", "--sandbox", "none"];
        let mut cmd = crate::grade::command(&ws, &args);
        cmd.env("COLUMNS", columns);
        let run = crate::common::run(cmd);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stderr.contains("graded 5 files"));
        // The summary on stderr speaks of the page, not of lines on stdout.
        assert!(!run.stderr.contains("line on stdout"), "{}", run.stderr);
        pages.push(run.stdout.clone());
    }
    let html = &pages[0];
    assert!(pages.iter().all(|p| p == html), "the page is the same whatever the terminal's width");
    // Five files graded, one of which could not run: every bar is out of five, and says why.
    assert!(html.contains(" of 5</td>") && !html.contains(" of 4</td>"), "{html}");
    assert!(html.contains("max=\"5\""), "{html}");
    assert!(flat(html).contains("A file that could not run counts as not passing"), "{html}");
    // A name breaks only after a folder's slash, never inside a file's name.
    assert!(html.contains("<td class=\"file\"><code>class/<wbr>good_match.py</code>"), "{html}");
    assert!(html.contains("#files td.file code{overflow-wrap:normal}"), "{html}");
    let body = html.split("<body>\n").nth(1).unwrap().split("<script>").next().unwrap();
    insta::assert_snapshot!("the_class_page", body);
}
