//! The page of a replay: each ticket's run as the cards tell it (the same events, the same
//! words), one list item per event, the exact JSON behind a call or a result in an expander, two
//! runs side by side from the event where they split, the verdict and the lesson's note, the
//! provenance of every model turn, and a ticket's question with its answer folded away.

use std::fmt::Write as _;

use serde_json::Value;

use super::{esc, json_block};
use crate::render::cards;
use crate::replay::events::{Event, Run, Told, Tone, Verdict, VerdictTone};

/// A ticket's question before its replay, as the player asks it, with the answer the run bears
/// out; drawn with the answer folded away until the reader opens it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PageQuestion {
    pub ask: String,
    /// What the reader knows about the code and runtime before guessing.
    pub context: String,
    pub choices: Vec<String>,
    /// The choice the run bears out.
    pub answer: String,
    /// The code whose run the question is about.
    pub about: String,
}

/// One ticket: its runs (one, or two compared), where two split, and its question.
pub(crate) struct TicketPage<'a> {
    pub runs: &'a [Run],
    pub split: Option<usize>,
    pub question: Option<PageQuestion>,
}

/// The whole replay.
pub(crate) struct Page<'a> {
    pub lesson: &'a str,
    pub title: &'a str,
    /// Whose run stands beside the starter's, when the comparison was chosen for the reader.
    pub note: Option<&'a str>,
    pub tickets: Vec<TicketPage<'a>>,
}

const STYLE: &str = r#"
nav ul{list-style:none;padding:0;margin:.5rem 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.ticket{border-top:1px solid var(--line);margin-top:1.5rem}
.meta{margin:.25rem 0;overflow-wrap:anywhere}
.cards{list-style:none;padding:0;margin:.75rem 0}
.card{display:grid;grid-template-columns:8.5rem minmax(0,1fr);gap:.1rem 1rem;padding:.45rem .6rem;margin:.3rem 0;background:var(--card);border:1px solid var(--line);border-left:4px solid var(--line);border-radius:4px}
.card.sub{margin-left:1.5rem}
.card>.label{font-weight:600}
.card>.body{min-width:0}
.card.good{border-left-color:var(--good)}.card.warn{border-left-color:var(--warn)}.card.bad{border-left-color:var(--bad)}
.card.good>.label{color:var(--good)}.card.warn>.label{color:var(--warn)}.card.bad>.label{color:var(--bad)}
.prov{display:inline-block;font-size:.8rem;padding:0 .4rem;border:1px solid var(--line);border-radius:3px;color:var(--dim);margin-left:.4rem}
.verdict{display:grid;grid-template-columns:8.5rem minmax(0,1fr);gap:.1rem 1rem;padding:.6rem;border:2px solid var(--line);border-radius:4px;margin:.5rem 0 1rem}
.verdict.good{border-color:var(--good)}.verdict.warn{border-color:var(--warn)}.verdict.bad{border-color:var(--bad)}
.verdict>.label{font-weight:700}
.split{text-align:center;color:var(--warn);font-weight:600;border-top:2px dashed var(--warn);padding-top:.25rem;margin:1rem 0}
.runs{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:1rem}
.run{min-width:0}
.predict{border:1px dashed var(--warn);border-radius:4px;padding:.5rem .75rem;margin:.75rem 0}
.predict p{margin:.25rem 0}
.diff .add{color:var(--good)}.diff .del{color:var(--bad)}
details{margin:.25rem 0}
.card dl{margin:0;display:grid;grid-template-columns:max-content minmax(0,1fr);gap:0 .75rem}
.card dt{font-weight:600}.card dd{margin:0;overflow-wrap:anywhere}
@media (max-width:48rem){.runs{grid-template-columns:minmax(0,1fr)}.card,.verdict{grid-template-columns:minmax(0,1fr)}.card.sub{margin-left:.75rem}}
"#;

/// The one control the script adds: open or close every expander at once.
const SCRIPT: &str = r#"(function(){
var all=document.querySelectorAll('details.result');var tools=document.getElementById('tools');
if(!all.length||!tools)return;
function set(open){for(var i=0;i<all.length;i++){all[i].open=open;}}
document.getElementById('open-all').addEventListener('click',function(){set(true);});
document.getElementById('close-all').addEventListener('click',function(){set(false);});
tools.hidden=false;
})();"#;

