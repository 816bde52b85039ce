//! `workshop grade`: for course operators, grade a class's files with `check`'s own grading, in
//! parallel, each sandboxed; one line per file on stdout, a summary on stderr.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::bridge::sandbox::{Interpreter, Limits};
use crate::bridge::{BridgeConfig, LoadError, LoadKind};
use crate::checks::{Report, Status};
use crate::cli::{GradeArgs, GradeFormat};
use crate::commands::Context;
use crate::error::{Error, EXIT_SUCCESS};
use crate::lesson::{self, Lesson};
use crate::output;

/// One file to grade, read before any submission runs, so none can change another's source.
struct Submission {
    /// The path as the operator gave it (a folder joined with the file's place in it).
    shown: String,
    /// The file's own name, kept for the copy that is graded.
    name: OsString,
    source: Result<Vec<u8>, String>,
}

pub fn run(ctx: &Context, args: GradeArgs) -> Result<i32, Error> {
    let limit = args.timeout;
    let partition = args.partition.as_deref().map(Partition::parse).transpose()?;
    let jobs = match args.jobs {
        Some(0) => {
            return Err(Error::usage("--jobs 0 grades nothing: give 1 or more, or leave it out for one per core."))
        }
        Some(n) => n,
        None => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    };
    let (lesson, paths) = lesson_and_paths(ctx, &args.args)?;
    let all = discover(ctx, &lesson, &paths)?;
    if all.is_empty() {
        return Err(Error::usage(format!(
            "there is no file to grade in {}: give files, or folders holding {} or .py files.",
            paths.join(", "),
            lesson.file
        )));
    }
    let total_found = all.len();
    let files = match partition {
        Some(p) => all[p.range(all.len())].to_vec(),
        None => all,
    };
    let python = find_python()?;
    let submissions: Vec<Submission> = files.iter().map(|(shown, path)| read(shown, path)).collect();

    let started = Instant::now();
    let reports = grade_all(&lesson, &submissions, &python, limit, jobs.min(submissions.len().max(1)), args.format)?;
    output::note(summary(&reports, total_found, partition, started.elapsed()).trim_end());
    Ok(EXIT_SUCCESS)
}

/// `[LESSON] PATH...`: the first word names a lesson when more follow and it is no file or folder.
fn lesson_and_paths(ctx: &Context, args: &[String]) -> Result<(Lesson, Vec<String>), Error> {
    let (first, rest) = args.split_first().ok_or_else(|| Error::usage("give the files or folders to grade."))?;
    let is_path = ctx.cwd.join(first).exists();
    if !is_path && !rest.is_empty() {
        if lesson::validate_id(first).is_err() || !lesson::known_ids(&ctx.root).contains(first) {
            let known = lesson::known_ids(&ctx.root).join(", ");
            return Err(Error::usage(format!(
                "'{first}' is neither a lesson nor a file or folder here. Lessons: {known}; then give the files or folders to grade."
            )));
        }
        return Ok((ctx.lesson(Some(first))?, rest.to_vec()));
    }
    if !is_path && lesson::known_ids(&ctx.root).contains(first) {
        return Err(Error::usage(format!(
            "give the files or folders to grade after the lesson, such as: ./workshop grade {first} submissions/"
        )));
    }
    Ok((ctx.lesson(None)?, args.to_vec()))
}

/// Every file to grade, as (the path as shown, the path to read), in one sorted order. In a folder:
/// the files named like the lesson's work file, else every `.py` file, found recursively.
fn discover(ctx: &Context, lesson: &Lesson, paths: &[String]) -> Result<Vec<(String, PathBuf)>, Error> {
    let mut found = Vec::new();
    for given in paths {
        let path = ctx.cwd.join(given);
        if path.is_file() {
            found.push((PathBuf::from(given), path));
            continue;
        }
        if !path.is_dir() {
            return Err(Error::usage(format!("there is no file or folder at {given}: check the path.")));
        }
        let mut inside = Vec::new();
        walk(&path, Path::new(""), &mut inside)?;
        let named: Vec<&PathBuf> =
            inside.iter().filter(|rel| rel.file_name() == Some(OsStr::new(&lesson.file))).collect();
        let chosen: Vec<&PathBuf> = if named.is_empty() {
            inside.iter().filter(|rel| rel.extension() == Some(OsStr::new("py"))).collect()
        } else {
            named
        };
        found.extend(chosen.into_iter().map(|rel| (Path::new(given).join(rel), path.join(rel))));
    }
    found.sort();
    found.dedup();
    Ok(found.into_iter().map(|(shown, path)| (shown.to_string_lossy().into_owned(), path)).collect())
}

