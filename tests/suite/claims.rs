//! What a replay's cards and verdicts claim agrees with the run's record: a try the cap ended
//! says so and is never called retried, a no asked again until a try went through is told as
//! that, and a verdict is red exactly when the run did harm (the world's harms, a leak the
//! model read, a retry of a failure no retry can fix), in the terminal, the JSON and the page.

use crate::common::*;

use serde_json::Value;

const L7: &str = "confirm-and-degrade";
const L8: &str = "messages-that-help";

/// The replays of `lesson` with `code`, as JSON: one ticket's, or every ticket's.
fn json(ws: &Workshop, lesson: &str, code: &str, rt: &str, ticket: Option<&str>) -> Vec<Value> {
    let mut args = vec!["watch", lesson, "--code", code, "--runtime", rt];
    args.extend(["--format", "json"]);
    if let Some(t) = ticket {
        args.extend(["--ticket", t]);
    }
    let run = ws.run(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    match run.json() {
        Value::Array(runs) => runs,
        one => vec![one],
    }
}

/// The cards, wide enough that no headline wraps.
fn cards(ws: &Workshop, lesson: &str, ticket: &str, code: &str, rt: &str, more: &[&str]) -> String {
    let mut args = vec!["watch", lesson, "--ticket", ticket, "--code", code];
    args.extend(["--runtime", rt, "--no-anim"]);
    args.extend_from_slice(more);
    wide(ws, &args).stdout
}

fn wide(ws: &Workshop, args: &[&str]) -> Run {
    let mut cmd = ws.command(args);
    cmd.env("COLUMNS", "200");
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run
}

/// Each `Attempt N` card's headline, in order (on one line at this width).
fn headlines(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("Attempt "))
        .map(|rest| rest.split_once(char::is_whitespace).map_or("", |(_, h)| h).trim().to_string())
        .collect()
}

fn attempts(run: &Value) -> Vec<&Value> {
    run["events"].as_array().unwrap().iter().filter(|e| e["kind"] == "attempt").collect()
}

/// The tries after a run's last model turn that the record says no request carried on: the run
/// ended first (a loop of the learner's that returned, or a cap).
fn never_sent(run: &Value) -> Vec<&Value> {
    let events = run["events"].as_array().unwrap();
    let turn =
        |e: &Value| ["tool_call", "reply", "host_error"].contains(&e["kind"].as_str().unwrap());
    let last = events.iter().rposition(turn).unwrap_or(0);
    let after = &events[last..];
    after.iter().filter(|e| e["kind"] == "attempt" && e["received"]["got"] == "nothing").collect()
}

#[test]
fn a_try_the_cap_ended_says_so_and_is_never_called_retried() {
    let ws = Workshop::only(L8);
    let run = &json(&ws, L8, "solution", "harness", Some("alerts-stuck"))[0];
    let tries = attempts(run);
    // Both calls end at the cap: the third try of each is capped, not retried, and reported.
    let capped: Vec<&&Value> = tries.iter().filter(|a| a["capped"] == 3).collect();
    assert_eq!(capped.len(), 2, "{tries:?}");
    for a in &capped {
        let told = (a["retried"].as_bool(), a["tone"].as_str());
        assert_eq!(told, (Some(false), Some("reported")), "{a}");
    }
    let text = cards(&ws, L8, "alerts-stuck", "solution", "harness", &["--color", "never"]);
    let heads = headlines(&text);
    assert_eq!(heads.len(), 6, "{text}");
    for (head, a) in heads.iter().zip(&tries) {
        let says_capped = head.contains("the cap of 3 attempts was reached");
        assert_eq!(says_capped, a["capped"] == 3, "{head}: {a}");
        let says_retried = head.contains("retried") && !head.contains("not retried");
        assert_eq!(says_retried, a["retried"] == true, "{head}");
    }
    // --expand says why no retry followed, and so does the page.
    let expanded = cards(&ws, L8, "alerts-stuck", "solution", "harness", &["--expand"]);
    let ended = "the cap of 3 attempts ended the call here";
    assert_eq!(expanded.matches(ended).count(), 2, "{expanded}");
    let page = ["watch", L8, "--ticket", "alerts-stuck", "--code", "solution", "--html", "-"];
    let page = ws.run(&page);
    assert_eq!(page.code, 0, "{}", page.stderr);
    assert_eq!(page.stdout.matches("the cap of 3 attempts was reached").count(), 2);
    assert_eq!(page.stdout.matches("the cap of 3 attempts ended the call here").count(), 2);
    // The third tries are the only capped ones, and neither is called retried.
    assert_eq!(page.stdout.matches("retried, and a retry could help").count(), 4);
}