pub(crate) fn page(page: &Page) -> String {
    let mut body = String::from("<main>\n<header>\n");
    let _ = writeln!(
        body,
        "<h1>{} <span class=\"dim\">{}</span></h1>",
        esc(page.title),
        esc(page.lesson)
    );
    if let Some(note) = page.note {
        let _ = writeln!(body, "<p class=\"dim\">{}</p>", esc(note));
    }
    body.push_str("<p id=\"tools\" hidden><button type=\"button\" id=\"open-all\">Show every result</button> <button type=\"button\" id=\"close-all\">Hide them</button></p>\n");
    if page.tickets.len() > 1 {
        body.push_str("<nav aria-label=\"Tickets\"><ul>\n");
        for t in &page.tickets {
            if let Some(run) = t.runs.first() {
                let _ =
                    writeln!(body, "<li><a href=\"#t-{id}\">{id}</a></li>", id = esc(&run.ticket));
            }
        }
        body.push_str("</ul></nav>\n");
    }
    body.push_str("</header>\n");
    for ticket in &page.tickets {
        body.push_str(&ticket_section(ticket));
    }
    body.push_str("</main>\n");
    let title = match page.tickets.as_slice() {
        [one] => {
            format!("{} · {}", page.lesson, one.runs.first().map_or("", |r| r.ticket.as_str()))
        }
        _ => format!("{} · replays", page.lesson),
    };
    super::page(&title, STYLE, SCRIPT, &body)
}

fn ticket_section(ticket: &TicketPage) -> String {
    let mut out = String::new();
    let Some(first) = ticket.runs.first() else { return out };
    let id = esc(&first.ticket);
    let _ = writeln!(out, "<section class=\"ticket\" id=\"t-{id}\" aria-labelledby=\"h-{id}\">");
    let _ = writeln!(out, "<h2 id=\"h-{id}\">ticket {id}</h2>");
    let codes: Vec<String> = ticket.runs.iter().map(|r| esc(&r.code)).collect();
    let _ = writeln!(
        out,
        "<p class=\"meta\">{} · ticket <strong>{id}</strong> · code <strong>{}</strong> · runtime <strong>{}</strong></p>",
        esc(&first.lesson),
        codes.join("</strong> against <strong>"),
        esc(&first.runtime)
    );
    let all: Vec<Event> = ticket.runs.iter().flat_map(|r| r.events.iter().cloned()).collect();
    let _ = writeln!(out, "<p class=\"dim\">{}</p>", esc(&cards::provenance_line(&all)));
    if let Some(q) = &ticket.question {
        out.push_str(&question(q));
    }
    match ticket.runs {
        [a, b] => {
            let common = ticket.split.unwrap_or(a.events.len()).min(a.events.len());
            out.push_str(&events(&a.told()[..common]));
            let marker =
                if ticket.split.is_some() { "the runs split here" } else { "the runs never split" };
            let _ = writeln!(
                out,
                "<p class=\"split\" role=\"separator\">{marker}</p>\n<div class=\"runs\">"
            );
            for run in [a, b] {
                let _ = writeln!(
                    out,
                    "<section class=\"run\" aria-label=\"{code}\">\n<h3>{code}</h3>",
                    code = esc(&run.code)
                );
                out.push_str(&events(&run.told()[common.min(run.events.len())..]));
                out.push_str(&verdict(&run.verdict));
                out.push_str("</section>\n");
            }
            out.push_str("</div>\n");
        }
        runs => {
            for run in runs {
                out.push_str(&events(&run.told()));
                out.push_str(&verdict(&run.verdict));
            }
        }
    }
    out.push_str("</section>\n");
    out
}

