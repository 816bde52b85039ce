//! `workshop grade`: for course operators, grade a class's files with `check`'s own grading, in
//! parallel, each sandboxed; one line per file on stdout, a summary on stderr.

use std::collections::{BTreeMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::bridge::sandbox::{self, Bubblewrap, Folder, Interpreter, Limits, Unusable};
use crate::bridge::{size_text, BridgeConfig, LoadError, LoadKind};
use crate::checks::{Report, Status};
use crate::cli::{GradeArgs, GradeFormat, SandboxMode};
use crate::commands::Context;
use crate::error::{Error, EXIT_SUCCESS};
use crate::lesson::{self, Lesson};
use crate::output;

/// The most of a submission that is read: a larger file is reported as too big, unread.
pub(super) const SIZE_CAP: u64 = 1 << 20;

/// How a file is named in Exercism's results: the interface wants `<solution-dir>/...` paths.
const SOLUTION_DIR: &str = "<solution-dir>";

/// One file to grade, read before any submission runs, so none can change another's source.
struct Submission {
    /// The path as the operator gave it (a folder joined with the file's place in it).
    shown: String,
    /// The file's own name, kept for the copy that is graded.
    name: OsString,
    source: Result<Vec<u8>, String>,
}

/// A file found to grade: as shown, and where to read it (or why there is nothing to read).
type Candidate = (String, Result<PathBuf, String>);

/// What discovery found: the files to grade, and the entries that look like submissions but
/// are not regular files (FIFOs, devices, sockets, dangling links), skipped.
struct Found {
    files: Vec<Candidate>,
    skipped: Vec<(String, &'static str)>,
}

pub(super) fn run(ctx: &Context, args: GradeArgs) -> Result<i32, Error> {
    let limit = args.timeout;
    let partition = args.partition.as_deref().map(Partition::parse).transpose()?;
    let jobs = match args.jobs {
        Some(0) => {
            return Err(Error::usage("--jobs 0 grades nothing: give 1 or more, or leave it out for one per core."))
        }
        Some(n) => n,
        None => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    };
    let (lesson, paths) = lesson_and_paths(ctx, args.lesson.as_deref(), &args.args)?;
    // The world runs here, outside every sandbox, one process for the whole class.
    let lesson = lesson.opened()?;
    let found = discover(ctx, &lesson, &paths, args.format)?;
    if found.files.is_empty() {
        let skipped = match found.skipped.len() {
            0 => String::new(),
            n => format!(" ({n} skipped: not regular files)"),
        };
        return Err(Error::usage(format!(
            "there is no file to grade in {}{skipped}: give files, or folders holding {} or .py files.",
            paths.join(", "),
            lesson.file
        )));
    }
    let total_found = found.files.len();
    let files = match partition {
        Some(p) => found.files[p.range(total_found)].to_vec(),
        None => found.files,
    };
    let key = crate::sample_key::choose(true)?;
    let mut python = find_python()?;
    reachable_temp()?;
    let isolation = isolate(&mut python, args.sandbox)?;
    if let Some(warning) = isolation.warning() {
        output::note(&wrapped(&warning));
    }
    let submissions: Vec<Submission> = files.iter().map(|(shown, path)| read(shown, path)).collect();

    let started = Instant::now();
    let reports = grade_all(&lesson, &submissions, &python, limit, jobs.min(submissions.len().max(1)), args.format)?;
    // A world that broke is its author's error: no grade stands on it.
    if let Some(e) = lesson.world_error() {
        return Err(e);
    }
    let context = Summary {
        found: total_found,
        partition,
        took: started.elapsed(),
        isolation: &isolation,
        skipped: &found.skipped,
        key,
    };
    if args.format == GradeFormat::Html {
        super::pages::class(&lesson, &reports, &isolation.line(), &found.skipped)?;
    }
    output::note(summary(&reports, &context).trim_end());
    Ok(EXIT_SUCCESS)
}

/// `[LESSON] PATH...`: the first word names a lesson when more follow and it is no file or folder.
/// A word that is both is an error: which was meant cannot be known.
fn lesson_and_paths(ctx: &Context, named: Option<&str>, args: &[String]) -> Result<(Lesson, Vec<String>), Error> {
    if let Some(id) = named {
        return Ok((ctx.lesson(Some(id))?, args.to_vec()));
    }
    let (first, rest) = args.split_first().ok_or_else(|| Error::usage("give the files or folders to grade."))?;
    let is_path = std::fs::symlink_metadata(ctx.cwd.join(first)).is_ok();
    let is_lesson = lesson::validate_id(first).is_ok() && lesson::known_ids(&ctx.root).contains(first);
    if is_path && is_lesson {
        return Err(Error::usage(format!(
            "'{first}' is both a lesson and a folder here, so which you mean is unclear. To grade the folder, write it as a path (./{first}/); to name the lesson, use --lesson {first}."
        )));
    }
    if !is_path && !rest.is_empty() {
        if !is_lesson {
            let known = lesson::known_ids(&ctx.root).join(", ");
            return Err(Error::usage(format!(
                "'{first}' is neither a lesson nor a file or folder here. Lessons: {known}; then give the files or folders to grade."
            )));
        }
        return Ok((ctx.lesson(Some(first))?, rest.to_vec()));
    }
    if is_lesson {
        return Err(Error::usage(format!(
            "give the files or folders to grade after the lesson, such as: ./workshop grade {first} submissions/"
        )));
    }
    Ok((ctx.lesson(None)?, args.to_vec()))
}

/// Why a link is graded as an error and never read: it would grade (or quote) the bytes of
/// another name, a classmate's file or one of the grading user's own.
const LINK: &str = "is a link, not a file: submit the file itself";

/// Every file to grade, as (the path as shown, the path to read), in one sorted order, each path
/// once however it was spelled (`g01`, `./g01`). Each name is graded as itself: a link in a
/// folder is a line of its own that says so, never the file it leads to, and two names never
/// merge. In a folder: the files named like the lesson's work file, else every `.py` file, found
/// recursively. With `--format exercism` each path is one solution: a folder gives its work
/// file, or a report that it is missing.
fn discover(ctx: &Context, lesson: &Lesson, paths: &[String], format: GradeFormat) -> Result<Found, Error> {
    let mut found: Vec<(String, Result<PathBuf, String>)> = Vec::new();
    let mut skipped = Vec::new();
    for given in paths {
        let path = ctx.cwd.join(given);
        let meta = std::fs::metadata(&path);
        let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        if is_link && !meta.as_ref().is_ok_and(|m| m.is_dir()) {
            found.push((given.clone(), Err(format!("{} {LINK}.", shown_path(Path::new(given))))));
            continue;
        }
        if meta.as_ref().is_ok_and(|m| m.is_file()) {
            let shown = match format {
                GradeFormat::Exercism => solution_path(path.file_name().map(Path::new).unwrap_or(Path::new(given))),
                _ => given.clone(),
            };
            found.push((shown, Ok(path)));
            continue;
        }
        match (&meta, std::fs::symlink_metadata(&path)) {
            (Ok(m), _) if m.is_dir() => {}
            (Ok(m), _) => {
                return Err(Error::usage(format!(
                    "{given} is {}, not a file or folder: give the submissions' files or folders.",
                    special_kind(m)
                )))
            }
            (Err(_), Ok(_)) => {
                return Err(Error::usage(format!(
                    "{given} is a link to nothing: give the submissions' files or folders."
                )))
            }
            (Err(_), Err(_)) => {
                return Err(Error::usage(format!("there is no file or folder at {given}: check the path.")))
            }
        }
        if format == GradeFormat::Exercism {
            let file = path.join(&lesson.file);
            let shown = solution_path(Path::new(&lesson.file));
            let meta = std::fs::symlink_metadata(&file);
            if meta.as_ref().is_ok_and(|m| m.file_type().is_symlink()) {
                found.push((shown.clone(), Err(format!("{shown} {LINK}."))));
            } else if meta.is_ok_and(|m| m.is_file()) {
                found.push((shown, Ok(file)));
            } else {
                let why = format!(
                    "{SOLUTION_DIR} has no {name}: the solution is graded from {name} at the top of the solution folder.",
                    name = lesson.file
                );
                found.push((shown, Err(why)));
            }
            continue;
        }
        let mut inside = Walk::default();
        walk(&path, Path::new(""), &mut inside)?;
        let named = |rel: &PathBuf| rel.file_name() == Some(OsStr::new(&lesson.file));
        let python = |rel: &PathBuf| rel.extension() == Some(OsStr::new("py"));
        let any_named = inside.files.iter().chain(&inside.links).any(named);
        let chosen = |rel: &&PathBuf| if any_named { named(rel) } else { python(rel) };
        let shown = |rel: &Path| shown_path(&Path::new(given).join(rel));
        found.extend(inside.files.iter().filter(chosen).map(|rel| (shown(rel), Ok(path.join(rel)))));
        found
            .extend(inside.links.iter().filter(chosen).map(|rel| (shown(rel), Err(format!("{} {LINK}.", shown(rel))))));
        skipped.extend(
            inside
                .special
                .into_iter()
                .filter(|(rel, _)| named(rel) || python(rel))
                .map(|(rel, what)| (shown(&rel), what)),
        );
    }
    found.sort();
    // The same path spelled twice (`g01` and `./g01/`) is one file; two names are two files,
    // whatever they lead to, so no name can take another's line.
    let mut seen = HashSet::new();
    found.retain(|(shown, path)| match path {
        Ok(path) => seen.insert(path.components().collect::<PathBuf>()),
        Err(_) => seen.insert(PathBuf::from(shown)),
    });
    skipped.sort();
    Ok(Found { files: found, skipped })
}

/// A path as the results name it: text as it is (control characters stay, for JSON to carry
/// and the summary and CSV to escape; `inert::path` escapes them too, for a terminal), and each
/// byte that is not UTF-8 as `\xNN` (a backslash itself as `\\`), so two names never merge.
fn shown_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

/// `<solution-dir>/errors.py`.
fn solution_path(rel: &Path) -> String {
    Path::new(SOLUTION_DIR).join(rel).to_string_lossy().into_owned()
}

/// What a file that is neither a regular file nor a folder is, in words.
fn special_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

/// The entries under a folder: regular files, symbolic links (never followed), and the rest
/// that was skipped.
#[derive(Default)]
struct Walk {
    files: Vec<PathBuf>,
    links: Vec<PathBuf>,
    special: Vec<(PathBuf, &'static str)>,
}

/// The files under `dir` (relative to the folder given), skipping hidden folders and bytecode.
/// No symbolic link is followed: a link to a folder is no submission, and a loop of them cannot
/// trap the walk; a link to a file is listed as a link.
fn walk(dir: &Path, rel: &Path, out: &mut Walk) -> Result<(), Error> {
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
            continue;
        }
        match std::fs::metadata(entry.path()) {
            // A link to a folder is no submission (see above).
            Ok(meta) if file_type.is_symlink() && meta.is_dir() => {}
            _ if file_type.is_symlink() => out.links.push(rel.join(&name)),
            Ok(meta) if meta.is_file() => out.files.push(rel.join(&name)),
            Ok(meta) => out.special.push((rel.join(&name), special_kind(&meta))),
            Err(_) => out.special.push((rel.join(&name), "gone while it was listed")),
        }
    }
    Ok(())
}

/// Read a submission, at most `SIZE_CAP` of it: a larger one is reported as too big without
/// being read. Opened without blocking and checked again once open, so a file swapped for a
/// FIFO or a device after discovery is refused rather than waited on or read from.
fn read(shown: &str, path: &Result<PathBuf, String>) -> Submission {
    let name =
        |path: &Path| path.file_name().map(OsStr::to_os_string).unwrap_or_else(|| OsString::from("submission.py"));
    let path = match path {
        Ok(path) => path,
        Err(why) => {
            return Submission {
                shown: shown.to_string(),
                name: OsString::from("submission.py"),
                source: Err(why.clone()),
            }
        }
    };
    Submission { shown: shown.to_string(), name: name(path), source: read_capped(shown, path) }
}

fn read_capped(shown: &str, path: &Path) -> Result<Vec<u8>, String> {
    let too_big = |bytes: u64| {
        // Just over the cap, rounded sizes would read "1 MiB, more than the 1 MiB".
        let (size, cap) = match size_text(bytes) == size_text(SIZE_CAP) {
            true => (format!("{bytes} bytes"), format!("{SIZE_CAP} bytes")),
            false => (size_text(bytes), size_text(SIZE_CAP)),
        };
        format!("{shown} is {size}, more than the {cap} a submission may be, so it was not read and no check ran.")
    };
    use crate::files::Submitted as Read;
    match crate::files::read_submission(path, SIZE_CAP) {
        Ok(Read::Bytes(source)) => Ok(source),
        Ok(Read::TooBig(bytes)) => Err(too_big(bytes)),
        Ok(Read::Link) => Err(format!("{shown} {LINK}.")),
        Ok(Read::HardLinked(names)) => Err(format!("{shown} {LINK} (the same file has {names} names, by hard links).")),
        Ok(Read::NotRegular(what)) => Err(format!("could not read {shown}: it is {what}, not a regular file")),
        Ok(Read::Nothing) => {
            Err(format!("could not read {shown}: {}", std::io::Error::from_raw_os_error(libc::ENOENT)))
        }
        Err(e) => Err(format!("could not read {shown}: {e}")),
    }
}

/// The interpreter, found once with the operator's environment (see `Interpreter`).
fn find_python() -> Result<Interpreter, Error> {
    let python = BridgeConfig::default_python();
    Interpreter::find(&python).map_err(|why| {
        let next = match sandbox::as_root() {
            true => format!(
                "grade runs as root, so every submission runs as the unprivileged user nobody (uid {}), who must be able to run it: set WORKSHOP_PYTHON to an interpreter outside root's home (such as /usr/bin/python3), or run grade as a grading user of its own (docs/operators.md)",
                sandbox::GRADER
            ),
            false => "Install Python 3, or set WORKSHOP_PYTHON to a Python 3 interpreter".into(),
        };
        Error::Load(LoadError {
            kind: LoadKind::NoPython,
            message: format!("could not run Python 3 as {}: {why}. {next}.", python.to_string_lossy()),
            output: String::new(),
            no_python: None,
            signal: None,
        })
    })
}

/// As root, each submission's folder is made in the temp folder and handed to the grading
/// user, who must be able to enter every folder above it: said before anything is graded.
fn reachable_temp() -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    if !sandbox::as_root() {
        return Ok(());
    }
    let temp = std::env::temp_dir();
    let closed = temp.ancestors().find(|dir| std::fs::metadata(dir).is_ok_and(|m| m.permissions().mode() & 0o001 == 0));
    match closed {
        None => Ok(()),
        Some(dir) => Err(Error::usage(format!(
            "grade runs as root, so each submission runs as the user nobody (uid {}), who cannot enter {} to reach its copy in the temp folder {}: set TMPDIR to a folder every user may enter, such as /tmp.",
            sandbox::GRADER,
            dir.display(),
            temp.display()
        ))),
    }
}