#[test]
fn a_no_asked_again_until_a_yes_is_told_by_what_the_retries_did() {
    let ws = Workshop::only(L7);
    let run = &json(&ws, L7, "starter", "harness", Some("restart-declined"))[0];
    let tones: Vec<&str> = attempts(run).iter().map(|a| a["tone"].as_str().unwrap()).collect();
    assert_eq!(tones, ["overturned", "overturned", "worked"]);
    assert_eq!(run["verdict"]["counts"]["overturned_retries"], 2, "{}", run["verdict"]);
    let text = cards(&ws, L7, "restart-declined", "starter", "harness", &[]);
    assert!(!text.contains("cannot change"), "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let changed = "the answer changed only because it was asked again";
    assert_eq!(flat.matches(changed).count(), 2, "{text}");
    let verdict = "a failure no retry can fix was tried again until a try went through";
    assert!(flat.contains(verdict), "{text}");
    // In the sdk runtime the model asked once more and the no came back: told as that.
    let sdk = cards(&ws, L7, "restart-declined", "starter", "sdk", &[]);
    let flat = sdk.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("failed, retried: the same failure came back"), "{sdk}");
    assert!(!flat.contains("cannot change"), "{sdk}");
}

#[test]
fn a_verdict_is_red_when_the_model_read_a_leak_in_the_terminal_the_json_and_the_page() {
    let ws = Workshop::only(L8);
    for run in json(&ws, L8, "starter", "harness", None) {
        let v = &run["verdict"];
        assert!(v["counts"]["leaks"].as_u64().unwrap() >= 1, "{v}");
        assert_eq!((v["tone"].as_str(), v["harmed"].as_bool()), (Some("bad"), Some(true)), "{v}");
    }
    let page = ws.run(&["watch", L8, "--code", "starter", "--html", "-"]);
    assert_eq!(page.code, 0, "{}", page.stderr);
    assert_eq!(page.stdout.matches("class=\"verdict bad\"").count(), 5);
    assert!(!page.stdout.contains("class=\"verdict good\""));
    let coloured = ws.run(&["watch", L8, "--code", "starter", "--no-anim", "--color", "always"]);
    assert_eq!(verdict_colours(&coloured.stdout), ["bad"; 5], "{}", coloured.stdout);
}

/// The ANSI colour a verdict label is painted in, per replayed ticket, from `--color always`.
fn verdict_colours(text: &str) -> Vec<&'static str> {
    text.lines()
        .filter(|l| l.contains("Verdict"))
        .map(|l| {
            let before = &l[..l.find("Verdict").unwrap()];
            if before.contains("\x1b[31") {
                "bad"
            } else if before.contains("\x1b[33") {
                "warn"
            } else if before.contains("\x1b[32") {
                "good"
            } else {
                "plain"
            }
        })
        .collect()
}

/// A lesson's codes to replay, from its folder: the starter, the solution and every mistake
/// file (the manifest's named mistakes are among them), by path.
fn codes_of(lesson: &str) -> Vec<String> {
    let dir = repo().join("lessons").join(lesson).join("mistakes");
    let file = |e: std::fs::DirEntry| e.file_name().to_string_lossy().into_owned();
    let mut mistakes: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| d.map(|e| format!("lessons/{lesson}/mistakes/{}", file(e.unwrap()))).collect())
        .unwrap_or_default();
    mistakes.sort();
    ["starter".to_string(), "solution".to_string()].into_iter().chain(mistakes).collect()
}

/// The runtimes any of a lesson's tickets replays in, from its manifest.
fn runtimes_of(lesson: &str) -> Vec<&'static str> {
    let path = repo().join("lessons").join(lesson).join("lesson.toml");
    let manifest: toml::Value = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let tickets = manifest["tickets"].as_array().unwrap();
    let names = |t: &toml::Value, rt: &str| {
        let listed = t.get("runtimes").map(|l| l.as_array().unwrap());
        listed.is_none_or(|l| l.iter().any(|r| r.as_str() == Some(rt)))
    };
    ["harness", "sdk"].into_iter().filter(|rt| tickets.iter().any(|t| names(t, rt))).collect()
}

