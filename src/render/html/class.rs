//! The page of a class's results: how many files pass each check (a bar per check), the files by
//! score with each one's first failure and the lesson's guidance for it, the files that could
//! not run and why, and the sandbox they ran in. Drawn from the same reports as grade's JSONL and
//! CSV, shortened as they are. A few lines of script add a filter and sorting by column; without
//! it the table reads as printed, best score first.

use std::fmt::Write as _;

use super::esc;
use crate::checks::{CheckResult, Report, Status};

/// What the page shows beside the reports.
pub(crate) struct Class<'a> {
    pub lesson: &'a str,
    pub title: &'a str,
    pub reports: &'a [Report],
    /// The sandbox line of grade's summary: what isolated each file, and what did not.
    pub sandbox: &'a str,
    /// Entries that looked like submissions but are not regular files, and what they are.
    pub skipped: &'a [(String, &'static str)],
}

const STYLE: &str = r#"
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:.35rem .5rem;border-bottom:1px solid var(--line)}
thead th{border-bottom:2px solid var(--line);white-space:nowrap}
.checks meter{width:10rem;max-width:40vw;vertical-align:middle;margin-right:.5rem}
.checks td{white-space:nowrap}
#files td{overflow-wrap:anywhere}
#files td.file code{overflow-wrap:normal}
#files td:first-child{min-width:12rem}
.checks th{font-weight:400}
#files td.score{white-space:nowrap}
th button{font-weight:700;border:0;background:none;padding:0;color:var(--accent)}
th[aria-sort=ascending] button::after{content:" ▲"}
th[aria-sort=descending] button::after{content:" ▼"}
.pass{color:var(--good)}.fail{color:var(--bad)}
#filter{font:inherit;padding:.2rem .4rem;width:18rem;max-width:100%}
ul.errors li{margin:.3rem 0}
@media (max-width:40rem){
#files thead{display:none}
#files tr{display:block;border-bottom:1px solid var(--line);padding:.4rem 0}
#files td{display:block;border:0;padding:.1rem 0}
#files td:first-child{min-width:0}
.checks td{white-space:normal}
}
"#;

/// The filter and sorting: the header cells become buttons, the filter appears.
const SCRIPT: &str = r#"(function(){
var table=document.getElementById('files');if(!table)return;
var body=table.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
var input=document.getElementById('filter');var shown=document.getElementById('shown');
function filter(){var q=input.value.toLowerCase();var n=0;
rows.forEach(function(r){var hit=r.textContent.toLowerCase().indexOf(q)>=0;r.hidden=!hit;if(hit)n++;});
shown.textContent=n+' of '+rows.length+' files shown';}
input.addEventListener('input',filter);
document.getElementById('filter-row').hidden=false;
var heads=Array.prototype.slice.call(table.tHead.rows[0].cells);
heads.forEach(function(th){var key=th.getAttribute('data-sort');if(!key)return;
var b=document.createElement('button');b.type='button';b.textContent=th.textContent;th.textContent='';th.appendChild(b);
b.addEventListener('click',function(){var up=th.getAttribute('aria-sort')!=='ascending';
heads.forEach(function(h){h.removeAttribute('aria-sort');});th.setAttribute('aria-sort',up?'ascending':'descending');
rows.sort(function(x,y){var a=x.getAttribute('data-'+key),c=y.getAttribute('data-'+key);
var d=key==='score'?Number(a)-Number(c):a.localeCompare(c);return up?d:-d;});
rows.forEach(function(r){body.appendChild(r);});});});
})();"#;

pub(crate) fn page(class: &Class) -> String {
    let shortened: Vec<Report> =
        class.reports.iter().map(crate::render::check::shortened).collect();
    let reports = shortened.as_slice();
    let count = |s: Status| reports.iter().filter(|r| r.status == s).count();
    let mut body = String::from("<main>\n<header>\n");
    let _ = writeln!(
        body,
        "<h1>{} <span class=\"dim\">{}</span></h1>",
        esc(class.title),
        esc(class.lesson)
    );
    let _ = writeln!(
        body,
        "<p>{}: <span class=\"pass\">{} pass</span>, <span class=\"fail\">{} fail</span>, {} could not run.</p>",
        crate::render::count(reports.len(), "file"),
        count(Status::Pass),
        count(Status::Fail),
        count(Status::Error)
    );
    let _ = writeln!(body, "<p class=\"dim\">{}</p>\n</header>", esc(class.sandbox));
    body.push_str(&checks(reports));
    body.push_str(&files(reports));
    body.push_str(&not_run(reports, class.skipped));
    body.push_str("</main>\n");
    super::page(&format!("{} · the class", class.lesson), STYLE, SCRIPT, &body)
}

/// A paragraph in the dim style.
const DIM: &str = "<p class=\"dim\">";