/// How the submissions of this run are isolated, decided once.
enum Isolation {
    Bwrap(String),
    /// Without namespaces: asked for (`--sandbox none`), or bubblewrap could not run here.
    Without(Option<Unusable>),
}

const INSTALL: &str = "Install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)";
const NAMESPACES: &str = "bubblewrap needs user namespaces: see sysctl user.max_user_namespaces (and kernel.unprivileged_userns_clone on Debian, kernel.apparmor_restrict_unprivileged_userns on Ubuntu 24.04); Docker's default seccomp profile blocks them inside a container";

/// `--sandbox`: bubblewrap when it is asked for or (`auto`) when it works here.
fn isolate(python: &mut Interpreter, mode: SandboxMode) -> Result<Isolation, Error> {
    if mode == SandboxMode::None {
        return Ok(Isolation::Without(None));
    }
    match Bubblewrap::probe(python) {
        Ok(bwrap) => {
            let version = bwrap.version.clone();
            python.use_bwrap(bwrap);
            Ok(Isolation::Bwrap(version))
        }
        Err(unusable) if mode == SandboxMode::Bwrap => {
            let next = if unusable.installed { NAMESPACES } else { INSTALL };
            Err(Error::usage(format!(
                "--sandbox bwrap: {}. {next}; or grade with --sandbox auto, which says what is then not isolated.",
                unusable.why
            )))
        }
        Err(unusable) => Ok(Isolation::Without(Some(unusable))),
    }
}