fn question(q: &PageQuestion) -> String {
    let mut out = String::from("<aside class=\"predict\" aria-label=\"Predict first\">\n");
    let _ = writeln!(out, "<p><strong>Predict first.</strong> {}</p>", esc(&q.ask));
    if !q.context.trim().is_empty() {
        let _ = writeln!(out, "<p class=\"dim\">{}</p>", esc(q.context.trim()));
    }
    out.push_str("<ol>\n");
    for choice in &q.choices {
        let _ = writeln!(out, "<li>{}</li>", esc(choice));
    }
    out.push_str("</ol>\n");
    let _ = writeln!(
        out,
        "<details class=\"answer\"><summary>Reveal the answer</summary><p>{} <span class=\"dim\">(the {} run)</span></p></details>",
        esc(&q.answer),
        esc(&q.about)
    );
    out.push_str("</aside>\n");
    out
}

fn events(events: &[Told<'_>]) -> String {
    if events.is_empty() {
        return String::new();
    }
    let mut out = String::from("<ol class=\"cards\">\n");
    for ev in events {
        out.push_str(&event(ev));
    }
    out.push_str("</ol>\n");
    out
}

/// One card: its label (coloured by `class`) and its body, already HTML.
fn card(class: &str, label: &str, body: &str) -> String {
    format!(
        "<li class=\"card {class}\"><span class=\"label\">{}</span><div class=\"body\">{body}</div></li>\n",
        esc(label)
    )
}

fn text(words: &str) -> String {
    format!("<p class=\"text\">{}</p>", esc(words))
}

fn dim(words: &str) -> String {
    format!("<p class=\"text dim\">{}</p>", esc(words))
}

fn badge(provenance: &crate::replay::recordings::Provenance) -> String {
    format!("<span class=\"prov\">{}</span>", esc(&provenance.tag()))
}

/// An expander whose summary names what it holds; the cards' `--expand`.
fn expander(summary: &str, inner: &str) -> String {
    format!("<details class=\"result\"><summary>{}</summary>{inner}</details>", esc(summary))
}

/// A labelled JSON value inside an expander.
fn labelled(label: &str, value: &Value) -> String {
    format!("<p class=\"text dim\">{}</p>{}", esc(label), json_block(value))
}

fn printed(printed: &str) -> String {
    match printed.trim().is_empty() {
        true => String::new(),
        false => {
            format!("<p class=\"text dim\">printed:</p><pre>{}</pre>", esc(printed.trim_end()))
        }
    }
}

fn event(ev: &Told<'_>) -> String {
    match ev.event {
        Event::Customer { text: words } => card("customer", "Customer", &text(words)),
        Event::ToolCall { tool, input, words, preface, provenance, .. } => {
            let mut body = String::new();
            if let Some(said) = preface {
                body.push_str(&format!(
                    "<p class=\"text\"><span class=\"dim\">says:</span> {}</p>",
                    esc(said)
                ));
            }
            body.push_str(&format!("<p class=\"text\">{}{}</p>", esc(words), badge(provenance)));
            body.push_str(&expander(&format!("{tool} input"), &json_block(input)));
            card("call", "Agent calls", &body)
        }
        Event::Attempt { .. } => attempt(ev),
        Event::Verify { .. } => verify(ev),
        Event::Report { report, .. } => report_card(report),
        Event::Wait { ms } => {
            card("sub wait", "wait", &dim(&format!("{ms} ms backoff before the next attempt")))
        }
        Event::Note { text: words, after_results } => {
            card("note", "Note", &text(&cards::note_words(words, *after_results)))
        }
        Event::Reply { text: words, provenance, by_kind, stop_reason } => {
            reply(words, stop_reason.as_deref(), provenance, by_kind)
        }
        Event::HostError { .. } | Event::Capped { .. } | Event::Told { .. } => host_card(ev.event),
        Event::Rpc { .. } => rpc_card(ev.event),
        Event::RpcEnded { message } => card("bad", "Host error", &text(message)),
        Event::NoRecording { .. } => dead_end(ev.event),
        Event::ApiError { status, error_type, message } => {
            let body = format!(
                "{}{}",
                text(&format!("{status} {error_type}: {message}")),
                dim(cards::API_REFUSES)
            );
            card("bad", "API error", &body)
        }
        Event::CodeError { message, call, printed: out } => {
            let mut body = text(message);
            if let Some(call) = call {
                body.push_str(&dim(&format!("in {call}")));
            }
            body.push_str(&printed(out));
            card("bad", "Code error", &body)
        }
    }
}

/// The host's events, which the model never sees: an API error, a cap, what the person was told.
fn host_card(event: &Event) -> String {
    match event {
        Event::HostError {
            status,
            error_type,
            message,
            retry_after_ms,
            wait_ms,
            number,
            waited_by,
            ..
        } => {
            let (retry_after, wait) = (*retry_after_ms, *wait_ms);
            let by_client = waited_by.as_deref() == Some("client");
            let words =
                cards::host_error_words(*status, error_type, message, retry_after, wait, by_client);
            let (line, then) = words;
            let label = cards::host_label(*number);
            let class = if wait_ms.is_some() { "warn host" } else { "bad host" };
            card(class, &label, &format!("{}{}", text(&line), dim(&then)))
        }
        Event::Capped { by, turns, elapsed_ms, limit } => {
            let words = cards::capped_words(by, *turns, *elapsed_ms, *limit);
            card("warn host", "Cap", &format!("{}{}", text(&words), dim(cards::CAP_ENDS)))
        }
        Event::Told { text: words, .. } => {
            card("host", "Host tells", &format!("{}{}", text(words), dim(cards::TOLD_WHO)))
        }
        _ => String::new(),
    }
}

/// One JSON-RPC message between the MCP client and the learner's server (see `cards::rpc_words`).
fn rpc_card(event: &Event) -> String {
    let Event::Rpc { message, printed: out, .. } = event else { return String::new() };
    let mut body = String::new();
    let (mut class, mut label) = ("sub", "Server says");
    if let Some(words) = cards::rpc_words(event) {
        body.push_str(&text(&words.line));
        body.push_str(&dim(&words.reader));
        class = if words.kept { "sub warn" } else { "sub" };
        label = words.label;
    }
    body.push_str(&printed(out));
    body.push_str(&expander("JSON-RPC message", &json_block(message)));
    card(class, label, &body)
}

/// What a subagent passed up: the report's labelled parts.
fn report_card(report: &Value) -> String {
    let mut body = String::from("<dl>");
    for (k, v) in report.as_object().into_iter().flatten() {
        if let Some(v) = v.as_str() {
            body.push_str(&format!("<dt>{}</dt><dd>{}</dd>", esc(k), esc(v)));
        }
    }
    body.push_str("</dl>");
    card("sub warn", "Report", &body)
}

/// The model's reply, with each turn replayed by kind and both of its sentences.
fn reply(
    words: &str,
    stop_reason: Option<&str>,
    provenance: &crate::replay::recordings::Provenance,
    by_kind: &[crate::lesson::kinds::ByKind],
) -> String {
    let stopped = stop_reason.map(|r| dim(&cards::stop_words(r))).unwrap_or_default();
    let mut body = format!("{}{stopped}<p>{}</p>", text(words), badge(provenance));
    for swap in by_kind {
        body.push_str(&format!(
            "<p class=\"text\"><strong>By kind</strong> {}</p>",
            esc(&cards::by_kind_words(swap))
        ));
        let both = format!("this run sent: {}\nrecorded for:  {}", swap.sent, swap.recorded);
        body.push_str(&expander("both sentences", &format!("<pre>{}</pre>", esc(&both))));
    }
    card("reply", "Agent replies", &body)
}

/// The dead end where no recording answers the request: why, what the model would receive,
/// the closest recorded request and how it differs, and how to go on.
fn dead_end(ev: &Event) -> String {
    let Event::NoRecording { sent, closest, diff, explanation, next, words } = ev else {
        return String::new();
    };
    let mut body = text(explanation);
    for w in words {
        body.push_str(&format!(
            "<p class=\"text\"><strong>Kind</strong> {}</p>",
            esc(&cards::unanswered(w, true))
        ));
    }
    body.push_str(&expander("the model would now receive", &json_block(sent)));
    if let Some(place) = closest {
        body.push_str(&format!(
            "<p class=\"text\"><strong>Closest</strong> {} (-)</p>",
            esc(place)
        ));
    }
    for change in cards::word_changes(diff) {
        body.push_str(&format!("<p class=\"text\"><strong>In short</strong> {}</p>", esc(&change)));
    }
    if !diff.trim().is_empty() {
        body.push_str(&expander(
            "the diff against the closest recorded request",
            &diff_block(diff),
        ));
    }
    body.push_str(&format!("<p class=\"text\"><strong>To go on</strong> {}</p>", esc(next)));
    card("bad", "No recording", &body)
}

/// A unified diff, its added and removed lines coloured.
fn diff_block(diff: &str) -> String {
    let mut out = String::from("<pre class=\"diff\">");
    for line in diff.lines() {
        let class = match line.as_bytes().first() {
            Some(b'+') if !line.starts_with("+++") => "add",
            Some(b'-') if !line.starts_with("---") => "del",
            _ => "",
        };
        match class {
            "" => out.push_str(&esc(line)),
            class => out.push_str(&format!("<span class=\"{class}\">{}</span>", esc(line))),
        }
        out.push('\n');
    }
    out.push_str("</pre>");
    out
}

fn tone_class(tone: Tone) -> &'static str {
    match tone {
        Tone::Worked => "good",
        Tone::Retried | Tone::Checked => "warn",
        Tone::Wasted | Tone::Blind | Tone::Dropped | Tone::Overturned => "bad",
        Tone::Reported | Tone::Settled => "neutral",
    }
}

