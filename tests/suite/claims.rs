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

/// Lessons 7 and 8, every runtime their tickets replay in, the starter, the solution and every
/// named mistake: each attempt card's retried and capped claims agree with the run's record,
/// event by event, and each verdict's colour (terminal and page) with its harms.
#[test]
fn every_card_and_verdict_of_lessons_7_and_8_agrees_with_the_runs_record() {
    let ws = Workshop::course(&[L7, L8]);
    for (lesson, runtimes, mistakes) in [
        (L7, &["harness", "sdk"][..], &["asks-again", "flag-says-retry", "no-fallback"][..]),
        // Lesson 8's tickets replay in the harness only (its [agent] says why).
        (L8, &["harness"][..], &["no-fix", "retry-all", "no-retry"][..]),
    ] {
        let codes: Vec<&str> = ["starter", "solution"].iter().chain(mistakes).copied().collect();
        for runtime in runtimes {
            for code in &codes {
                let runs = json(&ws, lesson, code, runtime, None);
                let all = ["watch", lesson, "--code", code, "--runtime", runtime, "--no-anim"];
                let plain = wide(&ws, &[&all[..], &["--color", "never"]].concat());
                let colour = wide(&ws, &[&all[..], &["--color", "always"]].concat());
                let page = ws.run(&[&all[..], &["--html", "-"]].concat());
                let classes: Vec<&str> = page
                    .stdout
                    .match_indices("class=\"verdict ")
                    .map(|(at, m)| page.stdout[at + m.len()..].split('"').next().unwrap())
                    .collect();
                let heads = headlines(&plain.stdout);
                let tries: Vec<&Value> = runs.iter().flat_map(attempts).collect();
                assert_eq!(heads.len(), tries.len(), "{lesson} {runtime} {code}: {}", plain.stdout);
                for (head, a) in heads.iter().zip(&tries) {
                    let at = format!("{lesson} {runtime} {code}: {head} / {a}");
                    let retried = a["retried"] == true;
                    // "retried" is said only of a try that was retried, and of every one.
                    let retry_words = ["✗ failed: retried", "✗ failed, retried"];
                    let says_retried = retry_words.iter().any(|w| head.starts_with(w));
                    assert_eq!(says_retried, retried, "{at}");
                    let capped = a["capped"].as_u64().filter(|_| !retried);
                    let says_cap = head.contains("attempts was reached");
                    assert_eq!(says_cap, capped.is_some(), "{at}");
                    if let Some(cap) = capped {
                        assert!(head.contains(&format!("the cap of {cap} attempts")), "{at}");
                    }
                    assert!(!head.contains("cannot change"), "{at}");
                }
                let colours = verdict_colours(&colour.stdout);
                assert_eq!(colours.len(), runs.len(), "{lesson} {runtime} {code}");
                assert_eq!(classes.len(), runs.len(), "{lesson} {runtime} {code}");
                for ((run, colour), class) in runs.iter().zip(&colours).zip(&classes) {
                    let v = &run["verdict"];
                    let at = format!("{lesson} {runtime} {code} {}: {v}", run["ticket"]);
                    let counts = &v["counts"];
                    let world_harms = v["harms"].as_array().is_some_and(|h| !h.is_empty());
                    let harm = world_harms
                        || counts["leaks"].as_u64() > Some(0)
                        || counts["wasted_retries"].as_u64() > Some(0)
                        || counts["overturned_retries"].as_u64() > Some(0);
                    assert_eq!(v["harmed"].as_bool(), Some(harm), "{at}");
                    let want = match v["stopped"].as_str() {
                        Some("code_error") => "bad",
                        Some(_) => "warn",
                        None if harm => "bad",
                        None => "good",
                    };
                    let drawn = (v["tone"].as_str(), *colour, *class);
                    assert_eq!(drawn, (Some(want), want, want), "{at}");
                }
            }
        }
    }
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