impl Isolation {
    /// The warning said before grading when `auto` found no working bubblewrap.
    fn warning(&self) -> Option<String> {
        match self {
            Isolation::Without(Some(unusable)) => Some(format!(
                "warning: grading without a sandbox, since {}. Not isolated: {}. {}, or pass --sandbox none to say this is intended.",
                unusable.why,
                sandbox::MISSING_WITHOUT,
                if unusable.installed { NAMESPACES } else { INSTALL }
            )),
            _ => None,
        }
    }

    /// The summary's line on isolation.
    fn line(&self) -> String {
        match self {
            Isolation::Bwrap(version) => format!("sandbox: {version}: {}", sandbox::HELD_WITH_BWRAP),
            Isolation::Without(None) => {
                format!("sandbox: none (--sandbox none); not isolated: {}", sandbox::MISSING_WITHOUT)
            }
            Isolation::Without(Some(unusable)) => {
                format!("sandbox: none, since {}; not isolated: {}", unusable.why, sandbox::MISSING_WITHOUT)
            }
        }
    }
}

/// Grade every submission on `jobs` threads and print each line in order as soon as the ones
/// before it are done. One file's trouble is its own verdict; only a failure of the machinery
/// (no temporary folder) stops the run.
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
                    if let Err(e) = output::print(&line(report, lesson, format, printed == 0)) {
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

/// Grade one file: a fresh private folder holding a copy of it, and `check`'s grading, sandboxed.
fn grade_one(
    lesson: &Lesson,
    sub: &Submission,
    python: &Interpreter,
    limit: Duration,
    limits: Limits,
) -> Result<Report, Error> {
    let unread = |message: String| {
        let error = LoadError::new(LoadKind::Unreadable, message);
        Ok(Report::not_loaded(lesson, sub.shown.clone(), &error))
    };
    let source = match &sub.source {
        Ok(source) => source,
        Err(why) => return unread(why.clone()),
    };
    let folder = Folder::new()
        .map_err(|e| Error::io("could not make a temporary folder to grade in (is the temp folder full?)", e))?;
    let file = folder
        .write(&sub.name, source)
        .map_err(|e| Error::io(format!("could not copy {} to grade it", sub.shown), e))?;
    let sandbox = python.sandbox(folder.path().to_path_buf(), &[sub.name.as_os_str()], limits);
    let graded = crate::grading::grade_sandboxed(lesson, &file, &sub.shown, limit, python.executable.clone(), sandbox);
    let mut report = match graded {
        Ok(report) => report,
        // Python ran for this grading's start, so what ended it before it said hello is this
        // file's neighbours or the machine, not a missing Python: this file's error, not the run's.
        Err(e) => {
            let why = e.message.split_once(": ").map_or(e.message.as_str(), |(_, why)| why);
            let why = why.split(". Install Python 3").next().unwrap_or(why);
            return unread(format!(
                "{}: its Python ended before it started the runner ({why}); grade this file again on its own.",
                sub.shown
            ));
        }
    };
    relabel(&mut report, folder.path(), &sub.shown);
    drop(folder);
    Ok(report)
}

/// Messages name the file as shown, not the private copy it was graded from.
fn relabel(report: &mut Report, dir: &Path, shown: &str) {
    let Some(dir) = dir.to_str() else { return };
    let parent = Path::new(shown).parent().and_then(Path::to_str).filter(|p| !p.is_empty()).unwrap_or(".");
    let fix = |text: &mut String| {
        if text.contains(dir) {
            *text = text.replace(dir, parent);
        }
    };
    fix(&mut report.message);
    for check in &mut report.checks {
        fix(&mut check.message);
    }
}

/// One line of output for a report; the CSV header comes before the first. Values are shortened
/// as `check --format json` shortens them, and control characters never go out raw.
fn line(report: &Report, lesson: &Lesson, format: GradeFormat, first: bool) -> String {
    match format {
        GradeFormat::Jsonl => {
            let json = serde_json::to_string(&crate::render::check::shortened(report))
                .unwrap_or_else(|e| format!("{{\"status\": \"error\", \"message\": \"{e}\"}}"));
            format!("{}\n", crate::inert::json(json))
        }
        GradeFormat::Exercism => {
            let value = crate::render::exercism::results_value(report, |id| lesson.check(id).and_then(|c| c.task));
            let json = serde_json::to_string(&value)
                .unwrap_or_else(|e| format!("{{\"version\": 3, \"status\": \"error\", \"message\": \"{e}\"}}"));
            format!("{}\n", crate::inert::json(json))
        }
        // The page needs every report, so it is written once all are in.
        GradeFormat::Html => String::new(),
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

/// A CSV row as RFC 4180 has it: a field with a comma or a quote is quoted, and its quotes
/// doubled. Control characters are escaped, and a cell that a spreadsheet would take for a
/// formula (starting with `=`, `+`, `-` or `@`) gets a leading `'`, as OWASP advises against
/// CSV injection. Short enough that a crate would weigh more than it saves.
fn csv_row(fields: &[String]) -> String {
    let cells: Vec<String> = fields
        .iter()
        .map(|f| {
            let mut cell = crate::inert::one_line(f).into_owned();
            if cell.starts_with(['=', '+', '-', '@']) {
                cell.insert(0, '\'');
            }
            if cell.contains([',', '"']) {
                format!("\"{}\"", cell.replace('"', "\"\""))
            } else {
                cell
            }
        })
        .collect();
    format!("{}\r\n", cells.join(","))
}

/// `--partition K/N`: the K-th of N contiguous shards of the sorted list, sizes within one of
/// each other. Shards 1..N in order are the whole list in order, so their outputs concatenate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Partition {
    k: u64,
    n: u64,
}

impl Partition {
    fn parse(text: &str) -> Result<Partition, Error> {
        let bad = || {
            Error::usage(format!(
                "--partition {text} is not K/N: give the shard and the number of shards, such as 2/4 for the second of four jobs."
            ))
        };
        let out_of_range = |m: u64| {
            Error::usage(format!(
                "--partition {text} is out of range: K must be from 1 to N and N at least 1, such as 1/{m} to {m}/{m}."
            ))
        };
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let number = |part: &str| -> Result<u64, Error> {
            let part = part.trim();
            match part.parse::<u64>() {
                Ok(value) => Ok(value),
                // All digits, but past what any machine could shard: out of range, not malformed.
                Err(_) if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) => Err(out_of_range(4)),
                Err(_) => Err(bad()),
            }
        };
        let (k, n) = (number(k)?, number(n)?);
        if n == 0 || k == 0 || k > n {
            return Err(out_of_range(n.clamp(1, 9999)));
        }
        Ok(Partition { k, n })
    }

    /// The shard's slice of a list of `len`, worked out in 128 bits so no K/N overflows.
    fn range(self, len: usize) -> std::ops::Range<usize> {
        let at = |k: u64| usize::try_from(len as u128 * u128::from(k) / u128::from(self.n)).unwrap_or(len);
        at(self.k - 1)..at(self.k)
    }
}

/// What the summary says beside the reports.
struct Summary<'a> {
    found: usize,
    partition: Option<Partition>,
    took: Duration,
    isolation: &'a Isolation,
    skipped: &'a [(String, &'static str)],
    /// The sample key of this run (see `sample_key`).
    key: u64,
}