/// The files under `dir` (relative to the folder given), skipping hidden folders and bytecode.
/// Symbolic links to folders are not followed, so a loop of links cannot trap the walk.
fn walk(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::io(format!("cannot read the folder {}; check its permissions", dir.display()), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(format!("cannot read the folder {}", dir.display()), e))?;
        let name = entry.file_name();
        let file_type =
            entry.file_type().map_err(|e| Error::io(format!("cannot read {}", entry.path().display()), e))?;
        if file_type.is_dir() {
            let hidden = name.to_str().is_some_and(|n| n.starts_with('.') || n == "__pycache__");
            if !hidden {
                walk(&entry.path(), &rel.join(&name), out)?;
            }
        } else if file_type.is_file() || (file_type.is_symlink() && entry.path().is_file()) {
            out.push(rel.join(&name));
        }
    }
    Ok(())
}

fn read(shown: &str, path: &Path) -> Submission {
    Submission {
        shown: shown.to_string(),
        name: path.file_name().map(OsStr::to_os_string).unwrap_or_else(|| OsString::from("submission.py")),
        source: std::fs::read(path).map_err(|e| e.to_string()),
    }
}

/// The interpreter, found once with the operator's environment (see `Interpreter`).
fn find_python() -> Result<Interpreter, Error> {
    let python = BridgeConfig::default_python();
    Interpreter::find(&python).map_err(|why| {
        Error::Load(LoadError {
            kind: LoadKind::NoPython,
            message: format!(
                "could not run Python 3 as {}: {why}. Install Python 3, or set WORKSHOP_PYTHON to a Python 3 interpreter.",
                python.to_string_lossy()
            ),
            output: String::new(),
        })
    })
}

/// Grade every submission on `jobs` threads and print each line in order as soon as the ones
/// before it are done. One file's trouble is its own verdict; only a failure of the machinery
/// (no Python, no temporary folder) stops the run.
fn grade_all(
    lesson: &Lesson,
    subs: &[Submission],
    python: &Interpreter,
    limit: Duration,
    jobs: usize,
    format: GradeFormat,
) -> Result<Vec<Report>, Error> {
    let limits = Limits::for_grading(limit);
    let next = AtomicUsize::new(0);
    let abort = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, Result<Report, Error>)>();
    let mut bar = Bar::new(subs.len());
    let mut reports: Vec<Option<Report>> = (0..subs.len()).map(|_| None).collect();
    let mut printed = 0;
    let mut failure = None;
    std::thread::scope(|scope| -> Result<(), Error> {
        for n in 0..jobs {
            let tx = tx.clone();
            let (next, abort) = (&next, &abort);
            std::thread::Builder::new()
                .name(format!("grade-{n}"))
                .spawn_scoped(scope, move || loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= subs.len() || abort.load(Ordering::SeqCst) {
                        return;
                    }
                    let result = grade_one(lesson, &subs[i], python, limit, limits);
                    if result.is_err() {
                        abort.store(true, Ordering::SeqCst);
                    }
                    if tx.send((i, result)).is_err() {
                        return;
                    }
                })
                .map_err(|e| {
                    abort.store(true, Ordering::SeqCst);
                    Error::io("could not start a grading thread", e)
                })?;
        }
        drop(tx);
        for (i, result) in rx {
            match result {
                Ok(report) => reports[i] = Some(report),
                Err(e) => {
                    failure.get_or_insert(e);
                    continue;
                }
            }
            bar.tick();
            while let Some(Some(report)) = reports.get(printed) {
                if failure.is_none() {
                    bar.clear();
                    // A reader that went away (`grade ... | head -3`) ends the grading.
                    if let Err(e) = output::print(&line(report, format, printed == 0)) {
                        abort.store(true, Ordering::SeqCst);
                        failure = Some(e);
                    }
                }
                printed += 1;
            }
        }
        bar.clear();
        Ok(())
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(reports.into_iter().flatten().collect())
}