/// Every lesson of the course, from the repository's lessons folder.
fn lessons() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(repo().join("lessons"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("lesson.toml").is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// Text without its ANSI colours.
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let end = tail.find('m').map_or(tail.len(), |m| m + 1);
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// One replay's claims against its record: each attempt card's headline (retried, capped,
/// reported, no result sent) against the attempt's judgement and what the model received; each
/// reply by kind that says it names a fact against the facts the model read, in their roles;
/// the verdict's colour (terminal and page) against its harms, and a note's "Gain:" or
/// "Harm:" against that colour.
fn claims_agree(at: &str, runtime: &str, runs: &[Value], coloured: &str, page: &str) -> usize {
    headlines_agree(at, runtime, runs, coloured);
    let claims = by_kind_agrees(at, runs);
    verdicts_agree(at, runs, coloured, page);
    claims
}

/// Each attempt card's headline against the attempt's judgement and what the model received.
fn headlines_agree(at: &str, runtime: &str, runs: &[Value], coloured: &str) {
    let heads = headlines(&plain(coloured));
    let tries: Vec<&Value> = runs.iter().flat_map(attempts).collect();
    // The tries after a run's last model turn whose results no request carried on: a loop of the
    // learner's that returned, or was capped, before it sent them.
    let unsent: Vec<&Value> = runs.iter().flat_map(never_sent).collect();
    assert_eq!(heads.len(), tries.len(), "{at}: {}", plain(coloured));
    for (head, a) in heads.iter().zip(&tries) {
        let at = format!("{at}: {head} / {a}");
        let retried = a["retried"] == true;
        let retry_words = ["✗ failed: retried", "✗ failed, retried"];
        let says_retried = retry_words.iter().any(|w| head.starts_with(w));
        let says_retried = says_retried || head.contains("so it was tried again");
        assert_eq!(says_retried, retried, "retried, {at}");
        let capped = a["capped"].as_u64().filter(|_| !retried);
        assert_eq!(head.contains("attempts was reached"), capped.is_some(), "capped, {at}");
        if let Some(cap) = capped {
            assert!(head.contains(&format!("the cap of {cap} attempts")), "{at}");
        }
        let reported = a["tone"] == "reported";
        assert_eq!(head.contains("reported and not retried"), reported, "reported, {at}");
        assert!(!head.contains("cannot change"), "{at}");
        // What the card says went back is what the record says the model received.
        let got = a["received"]["got"].as_str();
        if a["tone"] == "dropped" {
            assert_eq!(got, Some("refused"), "a dropped result was refused, {at}");
        }
        if retried && runtime == "harness" && a.get("read_of").is_none() {
            assert_eq!(got, Some("nothing"), "a try the harness repeated never went back, {at}");
        }
        if a["tone"] == "reported" && !unsent.iter().any(|u| std::ptr::eq(*u, *a)) {
            assert!(matches!(got, Some("result" | "refused")), "a reported try went back, {at}");
        }
    }
}

/// A reply by kind's claims against what the model read: each property the card claims held on
/// the very message the model read (the record's `has`, read with the world's facts), in the
/// same words; a kind told in words of its own that says it names a fact: the model read that
/// fact, in a role.
fn by_kind_agrees(at: &str, runs: &[Value]) -> usize {
    let mut checked = 0;
    for run in runs {
        let events = run["events"].as_array().unwrap();
        for (i, event) in events.iter().enumerate() {
            for swap in event["by_kind"].as_array().into_iter().flatten() {
                let says = swap["says"].as_str().unwrap_or("");
                let claims = swap["claims"].as_array().map(Vec::as_slice).unwrap_or_default();
                if !claims.is_empty() {
                    let read = read_before(&events[..i], swap["sent"].as_str().unwrap());
                    let read = read.unwrap_or_else(|| panic!("{at}: '{says}' for no attempt"));
                    let had = read["has"].as_array().map(Vec::as_slice).unwrap_or_default();
                    for claim in claims {
                        let found = had.iter().find(|h| h["property"] == claim["property"]);
                        let found = found.unwrap_or_else(|| panic!("{at}: {claim} not in {read}"));
                        assert_eq!(found["says"], claim["says"], "{at}: {claim} / {found}");
                        assert!(says.contains(claim["says"].as_str().unwrap()), "{at}: {says}");
                        checked += 1;
                    }
                    continue;
                }
                if !says.starts_with("it names") {
                    continue;
                }
                let named: Vec<&Value> = events[..i]
                    .iter()
                    .rev()
                    .filter(|e| e["kind"] == "attempt")
                    .filter_map(|e| e["received"]["names"].as_array())
                    .flatten()
                    .collect();
                let claimed: Vec<&&Value> =
                    named.iter().filter(|n| says.contains(n["value"].as_str().unwrap())).collect();
                let none = "but the model read none of it";
                assert!(!claimed.is_empty(), "{at}: '{says}' {none}: {named:?}");
                for n in claimed {
                    assert!(n["role"].is_string(), "{at}: '{says}' names {n} in no role");
                    checked += 1;
                }
            }
        }
    }
    checked
}

/// What the model received, as recorded, for the last attempt before a reply whose block held
/// `sent` (the words a reply by kind was given for).
fn read_before<'e>(events: &'e [Value], sent: &str) -> Option<&'e Value> {
    let text = |r: &Value| match &r["block"]["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let texts = parts.iter().filter_map(|p| p["text"].as_str());
            texts.collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    };
    let attempts = events.iter().rev().filter(|e| e["kind"] == "attempt");
    attempts.map(|e| &e["received"]).find(|r| r["got"] == "result" && text(r) == sent)
}

