//! The live model against a stand-in for the Messages API: a real HTTP/1.1 server on 127.0.0.1
//! in this test process, answering with the documented shapes (200, 429 with retry-after, 401, a
//! dropped connection). The client is the real one, in the real binary; nothing is mocked.

use crate::common::*;

use serde_json::{json, Value};

const OLD_ORDER: &str = "recordings/structured-errors/harness/old-order.jsonl";
/// Shaped like a real key, so the secret scan would catch it anywhere it leaked to.
const KEY: &str = "sk-ant-test-Zq8wX2mN5vB7cD1eF4gH6jK9";

#[test]
fn without_live_the_no_recording_card_says_live_would_ask() {
    let ws = Workshop::new();
    let file = "learners/changed_message.py";
    ws.copy_watch_fixture(file, file);
    let run = ws.run(&[
        "watch",
        "structured-errors",
        "--ticket",
        "old-order",
        "--code",
        file,
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let replay = run.json();
    let stop = replay["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "no_recording")
        .unwrap()
        .clone();
    let next = stop["next"].as_str().unwrap();
    assert!(next.contains("--live") && next.contains("ANTHROPIC_API_KEY"), "{next}");
    assert!(
        !ws.path("work/structured-errors/recordings").exists(),
        "nothing is kept without --live"
    );
}

#[test]
fn doctor_refuses_a_recording_holding_a_key_or_an_auth_header() {
    for (what, said) in [
        ("key", "shaped like an API key"),
        ("x-api-key", "x-api-key header"),
        ("authorization", "authorization header"),
    ] {
        let ws = Workshop::new();
        let mut lines: Vec<String> = ws.read(OLD_ORDER).lines().map(String::from).collect();
        let mut turn: Value = serde_json::from_str(&lines[0]).unwrap();
        match what {
            "key" => turn["response"]["content"][0]["text"] = json!(format!("here: {KEY}")),
            header => turn["headers"] = json!({ header: "Bearer abc" }),
        }
        lines[0] = turn.to_string();
        ws.write(OLD_ORDER, &(lines.join("\n") + "\n"));
        let run = ws.run(&["doctor", "structured-errors"]);
        // A recording that cannot be used is corrupt lesson data: exit 2.
        assert_eq!(run.code, 2, "{what}: {}\n{}", run.stdout, run.stderr);
        assert!(run.stdout.contains(&format!("{OLD_ORDER}:1")), "{what}: {}", run.stdout);
        assert!(run.stdout.contains(said), "{what}: {}", run.stdout);
        assert!(!run.stdout.contains(KEY), "the key itself is not repeated: {}", run.stdout);
        let watch = ws.run(&[
            "watch",
            "structured-errors",
            "--ticket",
            "old-order",
            "--code",
            "structured",
        ]);
        assert_eq!(watch.code, 2, "watch refuses it too: {}", watch.stdout);
        assert!(watch.stderr.contains(said), "{what}: {}", watch.stderr);
    }
}

#[cfg(not(feature = "live"))]
#[test]
fn live_in_a_build_without_the_client_says_how_to_build_it_in() {
    let ws = Workshop::new();
    let mut cmd = ws.command(&["watch", "structured-errors", "--ticket", "old-order", "--live"]);
    cmd.env("ANTHROPIC_API_KEY", KEY);
    let run = run(cmd);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("WORKSHOP_FEATURES=live ./workshop"), "{}", run.stderr);
}

#[cfg(feature = "live")]
mod with_the_client {
    use super::*;

    use std::collections::BTreeMap;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::path::Path;
    use std::sync::{Arc, Mutex};

    const OWN_OLD_ORDER: &str = "work/structured-errors/recordings/harness/old-order.jsonl";

    /// Every file under `dir`, with its bytes.
    fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    out.insert(
                        path.strip_prefix(dir).unwrap().display().to_string(),
                        std::fs::read(&path).unwrap(),
                    );
                }
            }
        }
        out
    }

    /// One request as the stand-in saw it.
    #[derive(Clone, Debug)]
    struct Seen {
        headers: BTreeMap<String, String>,
        body: String,
        /// When it arrived.
        at: std::time::Instant,
    }

    /// A key of another shape than Anthropic's (a gateway's token): only the key itself, not a
    /// pattern, can tell that a server echoed it.
    const GATEWAY_TOKEN: &str = "gw-live-Zq8wX2mN5vB7cD1eF4gH6jK9";
    /// Someone's key, not the caller's: only its shape gives it away.
    const OTHER_KEY: &str = "sk-ant-api03-SomeoneElsesKey0123456789";

    /// What the stand-in does with the next request.
    #[derive(Clone, Debug)]
    enum Act {
        /// Answer like the model would.
        Model,
        /// A status and a body with the API's error shape, and extra headers.
        Status(u16, &'static str, &'static str, Vec<(&'static str, &'static str)>),
        /// Read the request, then close the connection without a word.
        Drop,
        /// Read the request, then say nothing for 3 s before closing.
        Stall,
        /// Answer as the model, with the caller's key in the reply's text.
        EchoInText,
        /// Answer as the model, with the caller's key as the `request-id` header.
        EchoInRequestId,
        /// Answer as the model, naming itself so.
        ModelNamed(&'static str),
        /// Answer as the model, with text shaped like an Anthropic key (not the caller's).
        KeyShaped,
    }

    struct StandIn {
        base: String,
        seen: Arc<Mutex<Vec<Seen>>>,
    }

    impl StandIn {
        /// A server that does `first` in order, then answers as the model.
        fn start(first: Vec<Act>) -> StandIn {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let base = format!("http://{}", listener.local_addr().unwrap());
            let seen = Arc::new(Mutex::new(Vec::new()));
            let plan = Arc::new(Mutex::new(first));
            let log = seen.clone();
            std::thread::Builder::new()
                .name("stand-in".into())
                .spawn(move || {
                    for stream in listener.incoming().flatten() {
                        let (log, plan) = (log.clone(), plan.clone());
                        std::thread::Builder::new()
                            .spawn(move || serve(stream, &log, &plan))
                            .unwrap();
                    }
                })
                .unwrap();
            StandIn { base, seen }
        }

        fn seen(&self) -> Vec<Seen> {
            self.seen.lock().unwrap().clone()
        }

        /// The binary with the stand-in as the API, a key, and a private cache.
        fn command(&self, ws: &Workshop, cache: &Path, args: &[&str]) -> std::process::Command {
            self.command_with_key(ws, cache, args, KEY)
        }

        fn command_with_key(
            &self,
            ws: &Workshop,
            cache: &Path,
            args: &[&str],
            key: &str,
        ) -> std::process::Command {
            let mut cmd = ws.command(args);
            cmd.env("ANTHROPIC_BASE_URL", &self.base)
                .env("ANTHROPIC_API_KEY", key)
                .env("XDG_CACHE_HOME", cache)
                .env_remove("WORKSHOP_LIVE_MAX_REQUESTS");
            cmd
        }
    }

    /// HTTP/1.1 on one connection, request after request (the client keeps connections alive).
    fn serve(stream: TcpStream, log: &Mutex<Vec<Seen>>, plan: &Mutex<Vec<Act>>) {
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut out = stream;
        while let Some((headers, body)) = read_request(&mut reader) {
            let token = headers
                .get("authorization")
                .and_then(|a| a.strip_prefix("Bearer "))
                .unwrap_or("")
                .to_string();
            let number = {
                let mut log = log.lock().unwrap();
                log.push(Seen { headers, body: body.clone(), at: std::time::Instant::now() });
                log.len()
            };
            let act = {
                let mut plan = plan.lock().unwrap();
                if plan.is_empty() {
                    Act::Model
                } else {
                    plan.remove(0)
                }
            };
            let request: Value = serde_json::from_str(&body).unwrap();
            let Some(answer) = answer(act, &request, number, &token) else { return };
            if out.write_all(answer.as_bytes()).is_err() {
                return;
            }
        }
    }

    /// One request's headers (names in lower case) and body; `None` once the client has gone.
    fn read_request(
        reader: &mut BufReader<TcpStream>,
    ) -> Option<(BTreeMap<String, String>, String)> {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return None;
        }
        assert!(line.starts_with("POST /v1/messages HTTP/1.1"), "{line}");
        let mut headers = BTreeMap::new();
        loop {
            let mut h = String::new();
            reader.read_line(&mut h).unwrap();
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            let (name, value) = h.split_once(':').unwrap();
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_string());
        }
        let length: usize = headers.get("content-length").map_or(0, |v| v.parse().unwrap());
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        Some((headers, String::from_utf8(body).unwrap()))
    }

    /// The whole response `act` gives to the request numbered `number`; `None` to hang up.
    fn answer(act: Act, request: &Value, number: usize, token: &str) -> Option<String> {
        let mut request_id = format!("req_standin_{number}");
        let with_text = |text: String| {
            let mut reply = model_reply(request, number);
            reply["content"]
                .as_array_mut()
                .unwrap()
                .insert(0, json!({"type": "text", "text": text}));
            reply.to_string()
        };
        let (status, text, extra) = match act {
            Act::Drop => return None,
            Act::Stall => {
                std::thread::sleep(std::time::Duration::from_secs(3));
                return None;
            }
            Act::Status(status, kind, message, extra) => (
                status,
                json!({"type": "error", "error": {"type": kind, "message": message}}).to_string(),
                extra,
            ),
            Act::Model => (200, model_reply(request, number).to_string(), vec![]),
            Act::EchoInText => (200, with_text(format!("Your token is {token}.")), vec![]),
            Act::EchoInRequestId => {
                request_id = token.to_string();
                (200, model_reply(request, number).to_string(), vec![])
            }
            Act::KeyShaped => (200, with_text(format!("Try {OTHER_KEY}.")), vec![]),
            Act::ModelNamed(name) => {
                let mut reply = model_reply(request, number);
                reply["model"] = json!(name);
                (200, reply.to_string(), vec![])
            }
        };
        let mut head = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nrequest-id: {request_id}\r\n",
            text.len()
        );
        for (name, value) in extra {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        Some(head + &text)
    }

    /// A plausible model: on the customer's message it calls the refund tool with the order id
    /// it finds (or the lookup tool); after a tool result it replies in words.
    fn model_reply(request: &Value, number: usize) -> Value {
        let messages = request["messages"].as_array().unwrap();
        let tools: Vec<&str> = request["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        let mut content = vec![];
        if messages.len() == 1 {
            let text = messages[0]["content"].as_str().unwrap_or("");
            let id = text
                .split(|c: char| !c.is_ascii_alphanumeric())
                .find(|w| w.len() == 4 && w.chars().filter(char::is_ascii_digit).count() >= 2);
            let refund = tools.iter().find(|t| t.ends_with("process_refund"));
            let lookup = tools.iter().find(|t| t.ends_with("lookup_orders"));
            match (refund, id, lookup) {
                (Some(tool), Some(id), _) => {
                    content.push(json!({"type": "tool_use", "id": format!("toolu_standin_{number}"), "name": tool, "input": {"order_id": id}}))
                }
                (_, _, Some(tool)) => {
                    content.push(json!({"type": "tool_use", "id": format!("toolu_standin_{number}"), "name": tool, "input": {}}))
                }
                _ => {}
            }
        }
        let stop = if content.is_empty() {
            content.push(json!({"type": "text", "text": format!("Stand-in reply {number}.")}));
            "end_turn"
        } else {
            "tool_use"
        };
        json!({
            "id": format!("msg_standin_{number}"), "type": "message", "role": "assistant",
            "model": request["model"], "content": content, "stop_reason": stop, "stop_sequence": null,
            "usage": {"input_tokens": 400, "output_tokens": 40}
        })
    }

    /// Nothing the runs printed holds the key, and no file under the root or the cache does.
    fn key_is_nowhere(ws: &Workshop, cache: &Path, runs: &[&Run]) {
        secret_is_nowhere(ws, cache, runs, KEY);
    }

    fn secret_is_nowhere(ws: &Workshop, cache: &Path, runs: &[&Run], secret: &str) {
        for run in runs {
            assert!(!run.stdout.contains(secret), "{secret} printed: {}", run.stdout);
            assert!(!run.stderr.text().contains(secret), "{secret} printed: {}", run.stderr);
        }
        for dir in [ws.root(), cache, ws.home()] {
            for (name, bytes) in files(dir) {
                assert!(
                    !String::from_utf8_lossy(&bytes).contains(secret),
                    "{secret} is in {name} under {}",
                    dir.display()
                );
            }
        }
    }

    fn record_old_order(server: &StandIn, ws: &Workshop, cache: &Path, more: &[&str]) -> Run {
        let mut args = vec![
            "record",
            "structured-errors",
            "--live",
            "--ticket",
            "old-order",
            "--runtime",
            "harness",
        ];
        args.extend_from_slice(more);
        run(server.command(ws, cache, &args))
    }

    #[test]
    fn record_live_writes_live_turns_that_watch_then_replays_offline() {
        let ws = Workshop::new();
        let cache = tempdir();
        let server = StandIn::start(vec![]);
        let recorded = record_old_order(&server, &ws, cache.path(), &[]);
        assert_eq!(recorded.code, 0, "{}\n{}", recorded.stdout, recorded.stderr);
        // The starter, the fix and the no-category mistake: one shared first request, then one each.
        assert!(
            recorded.stdout.contains(&format!("wrote {OLD_ORDER} (4 turns, live)")),
            "{}",
            recorded.stdout
        );
        assert!(recorded.stdout.contains("4 requests sent to the API."), "{}", recorded.stdout);

        // The requests: authenticated and versioned as the official SDK does, with the
        // canonical request as the body, whose key is the recorded key.
        let seen = server.seen();
        assert_eq!(seen.len(), 4, "the shared first request is asked once");
        let turns: Vec<Value> =
            ws.read(OLD_ORDER).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(turns.len(), 4);
        for (i, (request, turn)) in seen.iter().zip(&turns).enumerate() {
            assert_eq!(request.headers["authorization"], format!("Bearer {KEY}"));
            assert_eq!(request.headers["anthropic-version"], "2026-10-21");
            assert_eq!(request.headers["content-type"], "application/json");
            assert!(!request.headers.contains_key("x-api-key"));
            let body: Value = serde_json::from_str(&request.body).unwrap();
            assert_eq!(
                request.body,
                workshop::testing::canonical(&body),
                "the body is canonical JSON"
            );
            assert_eq!(turn["key"], workshop::testing::key(&body));
            assert_eq!(turn["request"], body);
            let provenance = &turn["provenance"];
            assert_eq!(provenance["source"], "live");
            assert_eq!(provenance["model"], "claude-haiku-4-5");
            assert_eq!(provenance["request_id"], format!("req_standin_{}", i + 1));
            assert_eq!(provenance["date"].as_str().unwrap().len(), 10);
        }

        // Offline: no key, no server address; the live turns replay and say so.
        let watch = "watch structured-errors --ticket old-order --code starter --expand";
        let mut offline = ws.command(&watch.split(' ').collect::<Vec<_>>());
        offline
            .env("XDG_CACHE_HOME", cache.path())
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("ANTHROPIC_BASE_URL");
        let watched = run(offline);
        assert_eq!(watched.code, 0, "{}", watched.stderr);
        assert!(watched.stdout.contains("Stand-in reply"), "{}", watched.stdout);
        assert!(watched.stdout.contains("live · claude-haiku-4-5"), "{}", watched.stdout);
        assert!(!watched.stdout.contains("No recording"), "{}", watched.stdout);
        let watch = "watch structured-errors --ticket old-order --code structured --format json";
        let json = ws.run(&watch.split(' ').collect::<Vec<_>>());
        assert_eq!(json.code, 0, "{}", json.stderr);
        assert_eq!(
            json.json()["events"].as_array().unwrap().last().unwrap()["provenance"]["source"],
            "live"
        );
        assert_eq!(server.seen().len(), 4, "replays never ask");

        // doctor accepts live turns (the authored script's tool counts do not bind them).
        let doctor = ws.run(&["doctor", "structured-errors"]);
        assert_eq!(doctor.code, 0, "{}", doctor.stdout);
        key_is_nowhere(&ws, cache.path(), &[&recorded, &watched, &json, &doctor]);
    }

    #[test]
    fn a_429_is_retried_after_the_wait_it_asks_for() {
        let ws = Workshop::new();
        let cache = tempdir();
        let limited = Act::Status(429, "rate_limit_error", "slow down", vec![("retry-after", "1")]);
        let server = StandIn::start(vec![limited]);
        let recorded = record_old_order(&server, &ws, cache.path(), &[]);
        assert_eq!(recorded.code, 0, "{}\n{}", recorded.stdout, recorded.stderr);
        let seen = server.seen();
        assert_eq!(seen.len(), 5, "one 429, then the four requests");
        assert_eq!(seen[0].body, seen[1].body, "the same request again");
        assert_eq!(seen[0].headers["x-stainless-retry-count"], "0");
        assert_eq!(seen[1].headers["x-stainless-retry-count"], "1");
        // Not a speed test: a lower bound, which only a client that ignored the header misses.
        let waited = seen[1].at.duration_since(seen[0].at);
        assert!(
            waited >= std::time::Duration::from_millis(950),
            "asked to wait 1 s, waited {waited:?}"
        );
        assert_eq!(ws.read(OLD_ORDER).lines().count(), 4);
    }

    #[test]
    fn a_400_is_not_retried() {
        let ws = Workshop::new();
        let cache = tempdir();
        let server = StandIn::start(vec![Act::Status(
            400,
            "invalid_request_error",
            "messages: bad shape",
            vec![],
        )]);
        let recorded = record_old_order(&server, &ws, cache.path(), &[]);
        assert_eq!(recorded.code, 2, "{}", recorded.stdout);
        assert_eq!(server.seen().len(), 1, "the same request would be refused again");
        assert!(
            recorded.stderr.contains("400 invalid_request_error: messages: bad shape"),
            "{}",
            recorded.stderr
        );
    }

    #[test]
    fn a_wait_of_more_than_a_minute_is_refused_rather_than_slept() {
        let ws = Workshop::new();
        let cache = tempdir();
        let later = Act::Status(429, "rate_limit_error", "slow down", vec![("retry-after", "120")]);
        let server = StandIn::start(vec![later]);
        let recorded = record_old_order(&server, &ws, cache.path(), &[]);
        assert_eq!(recorded.code, 2, "{}", recorded.stdout);
        assert!(recorded.stderr.contains("asked to wait 120 s"), "{}", recorded.stderr);
        assert_eq!(server.seen().len(), 1);
    }

    #[test]
    fn a_reply_that_echoes_the_key_of_any_shape_is_never_written() {
        for echo in [Act::EchoInText, Act::EchoInRequestId] {
            let ws = Workshop::new();
            let cache = tempdir();
            let file = "learners/changed_message.py";
            ws.copy_watch_fixture(file, file);
            let server = StandIn::start(vec![echo.clone()]);
            let args = [
                "record",
                "structured-errors",
                "--live",
                "--ticket",
                "old-order",
                "--runtime",
                "harness",
            ];
            let recorded = run(server.command_with_key(&ws, cache.path(), &args, GATEWAY_TOKEN));
            assert_eq!(recorded.code, 2, "{echo:?}: {}", recorded.stdout);
            assert!(
                recorded.stderr.contains("holds the API key itself"),
                "{echo:?}: {}",
                recorded.stderr
            );
            let server = StandIn::start(vec![echo.clone()]);
            let args =
                ["watch", "structured-errors", "--ticket", "old-order", "--code", file, "--live"];
            let watched = run(server.command_with_key(&ws, cache.path(), &args, GATEWAY_TOKEN));
            assert_eq!(watched.code, 2, "{echo:?}: {}", watched.stdout);
            assert!(
                watched.stderr.contains("holds the API key itself"),
                "{echo:?}: {}",
                watched.stderr
            );
            assert!(!ws.path(OWN_OLD_ORDER).exists(), "{echo:?}: nothing kept");
            secret_is_nowhere(&ws, cache.path(), &[&recorded, &watched], GATEWAY_TOKEN);
        }
    }

    #[test]
    fn a_reply_holding_something_shaped_like_a_key_is_never_written() {
        let ws = Workshop::new();
        let cache = tempdir();
        let before = files(&ws.path("recordings"));
        let server = StandIn::start(vec![Act::KeyShaped]);
        let recorded = record_old_order(&server, &ws, cache.path(), &[]);
        assert_eq!(recorded.code, 2, "{}", recorded.stdout);
        assert!(recorded.stderr.contains("shaped like an API key"), "{}", recorded.stderr);
        assert_eq!(files(&ws.path("recordings")), before);
        secret_is_nowhere(&ws, cache.path(), &[&recorded], OTHER_KEY);
    }

    #[test]
    fn a_password_in_the_api_address_is_never_shown() {
        let ws = Workshop::new();
        let cache = tempdir();
        let closed = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        let server = StandIn {
            base: format!("http://learner:hunter2-secret@{closed}"),
            seen: Arc::default(),
        };
        let recorded = record_old_order(&server, &ws, cache.path(), &[]);
        assert_eq!(recorded.code, 2, "{}", recorded.stdout);
        assert!(
            recorded.stderr.contains(&format!("(http://learner:[redacted]@{closed})")),
            "{}",
            recorded.stderr
        );
        assert!(
            recorded.stdout.contains(&format!("at http://learner:[redacted]@{closed} ")),
            "{}",
            recorded.stdout
        );
        secret_is_nowhere(&ws, cache.path(), &[&recorded], "hunter2-secret");
    }

    #[test]
    fn a_model_name_with_escape_codes_is_shown_escaped_live_and_in_later_replays() {
        let ws = Workshop::new();
        let cache = tempdir();
        let file = "learners/changed_message.py";
        ws.copy_watch_fixture(file, file);
        let server = StandIn::start(vec![Act::ModelNamed("claude\u{1b}]0;owned\u{7}\u{1b}[2J")]);
        let args = [
            "watch",
            "structured-errors",
            "--ticket",
            "old-order",
            "--code",
            file,
            "--live",
            "--expand",
        ];
        let live = run(server.command(&ws, cache.path(), &args));
        let offline = ws.run(&[
            "watch",
            "structured-errors",
            "--ticket",
            "old-order",
            "--code",
            file,
            "--expand",
        ]);
        for (when, run) in [("live", &live), ("offline", &offline)] {
            assert_eq!(run.code, 0, "{when}: {}", run.stderr);
            assert!(
                !run.stdout.contains('\u{1b}') && !run.stdout.contains('\u{7}'),
                "{when}: raw escapes:\n{}",
                run.stdout
            );
            assert!(
                run.stdout.contains("claude\\x1b]0;owned\\x07\\x1b[2J"),
                "{when}: {}",
                run.stdout
            );
        }
    }

    #[test]
    fn watch_live_never_hands_the_key_to_the_learners_python() {
        let ws = Workshop::new();
        let cache = tempdir();
        let file = "learners/changed_message.py";
        ws.copy_watch_fixture(file, file);
        let noted = format!("{}\n{}", ENVIRONMENT_NOTE, ws.read(file));
        ws.write(file, &noted);
        let server = StandIn::start(vec![]);
        let args = [
            "watch",
            "structured-errors",
            "--ticket",
            "old-order",
            "--code",
            file,
            "--live",
            "--format",
            "json",
        ];
        let mut cmd = server.command(&ws, cache.path(), &args);
        cmd.env("GITHUB_TOKEN", "ghp_not_for_learners");
        let live = run(cmd);
        assert_eq!(live.code, 0, "{}", live.stderr);
        assert_only_the_allowed_environment(&ws.read(&format!("{file}.env")));
    }

    #[test]
    fn overloaded_three_times_gives_up_with_exit_2_and_the_recording_untouched() {
        let ws = Workshop::new();
        let cache = tempdir();
        let before = files(&ws.path("recordings"));
        let busy =
            || Act::Status(529, "overloaded_error", "Overloaded", vec![("retry-after-ms", "20")]);
        let server = StandIn::start(vec![busy(), busy(), busy()]);
        let recorded = record_old_order(&server, &ws, cache.path(), &[]);
        assert_eq!(recorded.code, 2, "{}", recorded.stdout);
        assert_eq!(server.seen().len(), 3, "2 retries at most, as the SDK");
        assert!(
            recorded.stderr.contains("after 3 attempts") && recorded.stderr.contains("overloaded"),
            "{}",
            recorded.stderr
        );
        assert!(recorded.stderr.contains("Nothing was written"), "{}", recorded.stderr);
        assert_eq!(files(&ws.path("recordings")), before);
    }

    #[test]
    fn a_401_ends_with_exit_2_naming_the_key_variable_and_the_recording_untouched() {
        let ws = Workshop::new();
        let cache = tempdir();
        let before = files(&ws.path("recordings"));
        let server = StandIn::start(vec![Act::Status(
            401,
            "authentication_error",
            &*Box::leak(format!("invalid key {KEY}").into_boxed_str()),
            vec![],
        )]);
        let recorded = record_old_order(&server, &ws, cache.path(), &[]);
        assert_eq!(recorded.code, 2, "{}", recorded.stdout);
        assert_eq!(server.seen().len(), 1, "a 401 is not retried");
        assert!(recorded.stderr.contains("ANTHROPIC_API_KEY"), "{}", recorded.stderr);
        assert!(recorded.stderr.contains("401 authentication_error"), "{}", recorded.stderr);
        assert!(
            recorded.stderr.contains("[redacted]"),
            "the echoed key is redacted: {}",
            recorded.stderr
        );
        assert_eq!(files(&ws.path("recordings")), before, "the recordings are as they were");
        key_is_nowhere(&ws, cache.path(), &[&recorded]);
    }

    #[test]
    fn a_dropped_connection_is_retried() {
        let ws = Workshop::new();
        let cache = tempdir();
        let server = StandIn::start(vec![Act::Drop]);
        let recorded = record_old_order(&server, &ws, cache.path(), &[]);
        assert_eq!(recorded.code, 0, "{}\n{}", recorded.stdout, recorded.stderr);
        let seen = server.seen();
        assert_eq!(seen.len(), 5, "the dropped request, then the four");
        assert_eq!(seen[0].body, seen[1].body);
    }

    #[test]
    fn a_request_past_its_time_limit_is_retried() {
        let ws = Workshop::new();
        let cache = tempdir();
        let server = StandIn::start(vec![Act::Stall]);
        let recorded = record_old_order(&server, &ws, cache.path(), &["--request-timeout", "1"]);
        assert_eq!(recorded.code, 0, "{}\n{}", recorded.stdout, recorded.stderr);
        let seen = server.seen();
        assert_eq!(seen.len(), 5, "the stalled request, then the four");
        assert_eq!(seen[0].body, seen[1].body);
    }

    #[test]
    fn an_unreachable_api_is_tried_three_times_then_named() {
        let ws = Workshop::new();
        let cache = tempdir();
        let closed = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        let before = files(&ws.path("recordings"));
        let server = StandIn { base: format!("http://{closed}"), seen: Arc::default() };
        let recorded = record_old_order(&server, &ws, cache.path(), &[]);
        assert_eq!(recorded.code, 2, "{}", recorded.stdout);
        assert!(recorded.stderr.contains("after 3 attempts"), "{}", recorded.stderr);
        assert!(
            recorded.stderr.contains(&format!("ANTHROPIC_BASE_URL (http://{closed})")),
            "{}",
            recorded.stderr
        );
        assert_eq!(files(&ws.path("recordings")), before);
        key_is_nowhere(&ws, cache.path(), &[&recorded]);
    }

    #[test]
    fn the_request_cap_stops_the_command_before_the_bill_grows() {
        let ws = Workshop::new();
        let cache = tempdir();
        let before = files(&ws.path("recordings"));
        let server = StandIn::start(vec![]);
        let recorded = record_old_order(&server, &ws, cache.path(), &["--max-requests", "2"]);
        assert_eq!(recorded.code, 2, "{}", recorded.stdout);
        assert_eq!(server.seen().len(), 2);
        assert!(recorded.stderr.contains("--max-requests"), "{}", recorded.stderr);
        assert_eq!(files(&ws.path("recordings")), before);
        // The variable sets it too.
        let mut cmd = server.command(
            &ws,
            cache.path(),
            &[
                "record",
                "structured-errors",
                "--live",
                "--ticket",
                "old-order",
                "--runtime",
                "harness",
            ],
        );
        cmd.env("WORKSHOP_LIVE_MAX_REQUESTS", "1");
        let by_env = run(cmd);
        assert_eq!(by_env.code, 2, "{}", by_env.stdout);
        assert!(by_env.stderr.contains("stopped after 1 requests"), "{}", by_env.stderr);
        assert_eq!(server.seen().len(), 3);
    }

    #[test]
    fn live_needs_a_key_and_the_lessons_model() {
        let ws = Workshop::new();
        let cache = tempdir();
        let server = StandIn::start(vec![]);
        let mut cmd = server.command(
            &ws,
            cache.path(),
            &["record", "structured-errors", "--live", "--ticket", "old-order"],
        );
        cmd.env_remove("ANTHROPIC_API_KEY");
        let no_key = run(cmd);
        assert_eq!(no_key.code, 2);
        assert!(no_key.stderr.contains("set ANTHROPIC_API_KEY"), "{}", no_key.stderr);
        let other = record_old_order(&server, &ws, cache.path(), &["--model", "claude-other"]);
        assert_eq!(other.code, 2);
        assert!(other.stderr.contains("agent.model"), "{}", other.stderr);
        let mut watch = server.command(
            &ws,
            cache.path(),
            &["watch", "structured-errors", "--ticket", "old-order", "--live"],
        );
        watch.env("ANTHROPIC_API_KEY", "  ");
        let blank = run(watch);
        assert_eq!(blank.code, 2);
        assert!(blank.stderr.contains("ANTHROPIC_API_KEY"), "{}", blank.stderr);
        assert!(server.seen().is_empty());
    }

    #[test]
    fn watch_live_asks_where_nobody_recorded_and_keeps_the_turn_under_work() {
        let ws = Workshop::new();
        let cache = tempdir();
        let file = "learners/changed_message.py";
        ws.copy_watch_fixture(file, file);
        let shipped = files(&ws.path("recordings"));
        let server = StandIn::start(vec![]);
        let args = [
            "watch",
            "structured-errors",
            "--ticket",
            "old-order",
            "--code",
            file,
            "--live",
            "--format",
            "json",
        ];
        let live = run(server.command(&ws, cache.path(), &args));
        assert_eq!(live.code, 0, "{}", live.stderr);
        let replay = live.json();
        let kinds: Vec<&str> = replay["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["customer", "tool_call", "attempt", "reply"], "{replay}");
        let reply = replay["events"].as_array().unwrap().last().unwrap();
        assert_eq!(reply["provenance"]["source"], "live");
        assert_eq!(reply["provenance"]["request_id"], "req_standin_1");
        assert_eq!(server.seen().len(), 1, "only the request nobody recorded is asked");
        // Kept as the learner's own; the shipped recordings are as they were.
        let kept: Vec<Value> =
            ws.read(OWN_OLD_ORDER).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0]["provenance"]["source"], "live");
        assert_eq!(files(&ws.path("recordings")), shipped);

        // Later, offline: the kept turn answers, and the cards say it was live.
        let mut offline = ws.command(&[
            "watch",
            "structured-errors",
            "--ticket",
            "old-order",
            "--code",
            file,
            "--expand",
        ]);
        offline.env("XDG_CACHE_HOME", cache.path()).env_remove("ANTHROPIC_API_KEY");
        let again = run(offline);
        assert_eq!(again.code, 0, "{}", again.stderr);
        assert!(again.stdout.contains("Stand-in reply 1."), "{}", again.stdout);
        assert!(again.stdout.contains("[live · claude-haiku-4-5"), "{}", again.stdout);
        assert!(!again.stdout.contains("No recording"), "{}", again.stdout);
        assert_eq!(server.seen().len(), 1);
        key_is_nowhere(&ws, cache.path(), &[&live, &again]);
    }

    #[test]
    fn watch_live_asks_about_the_learners_own_words_even_where_a_kind_would_answer() {
        let ws = Workshop::new();
        let cache = tempdir();
        let sentence = "Our order system had a fault on its side, so this lookup got no answer.";
        let fix = ws.read("lessons/tool-results/solution/results.py");
        let start = fix.find("CRASHED = (").unwrap();
        let end = start + fix[start..].find(")\n").unwrap() + 2;
        let mine = format!(
            "{}CRASHED = {}\n{}",
            &fix[..start],
            serde_json::to_string(sentence).unwrap(),
            &fix[end..]
        );
        ws.write("work/tool-results/results.py", &mine);
        let server = StandIn::start(vec![]);
        let args = [
            "watch",
            "tool-results",
            "--ticket",
            "crash-trace",
            "--code",
            "yours",
            "--live",
            "--format",
            "json",
        ];
        let live = run(server.command(&ws, cache.path(), &args));
        assert_eq!(live.code, 0, "{}", live.stderr);
        let replay = live.json();
        let reply = replay["events"].as_array().unwrap().last().unwrap();
        assert_eq!(reply["provenance"]["source"], "live", "{replay}");
        assert!(reply.get("by_kind").is_none(), "{reply}");
        let seen = server.seen();
        assert_eq!(seen.len(), 1, "only the request with the learner's words is asked");
        assert!(seen[0].body.contains(sentence), "the model is asked about the words themselves");

        // Offline later, the kept turn answers them exactly: no kind label.
        let mut offline =
            ws.command(&["watch", "tool-results", "--ticket", "crash-trace", "--code", "yours"]);
        offline.env("XDG_CACHE_HOME", cache.path()).env_remove("ANTHROPIC_API_KEY");
        let again = run(offline);
        assert!(again.stdout.contains("[live · claude-haiku-4-5"), "{}", again.stdout);
        assert!(!again.stdout.contains("By kind"), "{}", again.stdout);
    }

    #[test]
    fn watch_live_with_a_bad_key_exits_2_and_keeps_nothing() {
        let ws = Workshop::new();
        let cache = tempdir();
        let file = "learners/changed_message.py";
        ws.copy_watch_fixture(file, file);
        let server =
            StandIn::start(vec![Act::Status(403, "permission_error", "not allowed", vec![])]);
        let run = run(server.command(
            &ws,
            cache.path(),
            &["watch", "structured-errors", "--ticket", "old-order", "--code", file, "--live"],
        ));
        assert_eq!(run.code, 2, "{}", run.stdout);
        assert!(
            run.stderr.contains("ANTHROPIC_API_KEY") && run.stderr.contains("403"),
            "{}",
            run.stderr
        );
        assert!(!ws.path(OWN_OLD_ORDER).exists());
    }
}

#[test]
fn a_broken_kept_recording_says_it_is_the_learners_own() {
    let ws = Workshop::lesson5();
    ws.write("work/structured-errors/recordings/harness/old-order.jsonl", "not a recorded turn\n");
    let run = ws.run(&[
        "watch",
        "structured-errors",
        "--ticket",
        "old-order",
        "--code",
        "structured",
        "--no-anim",
    ]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("work/structured-errors/recordings/harness/old-order.jsonl:1"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("your own kept recording"), "{}", run.stderr);
    assert!(
        !run.stderr.contains("git checkout"),
        "git cannot restore a learner's own file: {}",
        run.stderr
    );
}