/// Grade one file: a fresh folder holding a copy of it, and `check`'s grading, sandboxed.
fn grade_one(
    lesson: &Lesson,
    sub: &Submission,
    python: &Interpreter,
    limit: Duration,
    limits: Limits,
) -> Result<Report, Error> {
    let source = match &sub.source {
        Ok(source) => source,
        Err(why) => {
            let error = LoadError {
                kind: LoadKind::Unreadable,
                message: format!("could not read {}: {why}", sub.shown),
                output: String::new(),
            };
            return Ok(Report::not_loaded(lesson, sub.shown.clone(), &error));
        }
    };
    let dir = tempfile::Builder::new()
        .prefix("workshop-grade-")
        .tempdir()
        .map_err(|e| Error::io("could not make a temporary folder to grade in (is the temp folder full?)", e))?;
    let file = dir.path().join(&sub.name);
    std::fs::write(&file, source).map_err(|e| Error::io(format!("could not copy {} to grade it", sub.shown), e))?;
    let sandbox = python.sandbox(dir.path().to_path_buf(), limits);
    let report = crate::grading::grade_sandboxed(lesson, &file, &sub.shown, limit, python.executable.clone(), sandbox)
        .map_err(Error::Load);
    drop(dir);
    report
}

/// One line of output for a report; the CSV header comes before the first.
fn line(report: &Report, format: GradeFormat, first: bool) -> String {
    match format {
        GradeFormat::Jsonl => {
            let json = serde_json::to_string(report)
                .unwrap_or_else(|e| format!("{{\"status\": \"error\", \"message\": \"{e}\"}}"));
            format!("{json}\n")
        }
        GradeFormat::Csv => {
            let mut out = String::new();
            if first {
                let mut header: Vec<String> = ["file", "status", "passed", "total"].map(String::from).to_vec();
                header.extend(report.checks.iter().map(|c| c.id.clone()));
                out.push_str(&csv_row(&header));
            }
            let mut row = vec![
                report.file.clone(),
                status_word(report.status).to_string(),
                report.passed.to_string(),
                report.total.to_string(),
            ];
            row.extend(report.checks.iter().map(|c| status_word(c.status).to_string()));
            out.push_str(&csv_row(&row));
            out
        }
    }
}

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Pass => "pass",
        Status::Fail => "fail",
        Status::Error => "error",
    }
}

/// A CSV row as RFC 4180 has it: a field with a comma, a quote or a line break is quoted, and
/// its quotes doubled. Short enough that a crate would weigh more than it saves.
fn csv_row(fields: &[String]) -> String {
    let cells: Vec<String> = fields
        .iter()
        .map(|f| if f.contains([',', '"', '\n', '\r']) { format!("\"{}\"", f.replace('"', "\"\"")) } else { f.clone() })
        .collect();
    format!("{}\r\n", cells.join(","))
}

/// `--partition K/N`: the K-th of N contiguous shards of the sorted list, sizes within one of
/// each other. Shards 1..N in order are the whole list in order, so their outputs concatenate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Partition {
    k: usize,
    n: usize,
}

impl Partition {
    fn parse(text: &str) -> Result<Partition, Error> {
        let bad = || {
            Error::usage(format!(
                "--partition {text} is not K/N: give the shard and the number of shards, such as 2/4 for the second of four jobs."
            ))
        };
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if n == 0 || k == 0 || k > n {
            return Err(Error::usage(format!(
                "--partition {text} is out of range: K must be from 1 to N and N at least 1, such as 1/{m} to {m}/{m}.",
                m = n.max(1)
            )));
        }
        Ok(Partition { k, n })
    }

    fn range(self, len: usize) -> std::ops::Range<usize> {
        (len * (self.k - 1) / self.n)..(len * self.k / self.n)
    }
}