/// Whether the model's last word on some call (the last try of a tool with an input) was a
/// failure it read as a bare line or unflagged, from the run's record.
fn last_word_misread(run: &Value) -> bool {
    let events = run["events"].as_array().unwrap();
    let key_of = |id: &Value| {
        let call = events.iter().find(|e| e["kind"] == "tool_call" && e["id"] == *id);
        call.map(|c| (c["tool"].clone(), c["input"].clone()))
    };
    let mut last: Vec<((Value, Value), bool)> = Vec::new();
    for a in events.iter().filter(|e| e["kind"] == "attempt" && e.get("read_of").is_none()) {
        let Some(key) = key_of(&a["tool_use_id"]) else { continue };
        let r = &a["received"];
        let read = r["got"] == "result" && r["failure"] == true;
        let misread = read && (r["bare"] == true || r["flagged"] == false);
        last.retain(|(k, _)| *k != key);
        last.push((key, misread));
    }
    last.iter().any(|(_, misread)| *misread)
}

/// The verdict's colour (terminal and page) against its harms, and a note's "Gain:" or
/// "Harm:" against that colour.
fn verdicts_agree(at: &str, runs: &[Value], coloured: &str, page: &str) {
    let colours = verdict_colours(coloured);
    let class = |at: usize| page[at..].split('"').next().unwrap();
    let found = page.match_indices("class=\"verdict ");
    let classes: Vec<&str> = found.map(|(at, m)| class(at + m.len())).collect();
    assert_eq!((colours.len(), classes.len()), (runs.len(), runs.len()), "{at}");
    for ((run, colour), class) in runs.iter().zip(&colours).zip(&classes) {
        let v = &run["verdict"];
        let at = format!("{at} {}: {v}", run["ticket"]);
        let counts = &v["counts"];
        let more = |key: &str| counts[key].as_u64() > Some(0);
        let misread = last_word_misread(run);
        let world_harms = v["harms"].as_array().is_some_and(|h| !h.is_empty());
        let refused = v["stopped"] == "api_error" || v["stopped"] == "rpc_ended";
        let repeated = more("wasted_retries") || more("overturned_retries");
        let harm = world_harms || more("leaks") || repeated || misread || refused;
        assert_eq!(v["harmed"].as_bool(), Some(harm), "{at}");
        let want = match v["stopped"].as_str() {
            Some("code_error" | "api_error") => "bad",
            _ if harm => "bad",
            Some(_) => "warn",
            None => "good",
        };
        assert_eq!((v["tone"].as_str(), *colour, *class), (Some(want), want, want), "{at}");
        // A note that says "Gain" is drawn green and one that says "Harm" red, as the run was.
        let note = v["note"].as_str().unwrap_or("");
        if note.starts_with("Harm:") {
            assert_eq!(want, "bad", "a harm drawn {want}: {at}");
        }
        if note.starts_with("Gain:") {
            assert_eq!(want, "good", "a gain drawn {want}: {at}");
        }
        // Nothing is said to be explained when the model read nothing of what happened.
        if more("model_read_bare") {
            assert!(!v["text"].as_str().unwrap().contains("explained the result"), "{at}");
        }
    }
}