/// What the operator reads on stderr: the counts, how files were isolated, then each check with
/// how many files fail it. Names and messages come from submissions: shown escaped.
fn summary(reports: &[Report], context: &Summary) -> String {
    use std::fmt::Write as _;
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
    let _ = writeln!(
        out,
        "{}",
        wrapped(&format!(
            "samples: drawn with the key {:016x}, new each run; WORKSHOP_SEED={:016x} repeats this run's reports",
            context.key, context.key
        ))
    );
    // Each check in lesson order, then sorted by files not passing it (failed, or could not
    // run): a stable sort keeps ties in order.
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
            *errors += usize::from(check.status == Status::Error && report.status != Status::Error);
        }
    }
    let not_passed = |id: &str| fails.get(id).map_or(0, |(f, e)| f + e);
    order.sort_by_key(|(id, _)| std::cmp::Reverse(not_passed(id)));
    let (failed, clean): (Vec<_>, Vec<_>) = order.iter().partition(|(id, _)| not_passed(id) > 0);
    if !failed.is_empty() {
        let _ =
            writeln!(out, "files failing each check, most failed first (each file's line on stdout names its checks):");
        let width = failed.iter().map(|(id, _)| id.len()).max().unwrap_or(0);
        for (id, name) in &failed {
            let (f, e) = fails[id];
            let errors = if e > 0 { format!(" ({e} could not run it)") } else { String::new() };
            let _ = writeln!(out, "  {:>4}  {id:<width$}  {name}{errors}", f + e);
        }
    }
    if !clean.is_empty() && !reports.is_empty() {
        let ids: Vec<&str> = clean.iter().map(|(id, _)| id.as_str()).collect();
        let text =
            format!("no file fails {}: {}", if failed.is_empty() { "any check" } else { "the others" }, ids.join(", "));
        let _ = writeln!(out, "{}", wrapped(&text));
    }
    let errors: Vec<&Report> = reports.iter().filter(|r| r.status == Status::Error).collect();
    if !errors.is_empty() {
        let _ = writeln!(out, "files that did not load (no check ran):");
        for report in errors.iter().take(10) {
            let first: String = report.message.lines().next().unwrap_or("").chars().take(300).collect();
            let _ = writeln!(out, "  {}: {}", crate::inert::one_line(&report.file), crate::inert::one_line(&first));
        }
        if errors.len() > 10 {
            let _ = writeln!(out, "  … and {} more (see their lines on stdout)", errors.len() - 10);
        }
    }
    if !context.skipped.is_empty() {
        let _ = writeln!(out, "skipped, not regular files:");
        for (shown, what) in context.skipped {
            let _ = writeln!(out, "  {}: {what}", crate::inert::one_line(shown));
        }
    }
    out
}

