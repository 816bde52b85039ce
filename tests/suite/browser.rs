//! The pages in a real browser: Debian's chromium, headless, driven over WebDriver by
//! chromedriver. WebDriver is plain HTTP with JSON bodies on 127.0.0.1, so the few calls below
//! are made with the standard library's TcpStream: a client crate (fantoccini, thirtyfour)
//! would bring an async runtime and an HTTP stack into every test build for eight requests.
//! chromedriver starts and ends the browser, and reads its console for us.
//!
//! One browser serves both pages. Where chromium or chromedriver is missing the test says so on
//! stderr and passes; under `WORKSHOP_REQUIRE_BROWSER=1` (as `.ci/run` sets) it fails instead.

use crate::common::*;
use crate::pages::{cards_of, class, hostile_file, HOSTILE};

use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The flags a browser with no network needs not to stall (and a container, not to need a
/// sandbox of its own).
const FLAGS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

fn required() -> bool {
    std::env::var("WORKSHOP_REQUIRE_BROWSER").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// A browser session: chromedriver, the browser it started, and a fresh profile for it.
struct Browser {
    port: u16,
    driver: Child,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// A browser, or `None` (said on stderr) where there is none to start and none is required.
    fn start() -> Option<Browser> {
        let missing: Vec<&str> =
            [CHROMIUM, CHROMEDRIVER].into_iter().filter(|p| !Path::new(p).exists()).collect();
        if !missing.is_empty() {
            let why = format!(
                "it needs {} (apt-get install chromium chromium-driver)",
                missing.join(" and ")
            );
            assert!(!required(), "WORKSHOP_REQUIRE_BROWSER is set, but {why}");
            eprintln!("SKIPPED the browser tests: {why}");
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let profile = tempdir();
        let mut browser = Browser { port, driver, session: String::new(), _profile: profile };
        let ready = Instant::now();
        while http(port, "GET", "/status", None).is_err() {
            assert!(
                ready.elapsed() < Duration::from_secs(20),
                "chromedriver did not answer on port {port}"
            );
            std::thread::sleep(Duration::from_millis(25));
        }
        let mut args: Vec<String> = FLAGS.iter().map(|f| f.to_string()).collect();
        args.push(format!("--user-data-dir={}", browser._profile.path().display()));
        args.push("--window-size=1200,900".into());
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args},
            "goog:loggingPrefs": {"browser": "ALL"},
        }}});
        let session = browser.call("POST", "/session", Some(capabilities));
        browser.session = session["sessionId"].as_str().expect("a session id").to_string();
        Some(browser)
    }

    /// A WebDriver command; its `value`, or the test fails with the driver's error.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        match self.attempt(method, path, body) {
            Ok(value) => value,
            Err(error) => panic!("WebDriver {method} {path}: {error}"),
        }
    }

    /// A WebDriver command: `Ok(value)`, or `Err` with the driver's error.
    fn attempt(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, Value> {
        let path = path.replace("{s}", &self.session);
        let (status, text) = http(self.port, method, &path, body.map(|b| b.to_string()))
            .expect("chromedriver answers");
        let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        match status {
            200 => Ok(value["value"].clone()),
            _ => Err(value["value"].clone()),
        }
    }

    /// The WebDriver id of the first element `selector` finds.
    fn element(&self, selector: &str) -> String {
        let found = self.call(
            "POST",
            "/session/{s}/element",
            Some(json!({"using": "css selector", "value": selector})),
        );
        found
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .expect("an element id")
            .to_string()
    }

    fn open(&self, file: &Path) {
        self.call(
            "POST",
            "/session/{s}/url",
            Some(json!({"url": format!("file://{}", file.display())})),
        );
    }

    fn js(&self, script: &str) -> Value {
        self.call("POST", "/session/{s}/execute/sync", Some(json!({"script": script, "args": []})))
    }

    /// The browser's console since the last read: errors, and what a policy blocked.
    fn console(&self) -> Vec<Value> {
        let all = self.call("POST", "/session/{s}/se/log", Some(json!({"type": "browser"})));
        all.as_array().cloned().unwrap_or_default()
    }

    fn assert_quiet_console(&self, page: &str) {
        let errors: Vec<Value> =
            self.console().into_iter().filter(|e| e["level"] != "INFO").collect();
        assert!(errors.is_empty(), "{page}: the console says {errors:#?}");
    }

    /// No dialog is open: no script of the data's ran `alert`.
    fn assert_no_alert(&self, page: &str) {
        let alert = self.attempt("GET", "/session/{s}/alert/text", None);
        assert_eq!(
            alert.err().map(|e| e["error"].clone()),
            Some(json!("no such alert")),
            "{page}: an alert opened"
        );
    }

    fn scheme(&self, dark: bool) {
        let value = if dark { "dark" } else { "light" };
        let features = json!([{"name": "prefers-color-scheme", "value": value}]);
        let cdp = json!({"cmd": "Emulation.setEmulatedMedia", "params": {"features": features}});
        self.call("POST", "/session/{s}/goog/cdp/execute", Some(cdp));
    }

    /// The page's background, as its brightness from 0 (black) to 255 (white).
    fn background(&self) -> f64 {
        let rgb = self.js("return getComputedStyle(document.body).backgroundColor");
        let parts: Vec<f64> = rgb
            .as_str()
            .unwrap()
            .trim_start_matches("rgb(")
            .trim_end_matches(')')
            .split(',')
            .map(|p| p.trim().parse().unwrap())
            .collect();
        0.2126 * parts[0] + 0.7152 * parts[1] + 0.0722 * parts[2]
    }

    /// Both schemes apply: light by default, dark when the system asks for it.
    fn assert_schemes(&self, page: &str) {
        self.scheme(true);
        assert!(self.background() < 60.0, "{page}: dark background in the dark scheme");
        self.scheme(false);
        assert!(self.background() > 200.0, "{page}: light background in the light scheme");
    }

    /// At a phone's width nothing is wider than the screen.
    fn assert_fits(&self, width: u32, page: &str) {
        self.call("POST", "/session/{s}/window/rect", Some(json!({"width": width, "height": 800})));
        let wide = self.js(
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]",
        );
        let (scroll, client) = (wide[0].as_u64().unwrap(), wide[1].as_u64().unwrap());
        assert!(scroll <= client, "{page}: {scroll} px wide in a {client} px window");
        self.call("POST", "/session/{s}/window/rect", Some(json!({"width": 1200, "height": 900})));
    }

    /// Tab from the top of the page until `selector` has the focus, within `most` presses.
    fn assert_reachable_by_tab(&self, selector: &str, most: usize) {
        self.js("document.activeElement && document.activeElement.blur(); window.scrollTo(0,0)");
        let id = self.element("body");
        for _ in 0..most {
            let tab = json!({"text": "\u{E004}"});
            self.call("POST", &format!("/session/{{s}}/element/{id}/value"), Some(tab));
            let hit =
                self.js(&format!("return document.activeElement.matches({})", json!(selector)));
            if hit == json!(true) {
                return;
            }
        }
        panic!("{selector} is not reached with {most} presses of tab");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = http(self.port, "DELETE", &format!("/session/{}", self.session), None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// One HTTP/1.1 request to chromedriver: (status, body). The body is read by its length:
/// chromedriver keeps the connection open whatever the request asks.
fn http(
    port: u16,
    method: &str,
    path: &str,
    body: Option<String>,
) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let body = body.unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut reader = std::io::BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line)?;
    let status = status_line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        if line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut text = vec![0; length];
    reader.read_exact(&mut text)?;
    Ok((status, String::from_utf8_lossy(&text).into_owned()))
}