fn attempt(ev: &Told<'_>) -> String {
    let Event::Attempt { number, failed, printed: out, said, .. } = ev.event else {
        return String::new();
    };
    let tone = ev.tone();
    let mark = if *failed { "✗" } else { "✓" };
    let mut body = text(&format!("{mark} {}", cards::attempt_words(ev)));
    body.push_str(&dim(&cards::attempt_said(ev.event)));
    // The world's own lines, as it wrote them.
    for line in said {
        body.push_str(&format!("<p class=\"text\"><strong>{}</strong></p>", esc(line)));
    }
    body.push_str(&printed(out));
    body.push_str(&behind(ev));
    card(&format!("sub {}", tone_class(tone)), &format!("Attempt {number}"), &body)
}

fn verify(ev: &Told<'_>) -> String {
    let Event::Verify { tool, number, failed, retried, found, message, details, .. } = ev.event
    else {
        return String::new();
    };
    let class = match (found, retried) {
        (Some(true), _) => "good",
        (Some(false), _) | (None, true) => "warn",
        (None, false) => "bad",
    };
    let (label, reads) = cards::verify_label(tool, *number);
    let mark = if *failed { "✗" } else { "✓" };
    let mut body = text(&format!("{mark} {reads}: {}", cards::verify_words(*found, *retried)));
    if let Some(said) = cards::failure_body(details, message.as_deref()) {
        body.push_str(&dim(&said));
    }
    body.push_str(&behind(ev));
    card(&format!("sub {class}"), &label, &body)
}

/// What the cards show with `--expand`, behind the "Show the result" expander.
fn behind(ev: &Told<'_>) -> String {
    let mut inner = String::new();
    for part in cards::behind(ev) {
        match part {
            cards::Behind::Json(label, value) => inner.push_str(&labelled(&label, value)),
            cards::Behind::Note(note) => inner.push_str(&dim(&note)),
        }
    }
    expander("Show the result", &inner)
}

/// The verdict: red when the code failed or the run did harm, yellow when no recording answered.
fn verdict(v: &Verdict) -> String {
    let class = match v.tone {
        VerdictTone::Bad => "bad",
        VerdictTone::Warn => "warn",
        VerdictTone::Good => "good",
    };
    let mut body = text(&v.text);
    if let Some(note) = &v.note {
        body.push_str(&dim(note));
    }
    format!(
        "<div class=\"verdict {class}\"><span class=\"label\">Verdict</span><div class=\"body\">{body}</div></div>\n"
    )
}