/// Every lesson, each runtime its tickets replay in and each file `codes` names for it: the
/// replays a table below runs, as (lesson, runtime, code).
fn replays(codes: fn(&str) -> Vec<String>) -> Vec<(String, &'static str, String)> {
    let mut each = Vec::new();
    for lesson in lessons() {
        let files = codes(&lesson);
        for runtime in runtimes_of(&lesson) {
            each.extend(files.iter().map(|code| (lesson.clone(), runtime, code.clone())));
        }
    }
    each
}

/// Every lesson, every runtime its tickets replay in, the starter, the solution and every
/// mistake file: each card's claims agree with the run's record, event by event. One loop over
/// the lessons as their folders and manifests list them.
#[test]
fn every_card_and_verdict_of_every_lesson_agrees_with_the_runs_record() {
    let ws = Workshop::new();
    let each = replays(codes_of);
    let replayed: usize = map_at_once(&each, |(lesson, runtime, code)| {
        let all = ["watch", lesson.as_str(), "--code", code.as_str(), "--runtime", runtime];
        let runs = json(&ws, lesson, code, runtime, None);
        let colour = wide(&ws, &[&all[..], &["--no-anim", "--color", "always"]].concat());
        let page = ws.run(&[&all[..], &["--html", "-"]].concat());
        assert_eq!(page.code, 0, "{}", page.stderr);
        let at = format!("{lesson} {runtime} {code}");
        claims_agree(&at, runtime, &runs, &colour.stdout, &page.stdout);
        runs.len()
    })
    .into_iter()
    .sum();
    assert!(replayed >= 100, "only {replayed} replays: are the lessons found?");
}

/// A lesson's learner files written in words of their own (`tests/fixtures/<lesson>/good_*.py`),
/// which replay by kind.
fn own_words_of(lesson: &str) -> Vec<String> {
    let dir = repo().join("tests/fixtures").join(lesson);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    let names = entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned());
    let mut good: Vec<String> =
        names.filter(|n| n.starts_with("good_") && n.ends_with(".py")).collect();
    good.sort();
    good.into_iter().map(|n| dir.join(n).display().to_string()).collect()
}

/// Every lesson's learner files in words of their own, in every runtime: each reply by kind
/// claims only properties that held on the message the model read (the run's record), in the
/// same words, and every other card and verdict agrees with the record as above.
#[test]
fn every_reply_by_kind_claims_only_what_the_model_read() {
    let ws = Workshop::new();
    let each = replays(own_words_of);
    let claims: usize = map_at_once(&each, |(lesson, runtime, code)| {
        let all = ["watch", lesson.as_str(), "--code", code.as_str(), "--runtime", runtime];
        let run = ws.run(&[&all[..], &["--format", "json"]].concat());
        if run.code != 0 {
            return 0; // a file made for another runtime's tickets, or for a check only
        }
        let runs = match run.json() {
            Value::Array(runs) => runs,
            one => vec![one],
        };
        let colour = wide(&ws, &[&all[..], &["--no-anim", "--color", "always"]].concat());
        let page = ws.run(&[&all[..], &["--html", "-"]].concat());
        assert_eq!(page.code, 0, "{}", page.stderr);
        let at = format!("{lesson} {runtime} {code}");
        claims_agree(&at, runtime, &runs, &colour.stdout, &page.stdout)
    })
    .into_iter()
    .sum();
    assert!(claims >= 50, "only {claims} claims checked: do the good_ files replay by kind?");
}