#[test]
fn both_pages_work_in_a_real_browser() {
    let Some(browser) = Browser::start() else { return };
    let ws = Workshop::lesson5();
    let cards = replay_page(&browser, &ws);
    hostile_replay_page(&browser, &ws);
    class_page(&browser, &ws);
    without_javascript(&browser, &ws, cards);
}

/// The replay page: every ticket, the starter beside the fix. Returns how many cards it has.
fn replay_page(browser: &Browser, ws: &Workshop) -> usize {
    let made = ws.run(&["watch", "--compare", "--html", "replay.html"]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let json = ws.run(&["watch", "--compare", "--format", "json"]).json();
    browser.open(&ws.path("replay.html"));
    browser.assert_quiet_console("replay page");
    assert_eq!(
        browser.js("return document.querySelectorAll('li.card').length"),
        json!(cards_of(&json))
    );
    assert_eq!(
        browser.js("return document.querySelectorAll('section.ticket').length"),
        json!(json.as_array().unwrap().len())
    );
    // An expander opens on a click, and shows the exact result.
    let first = "document.querySelector('details.result')";
    assert_eq!(browser.js(&format!("return {first}.open")), json!(false));
    let id = browser.element("details.result > summary");
    browser.call("POST", &format!("/session/{{s}}/element/{id}/click"), Some(json!({})));
    assert_eq!(browser.js(&format!("return {first}.open")), json!(true));
    assert!(
        browser.js(&format!("return {first}.querySelector('pre').offsetHeight")).as_u64().unwrap()
            > 0
    );
    // The script's control opens them all; the prediction's answer stays folded away.
    assert_eq!(
        browser.js("return document.getElementById('tools').hidden"),
        json!(false),
        "the script ran"
    );
    browser.js("document.getElementById('open-all').click()");
    assert_eq!(
        browser.js("return [...document.querySelectorAll('details.result')].every(d => d.open)"),
        json!(true)
    );
    assert_eq!(browser.js("return document.querySelector('details.answer').open"), json!(false));
    browser.assert_reachable_by_tab("details.result > summary", 10);
    browser.assert_schemes("replay page");
    browser.assert_fits(390, "replay page");
    browser.assert_quiet_console("replay page, after the clicks");

    cards_of(&json)
}

/// A hostile file name and hostile output stay text, and run nothing.
fn hostile_replay_page(browser: &Browser, ws: &Workshop) {
    let code = hostile_file(ws);
    let made =
        ws.run(&["watch", "--ticket", "old-order", "--code", &code, "--html", "hostile.html"]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    browser.open(&ws.path("hostile.html"));
    browser.assert_no_alert("hostile replay page");
    browser.assert_quiet_console("hostile replay page");
    assert_eq!(browser.js("return document.querySelectorAll('img, [onerror]').length"), json!(0));
    let text = browser.js("return document.body.innerText");
    assert!(text.as_str().unwrap().contains(HOSTILE), "the name reads as text");
    assert!(
        text.as_str().unwrap().contains("<script>alert('printed')</script>"),
        "the printed markup reads as text"
    );
}

/// The class page: a row per file that ran, the one that could not run, and the controls.
fn class_page(browser: &Browser, ws: &Workshop) {
    let folder = class(ws);
    // A name longer than its column is wide, in a folder that sorts first.
    let long = "class/a-folder-for-the-tuesday-group/messages_from_the_second_attempt.py";
    ws.write(long, &std::fs::read_to_string(crate::common::fixture("good_match.py")).unwrap());
    let graded = crate::common::run(crate::grade::command(
        ws,
        &["grade", folder, "--format", "html", "--sandbox", "none"],
    ));
    assert!(graded.stderr.contains("graded 6 files"), "{}", graded.stderr);
    ws.write("class.html", &graded.stdout);
    browser.open(&ws.path("class.html"));
    browser.assert_no_alert("class page");
    browser.assert_quiet_console("class page");
    assert_eq!(browser.js("return document.querySelectorAll('#files tbody tr').length"), json!(5));
    assert_eq!(browser.js("return document.querySelectorAll('#errors li').length"), json!(1));
    assert_eq!(browser.js("return document.querySelectorAll('img, [onerror]').length"), json!(0));
    let first_file = "return document.querySelector('#files tbody tr').getAttribute('data-file')";
    // Sorting by a column, from its header's button.
    browser.js("document.querySelector('th[data-sort=file] button').click()");
    assert_eq!(
        browser.js(first_file),
        json!(format!("class/{HOSTILE}.py")),
        "'<' sorts before letters"
    );
    browser.js("document.querySelector('th[data-sort=file] button').click()");
    assert_eq!(browser.js(first_file), json!("class/good_match.py"), "then descending");
    browser.js("document.querySelector('th[data-sort=score] button').click()");
    assert_eq!(browser.js(first_file), json!("class/bug_retry_always.py"), "lowest score first");
    // Filtering: the rows without the word hide.
    browser.js(
        "const f = document.getElementById('filter'); f.value = 'retry_always'; f.dispatchEvent(new Event('input'))",
    );
    assert_eq!(
        browser.js("return [...document.querySelectorAll('#files tbody tr')].filter(r => !r.hidden).length"),
        json!(1)
    );
    let shown = browser.js("return document.getElementById('shown').textContent");
    assert_eq!(shown, json!("1 of 5 files shown"));
    browser.assert_reachable_by_tab("#filter", 10);
    browser.assert_schemes("class page");
    browser.assert_fits(390, "class page");
    // A file's name breaks after a folder's slash if it must, never inside a name.
    let split = "return [...document.querySelectorAll('#files td.file code')]
        .flatMap(c => [...c.childNodes]).filter(n => n.nodeType === 3)
        .filter(n => { const r = document.createRange(); r.selectNodeContents(n);
            return r.getClientRects().length > 1; })
        .map(n => n.textContent)";
    for width in [390, 700, 1200] {
        let rect = json!({"width": width, "height": 800});
        browser.call("POST", "/session/{s}/window/rect", Some(rect));
        assert_eq!(browser.js(split), json!([]), "names broken inside at {width} px");
    }
    browser.assert_quiet_console("class page, after sorting and filtering");
}

/// Without JavaScript: every card is there, and the controls the script adds stay hidden.
fn without_javascript(browser: &Browser, ws: &Workshop, cards: usize) {
    let off = json!({"cmd": "Emulation.setScriptExecutionDisabled", "params": {"value": true}});
    browser.call("POST", "/session/{s}/goog/cdp/execute", Some(off));
    browser.open(&ws.path("replay.html"));
    let found = browser.call(
        "POST",
        "/session/{s}/elements",
        Some(json!({"using": "css selector", "value": "li.card"})),
    );
    assert_eq!(found.as_array().unwrap().len(), cards, "the cards without the script");
    let tools = browser.element("#tools");
    let shown = browser.call("GET", &format!("/session/{{s}}/element/{tools}/displayed"), None);
    assert_eq!(shown, json!(false), "no control that needs the script");
    browser.assert_quiet_console("replay page without JavaScript");
}