/// What the operator reads on stderr: the counts, then each check with how many files fail it.
fn summary(reports: &[Report], found: usize, partition: Option<Partition>, took: Duration) -> String {
    use std::fmt::Write as _;
    let count = |s: Status| reports.iter().filter(|r| r.status == s).count();
    let mut out = String::new();
    let scope = match partition {
        Some(p) => format!(" (shard {}/{} of {found})", p.k, p.n),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "graded {} files{scope} in {:.1} s: {} pass, {} fail, {} error",
        reports.len(),
        took.as_secs_f64(),
        count(Status::Pass),
        count(Status::Fail),
        count(Status::Error)
    );
    // Each check in lesson order, then sorted by failures: a stable sort keeps ties in order.
    let mut order: Vec<(String, String)> = Vec::new();
    let mut fails: BTreeMap<String, usize> = BTreeMap::new();
    for report in reports {
        for check in &report.checks {
            if !order.iter().any(|(id, _)| *id == check.id) {
                order.push((check.id.clone(), check.name.clone()));
            }
            *fails.entry(check.id.clone()).or_default() += usize::from(check.status == Status::Fail);
        }
    }
    order.sort_by_key(|(id, _)| std::cmp::Reverse(fails[id]));
    let (failed, clean): (Vec<_>, Vec<_>) = order.iter().partition(|(id, _)| fails[id] > 0);
    if !failed.is_empty() {
        let _ = writeln!(out, "files failing each check, most failed first:");
        let width = failed.iter().map(|(id, _)| id.len()).max().unwrap_or(0);
        for (id, name) in &failed {
            let _ = writeln!(out, "  {:>4}  {id:<width$}  {name}", fails[id]);
        }
    }
    if !clean.is_empty() && !reports.is_empty() {
        let ids: Vec<&str> = clean.iter().map(|(id, _)| id.as_str()).collect();
        let text =
            format!("no file fails {}: {}", if failed.is_empty() { "any check" } else { "the others" }, ids.join(", "));
        for piece in textwrap::wrap(
            &text,
            textwrap::Options::new(96).subsequent_indent("  ").word_splitter(textwrap::WordSplitter::NoHyphenation),
        ) {
            let _ = writeln!(out, "{piece}");
        }
    }
    let errors: Vec<&Report> = reports.iter().filter(|r| r.status == Status::Error).collect();
    if !errors.is_empty() {
        let _ = writeln!(out, "files that did not load (no check ran):");
        for report in errors.iter().take(10) {
            let first = report.message.lines().next().unwrap_or("");
            let _ = writeln!(out, "  {}: {first}", report.file);
        }
        if errors.len() > 10 {
            let _ = writeln!(out, "  … and {} more (see their lines on stdout)", errors.len() - 10);
        }
    }
    out
}

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
struct Bar {
    total: usize,
    done: usize,
    on: bool,
}

impl Bar {
    fn new(total: usize) -> Bar {
        Bar { total, done: 0, on: std::io::stderr().is_terminal() }
    }

    fn tick(&mut self) {
        self.done += 1;
        if self.on {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K{}", bar_line(self.done, self.total, 30));
            let _ = err.flush();
        }
    }

    fn clear(&self) {
        if self.on {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

fn bar_line(done: usize, total: usize, width: usize) -> String {
    let filled = (done * width).checked_div(total).unwrap_or(width);
    format!("grading [{}{}] {done}/{total}", "#".repeat(filled), "-".repeat(width - filled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_disjoint_cover_the_list_in_order_and_differ_by_at_most_one() {
        for len in 0..40 {
            for n in 1..=9 {
                let ranges: Vec<_> = (1..=n).map(|k| Partition { k, n }.range(len)).collect();
                let joined: Vec<usize> = ranges.iter().flat_map(|r| r.clone()).collect();
                assert_eq!(joined, (0..len).collect::<Vec<_>>(), "len {len}, n {n}");
                let sizes: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
                assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1, "{sizes:?}");
            }
        }
    }

    #[test]
    fn partition_accepts_k_of_n_and_refuses_the_rest() {
        assert_eq!(Partition::parse("2/4").unwrap(), Partition { k: 2, n: 4 });
        assert_eq!(Partition::parse("1/1").unwrap(), Partition { k: 1, n: 1 });
        for bad in ["0/3", "4/3", "1/0", "0/0"] {
            assert!(Partition::parse(bad).unwrap_err().to_string().contains("out of range"), "{bad}");
        }
        for bad in ["2", "a/b", "1/2/3", "-1/2", "", "/"] {
            assert!(Partition::parse(bad).unwrap_err().to_string().contains("is not K/N"), "{bad}");
        }
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let row = csv_row(&["a,b".into(), "say \"hi\"".into(), "two\nlines".into(), "plain".into()]);
        assert_eq!(row, "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",plain\r\n");
    }

    #[test]
    fn the_bar_fills_with_progress() {
        assert_eq!(bar_line(0, 4, 8), "grading [--------] 0/4");
        assert_eq!(bar_line(2, 4, 8), "grading [####----] 2/4");
        assert_eq!(bar_line(4, 4, 8), "grading [########] 4/4");
    }
}