/// A paragraph of the summary, wrapped at 96 columns, its later lines indented.
fn wrapped(text: &str) -> String {
    let options =
        textwrap::Options::new(96).subsequent_indent("  ").word_splitter(textwrap::WordSplitter::NoHyphenation);
    textwrap::wrap(text, options).join("\n")
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
        for bad in ["0/3", "4/3", "1/0", "0/0", "1/99999999999999999999", "18446744073709551616/2"] {
            assert!(Partition::parse(bad).unwrap_err().to_string().contains("out of range"), "{bad}");
        }
        for bad in ["2", "a/b", "1/2/3", "-1/2", "", "/"] {
            assert!(Partition::parse(bad).unwrap_err().to_string().contains("is not K/N"), "{bad}");
        }
    }

    #[test]
    fn partition_arithmetic_cannot_overflow() {
        let huge = Partition { k: u64::MAX, n: u64::MAX };
        assert_eq!(huge.range(usize::MAX), usize::MAX - 1..usize::MAX);
        let first = Partition { k: 1, n: u64::MAX };
        assert_eq!(first.range(3), 0..0);
        assert_eq!(Partition { k: u64::MAX - 1, n: u64::MAX }.range(10), 9..9);
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let row = csv_row(&["a,b".into(), "say \"hi\"".into(), "two\nlines".into(), "plain".into()]);
        assert_eq!(row, "\"a,b\",\"say \"\"hi\"\"\",two\\nlines,plain\r\n");
    }

    #[test]
    fn csv_cells_that_a_spreadsheet_would_run_are_neutralised() {
        let row = csv_row(&[
            "=HYPERLINK(\"x\")".into(),
            "+1".into(),
            "-2".into(),
            "@SUM(A1)".into(),
            "\tx".into(),
            "a=b".into(),
        ]);
        assert_eq!(row, "\"'=HYPERLINK(\"\"x\"\")\",'+1,'-2,'@SUM(A1),\\tx,a=b\r\n");
        assert_eq!(csv_row(&["a\x1b[2Jb\rc".into()]), "a\\x1b[2Jb\\rc\r\n");
    }

    #[test]
    fn the_bar_fills_with_progress() {
        assert_eq!(bar_line(0, 4, 8), "grading [--------] 0/4");
        assert_eq!(bar_line(2, 4, 8), "grading [####----] 2/4");
        assert_eq!(bar_line(4, 4, 8), "grading [########] 4/4");
    }
}

#[cfg(test)]
mod bar_tests {
    use super::*;

    #[test]
    fn the_bar_counts_each_file_graded_once() {
        let mut bar = Bar { total: 3, done: 0, on: false };
        for done in 1..=3 {
            bar.tick();
            assert_eq!(bar.done, done);
            assert_eq!(
                bar_line(bar.done, bar.total, 3),
                format!("grading [{}{}] {done}/3", "#".repeat(done), "-".repeat(3 - done))
            );
        }
    }
}
