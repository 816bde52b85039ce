//! What the operator reads on stderr once a class is graded: the counts, how files were
//! isolated, and each check with how many files fail it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use crate::checks::{Report, Status};

use super::isolation::Isolation;
use super::partition::Partition;

/// What the summary says beside the reports.
pub(crate) struct Summary<'a> {
    pub(crate) found: usize,
    pub(crate) partition: Option<Partition>,
    pub(crate) took: Duration,
    pub(crate) isolation: &'a Isolation,
    pub(crate) skipped: &'a [(String, &'static str)],
    /// The sample key of this run (see `sample_key`), and whether `WORKSHOP_SEED` gave it.
    pub(crate) key: u64,
    pub(crate) key_given: bool,
    /// Where each file's checks are named: its line on stdout, or the page.
    pub(crate) detail: &'static str,
}

/// What the operator reads on stderr: the counts, how files were isolated, then each check with
/// how many files fail it. Names and messages come from submissions: shown escaped.
pub(crate) fn summary(reports: &[Report], context: &Summary) -> String {
    let mut out = head(reports, context);
    checks(&mut out, reports, context.detail);
    hung(&mut out, reports);
    not_loaded(&mut out, reports);
    if !context.skipped.is_empty() {
        let _ = writeln!(out, "skipped, not regular files:");
        for (shown, what) in context.skipped {
            let _ = writeln!(out, "  {}: {what}", crate::text::inert::one_line(shown));
        }
    }
    out
}

/// The counts, the isolation, and the sample key.
fn head(reports: &[Report], context: &Summary) -> String {
    let count = |s: Status| reports.iter().filter(|r| r.status == s).count();
    let mut out = String::new();
    let scope = match context.partition {
        Some(p) => format!(" (shard {}/{} of {})", p.k, p.n, context.found),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "graded {} file{}{scope} in {:.1} s: {} pass, {} fail, {} error",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        context.took.as_secs_f64(),
        count(Status::Pass),
        count(Status::Fail),
        count(Status::Error)
    );
    let _ = writeln!(out, "{}", wrapped(&context.isolation.line()));
    let _ = writeln!(out, "{}", wrapped(&samples(context)));
    out
}

/// Where the run's sample key came from, and what it takes to draw the same samples again (in
/// another shard, too: a shard without `WORKSHOP_SEED` draws a key of its own).
fn samples(context: &Summary) -> String {
    let key = context.key;
    match (context.key_given, context.partition) {
        (true, Some(_)) => format!(
            "samples: drawn with the key {key:016x} from WORKSHOP_SEED; every shard given the same \
             one prints the lines one grade of the whole class would"
        ),
        (true, None) => format!("samples: drawn with the key {key:016x} from WORKSHOP_SEED"),
        (false, Some(_)) => format!(
            "samples: drawn with the key {key:016x}, this shard's own, so its lines are not those \
             one grade of the class would print: give every shard the same secret WORKSHOP_SEED \
             (16 hexadecimal digits); WORKSHOP_SEED={key:016x} repeats this shard's reports"
        ),
        (false, None) => format!(
            "samples: drawn with the key {key:016x}, new each run; WORKSHOP_SEED={key:016x} \
             repeats this run's reports"
        ),
    }
}

/// Each check in lesson order, then sorted by files not passing it (failed, or could not run):
/// a stable sort keeps ties in order.
fn checks(out: &mut String, reports: &[Report], detail: &str) {
    let mut order: Vec<(String, String)> = Vec::new();
    let mut fails: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for report in reports {
        for check in &report.checks {
            if !order.iter().any(|(id, _)| *id == check.id) {
                order.push((check.id.clone(), check.name.clone()));
            }
            let (failed, errors) = fails.entry(check.id.clone()).or_default();
            *failed += usize::from(check.status == Status::Fail);
            // A file that did not load has every check unrun: it is listed below, once.
            let unrun = check.status == Status::Error && report.status != Status::Error;
            *errors += usize::from(check.status == Status::NotRun || unrun);
        }
    }
    let not_passed = |id: &str| fails.get(id).map_or(0, |(f, e)| f + e);
    order.sort_by_key(|(id, _)| std::cmp::Reverse(not_passed(id)));
    let (failed, clean): (Vec<_>, Vec<_>) = order.iter().partition(|(id, _)| not_passed(id) > 0);
    if !failed.is_empty() {
        let _ = writeln!(out, "files failing each check, most failed first ({detail}):");
        let width = failed.iter().map(|(id, _)| id.len()).max().unwrap_or(0);
        for (id, name) in &failed {
            let (f, e) = fails[id];
            let errors = if e > 0 { format!(" ({e} could not run it)") } else { String::new() };
            let _ = writeln!(out, "  {:>4}  {id:<width$}  {name}{errors}", f + e);
        }
    }
    if !clean.is_empty() && !reports.is_empty() {
        let ids: Vec<&str> = clean.iter().map(|(id, _)| id.as_str()).collect();
        let text = format!(
            "no file fails {}: {}",
            if failed.is_empty() { "any check" } else { "the others" },
            ids.join(", ")
        );
        let _ = writeln!(out, "{}", wrapped(&text));
    }
}

/// The files where a call hung, with the call, the first ten of them: a hang is what to fix
/// first in each, since the checks that need that function did not run.
fn hung(out: &mut String, reports: &[Report]) {
    let with_call = |r| hung_call(r).map(|c| (r, c));
    let hung: Vec<(&Report, &str)> = reports.iter().filter_map(with_call).collect();
    if hung.is_empty() {
        return;
    }
    let _ = writeln!(out, "files where a call hung (checks that need it did not run):");
    for (report, call) in hung.iter().take(10) {
        let file = crate::text::inert::one_line(&report.file);
        let call = crate::text::inert::one_line(call);
        let _ = writeln!(out, "  {file}: {call} hung; {} not run", report.not_run());
    }
    if hung.len() > 10 {
        let _ = writeln!(out, "  … and {} more (see their lines on stdout)", hung.len() - 10);
    }
}

/// The call that hung in a file's run, if one did.
fn hung_call(report: &Report) -> Option<&str> {
    report.checks.iter().find_map(|c| c.hung.as_deref())
}

/// The files that did not load, the first ten of them.
fn not_loaded(out: &mut String, reports: &[Report]) {
    let errors: Vec<&Report> = reports.iter().filter(|r| r.status == Status::Error).collect();
    if errors.is_empty() {
        return;
    }
    let _ = writeln!(out, "files that did not load (no check ran):");
    for report in errors.iter().take(10) {
        let first: String = report.message.lines().next().unwrap_or("").chars().take(300).collect();
        let _ = writeln!(
            out,
            "  {}: {}",
            crate::text::inert::one_line(&report.file),
            crate::text::inert::one_line(&first)
        );
    }
    if errors.len() > 10 {
        let _ = writeln!(out, "  … and {} more (see their lines on stdout)", errors.len() - 10);
    }
}

/// A paragraph of the summary, wrapped at 96 columns, its later lines indented.
pub(crate) fn wrapped(text: &str) -> String {
    let options = textwrap::Options::new(96)
        .subsequent_indent("  ")
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    textwrap::wrap(text, options).join("\n")
}