#[test]
fn a_reply_by_kind_is_told_once_on_the_first_turn_that_depended_on_it() {
    let ws = Workshop::only(L8);
    let file = repo().join("tests/fixtures/messages-that-help/good_plain.py");
    let file = file.to_str().unwrap();
    for ticket in ["alerts-stuck", "payment-namespace"] {
        let text = cards(&ws, L8, ticket, file, "harness", &["--color", "never"]);
        assert_eq!(text.matches("By kind").count(), 1, "{ticket}: {text}");
        let run = &json(&ws, L8, file, "harness", Some(ticket))[0];
        let events = run["events"].as_array().unwrap();
        let swaps = events.iter().filter_map(|e| e["by_kind"].as_array()).map(Vec::len);
        let swaps: usize = swaps.sum();
        assert_eq!(swaps, 1, "{ticket}: {run}");
    }
}

#[test]
fn a_failed_checks_words_come_before_the_value_it_returned() {
    let ws = Workshop::only(L8);
    let file = repo().join("tests/fixtures/messages-that-help/code_kept.py");
    let run = ws.run(&["check", L8, "--file", file.to_str().unwrap(), "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = run.json();
    let checks = report["checks"].as_array().unwrap();
    let failed = checks.iter().find(|c| c["status"] == "fail").unwrap();
    let message = failed["message"].as_str().unwrap();
    assert!(message.starts_with("must not be a string containing 'E-ROLL-"), "{message}");
    let value = "; message returned 'The restart stopped part way";
    assert!(message.contains(value) && message.len() < 160, "{message}");
}

#[test]
fn expanded_json_wraps_between_tokens_never_inside_one() {
    let ws = Workshop::only(L7);
    // At the usual width, where the encoded result must wrap.
    let args = ["watch", L7, "--ticket", "metrics-down", "--code", "solution"];
    let args = [&args[..], &["--no-anim", "--expand"]].concat();
    let mut cmd = ws.command(&args);
    cmd.env("COLUMNS", "80");
    let run = run(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = run.stdout;
    for token in ["\\\"figures\\\":", "\\\"error_rate_percent\\\":", "\\\"age_minutes\\\":"] {
        assert!(text.contains(token), "{token} is cut: {text}");
    }
}

#[test]
fn a_card_names_cached_figures_only_where_the_failure_carries_them() {
    let ws = Workshop::course(&[L7, L8]);
    for code in ["starter", "solution", "no-fix", "retry-all", "no-retry"] {
        let text = cards(&ws, L8, "metrics-down", code, "harness", &["--color", "never"]);
        assert!(!text.contains("cached at"), "{code}: {text}");
        let down = "The metrics service is down for maintenance until 15:30.";
        assert!(text.contains(down), "{code}: {text}");
    }
    let text = cards(&ws, L7, "metrics-down", "solution", "harness", &["--color", "never"]);
    assert!(text.contains("it offered figures cached at 13:52"), "{text}");
}

/// The runs whose notes said "Harm:" under a green verdict: each is red now, for what happened
/// (the world's harm, or what the model read), in the JSON and the page.
#[test]
fn a_harm_the_run_did_is_drawn_red_whatever_its_counts_of_retries() {
    let ws = Workshop::course(&["tool-results", "structured-errors", L8]);
    let bare_fix = "lessons/tool-results/mistakes/invalid_as_crash.py";
    for (lesson, ticket, code, why) in [
        (L8, "payment-namespace", "no-fix", "calls named something that does not exist"),
        (L8, "alerts-reset", "no-retry", "the next read would have come through"),
        ("structured-errors", "coordinator", "starter", "came back with nothing that says"),
        ("tool-results", "hash-ids", bare_fix, "came back with nothing that says"),
    ] {
        let run = &json(&ws, lesson, code, "harness", Some(ticket))[0];
        let v = &run["verdict"];
        assert!(v["note"].as_str().unwrap().starts_with("Harm:"), "{v}");
        assert_eq!((v["tone"].as_str(), v["harmed"].as_bool()), (Some("bad"), Some(true)), "{v}");
        assert!(v["text"].as_str().unwrap().contains(why), "{ticket}: {v}");
        let page = ws.run(&["watch", lesson, "--ticket", ticket, "--code", code, "--html", "-"]);
        assert!(page.stdout.contains("class=\"verdict bad\""), "{ticket}");
    }
}