/// A bar per check, in the lesson's order: how many of the class's files pass it. A file that
/// could not run passes none, so every bar is out of the same number.
fn checks(reports: &[Report]) -> String {
    let ran: Vec<&Report> = reports.iter().filter(|r| r.status != Status::Error).collect();
    let mut order: Vec<(&str, &str, usize)> = Vec::new();
    for report in &ran {
        for check in &report.checks {
            let pass = usize::from(check.status == Status::Pass);
            match order.iter_mut().find(|(id, _, _)| *id == check.id) {
                Some(entry) => entry.2 += pass,
                None => order.push((&check.id, &check.name, pass)),
            }
        }
    }
    if order.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<section aria-labelledby=\"checks-h\">\n<h2 id=\"checks-h\">Each check</h2>\n",
    );
    let total = reports.len();
    let unrun = total - ran.len();
    if unrun > 0 {
        let unrun = crate::render::count(unrun, "file");
        let said = "A file that could not run counts as not passing";
        let _ = writeln!(out, "{DIM}Out of all {total} files. {said}: {unrun} below.</p>");
    }
    out.push_str("<table class=\"checks\">\n<thead><tr><th scope=\"col\">check</th><th scope=\"col\">files that pass it</th></tr></thead>\n<tbody>\n");
    for (id, name, pass) in order {
        let _ = writeln!(
            out,
            "<tr><th scope=\"row\"><code>{}</code> <span class=\"dim\">{}</span></th><td><meter min=\"0\" max=\"{total}\" value=\"{pass}\" aria-label=\"{} of {total}\"></meter>{pass} of {total}</td></tr>",
            esc(id),
            esc(name),
            pass
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
    out
}

/// The guidance for a failed check: the lesson's advice for the mistake its answer suggests,
/// else the check's first hint (as `check` explains a first failure).
fn guidance(check: &CheckResult) -> String {
    match &check.guidance {
        Some(advice) => advice.says.trim().to_string(),
        None => check.hints.first().map(|h| h.trim().to_string()).unwrap_or_default(),
    }
}

/// The files that ran, best score first, then by name.
fn files(reports: &[Report]) -> String {
    let mut ran: Vec<&Report> = reports.iter().filter(|r| r.status != Status::Error).collect();
    if ran.is_empty() {
        return String::new();
    }
    let score = |r: &Report| if r.total == 0 { 1.0 } else { r.passed as f64 / r.total as f64 };
    ran.sort_by(|a, b| score(b).total_cmp(&score(a)).then_with(|| a.file.cmp(&b.file)));
    let mut out = String::from(
        "<section aria-labelledby=\"files-h\">\n<h2 id=\"files-h\">Files, by score</h2>\n",
    );
    out.push_str("<p id=\"filter-row\" hidden><label for=\"filter\">Filter </label><input id=\"filter\" type=\"search\" placeholder=\"a file, a check, a word\"> <span id=\"shown\" class=\"dim\" aria-live=\"polite\"></span></p>\n");
    out.push_str("<table id=\"files\">\n<thead><tr><th scope=\"col\" data-sort=\"file\">file</th><th scope=\"col\" data-sort=\"score\" aria-sort=\"descending\">score</th><th scope=\"col\" data-sort=\"first\">first failure</th><th scope=\"col\">guidance</th></tr></thead>\n<tbody>\n");
    for report in ran {
        let first = report.checks.iter().find(|c| c.status != Status::Pass);
        let (first_id, failure, advice) = match first {
            // A hang says nothing of what its check looks at: no guidance of the check's.
            Some(c) if c.hung.is_some() => {
                let shown = format!("<code>{}</code> {}", esc(&c.id), esc(&c.message));
                (c.id.as_str(), shown, String::new())
            }
            Some(c) => (
                c.id.as_str(),
                format!("<code>{}</code> {}", esc(&c.id), esc(&c.message)),
                esc(&guidance(c)),
            ),
            None => (
                "",
                "<span class=\"pass\">none: every check passes</span>".to_string(),
                String::new(),
            ),
        };
        let class = if report.status == Status::Pass { "pass" } else { "fail" };
        let _ = writeln!(
            out,
            "<tr data-file=\"{file}\" data-score=\"{score:.4}\" data-first=\"{first}\">\
             <td class=\"file\"><code>{shown}</code></td>\
             <td class=\"score {class}\">{} / {}{unrun}</td>\
             <td>{failure}</td><td>{advice}</td></tr>",
            report.passed,
            report.total,
            unrun = match report.not_run() {
                0 => String::new(),
                n => format!(" <span class=\"dim\">({n} not run)</span>"),
            },
            file = esc(&report.file),
            shown = breakable(&report.file),
            score = score(report),
            first = esc(first_id),
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
    out
}

/// A path, escaped, that may break after each folder's `/` and nowhere inside a name.
fn breakable(path: &str) -> String {
    esc(path).replace('/', "/<wbr>")
}

/// The files that did not load (no check ran), each with why; then the entries skipped.
fn not_run(reports: &[Report], skipped: &[(String, &'static str)]) -> String {
    let errors: Vec<&Report> = reports.iter().filter(|r| r.status == Status::Error).collect();
    let mut out = String::new();
    if !errors.is_empty() {
        out.push_str("<section aria-labelledby=\"errors-h\">\n<h2 id=\"errors-h\">Files that could not run</h2>\n<ul class=\"errors\" id=\"errors\">\n");
        for report in errors {
            let _ = writeln!(
                out,
                "<li><code>{}</code><p class=\"text dim\">{}</p></li>",
                esc(&report.file),
                esc(report.message.trim_end())
            );
        }
        out.push_str("</ul>\n</section>\n");
    }
    if !skipped.is_empty() {
        out.push_str("<section aria-labelledby=\"skipped-h\">\n<h2 id=\"skipped-h\">Skipped: not regular files</h2>\n<ul id=\"skipped\">\n");
        for (shown, what) in skipped {
            let _ = writeln!(out, "<li><code>{}</code>: {}</li>", esc(shown), esc(what));
        }
        out.push_str("</ul>\n</section>\n");
    }
    out
}
