//! `workshop start`: copy the starter into work/, never losing the learner's edits.

use std::path::{Path, PathBuf};

use crate::cli::StartArgs;
use crate::commands::Context;
use crate::error::{Error, EXIT_SUCCESS};
use crate::lesson::Lesson;
use crate::progress::Progress;

pub fn run(ctx: &Context, args: StartArgs) -> Result<i32, Error> {
    let Some(id) = args.lesson.as_deref() else {
        return Err(Error::usage(format!("which lesson? The lessons here:\n{}", ctx.lesson_list()?)));
    };
    let lesson = Lesson::load(&ctx.root, id)?;
    let starter = lesson.starter_dir(&ctx.root);
    let files = starter_files(&starter)?;
    if files.is_empty() {
        return Err(Error::corrupt(&starter, "has no files to copy: restore it with git checkout"));
    }
    let work = lesson.work_dir(&ctx.root);
    let mut edited = Vec::new();
    for rel in &files {
        let mine = work.join(rel);
        if mine.exists() {
            let theirs = std::fs::read(starter.join(rel)).map_err(|e| Error::io(ctx.shown(&starter.join(rel)), e))?;
            if std::fs::read(&mine).ok().as_deref() != Some(theirs.as_slice()) {
                edited.push(mine);
            }
        }
    }
    if !edited.is_empty() && !args.force {
        let names: Vec<String> = edited.iter().map(|p| ctx.shown(p)).collect();
        return Err(Error::Refused(format!(
            "{} has your edits, so start left it alone. Keep working on it, or run ./workshop start {} --force to begin again (your version is kept as a copy beside it).",
            names.join(", "),
            lesson.id
        )));
    }
    let mut kept = Vec::new();
    for mine in &edited {
        let backup = backup_name(mine);
        std::fs::rename(mine, &backup)
            .map_err(|e| Error::io(format!("could not keep a copy of {}", ctx.shown(mine)), e))?;
        kept.push(backup);
    }
    for rel in &files {
        copy_atomically(&starter.join(rel), &work.join(rel))
            .map_err(|e| Error::io(format!("could not write {}", ctx.shown(&work.join(rel))), e))?;
    }
    if let Err(e) = Progress::update(&ctx.root, &lesson.id, |p| {
        p.started = true;
        p.started_at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok().map(|d| d.as_secs());
    }) {
        eprintln!("warning: progress was not saved ({e}); your files are fine.");
    }
    let s = &ctx.styles;
    println!(
        "{} {} {} ({})",
        s.paint(s.good, "Started"),
        s.paint(s.strong, &lesson.title),
        ctx.glyphs.dot,
        lesson.course
    );
    println!();
    for backup in &kept {
        println!("  kept     your previous version as {}", ctx.shown(backup));
    }
    let steps = [
        ("read", format!("./workshop lesson {}", lesson.id), "what the lesson is about"),
        ("see", format!("./workshop watch {} --compare", lesson.id), "the starter's failure beside the fix"),
        ("edit", ctx.shown(&lesson.work_file(&ctx.root)), "your file"),
        ("check", format!("./workshop check {}", lesson.id), "until every check is green"),
    ];
    for (i, (word, command, why)) in steps.iter().enumerate() {
        println!("  {}. {word:<6} {}   {}", i + 1, s.paint(s.code, command), s.paint(s.dim, why));
    }
    if args.edit {
        let file = lesson.work_file(&ctx.root);
        crate::editor::open(&file, &ctx.shown(&file))?;
    }
    Ok(EXIT_SUCCESS)
}

/// The starter's files, relative to its folder, sorted.
fn starter_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut found = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        let entries = std::fs::read_dir(dir.join(&rel))
            .map_err(|e| Error::corrupt(&dir.join(&rel), format!("cannot be read: {e}")))?;
        for entry in entries.flatten() {
            let path = rel.join(entry.file_name());
            match entry.file_type() {
                Ok(t) if t.is_dir() => pending.push(path),
                Ok(t) if t.is_file() => found.push(path),
                _ => {}
            }
        }
    }
    found.sort();
    Ok(found)
}

/// `errors.py` → `errors.backup-2026-11-30T07-37-45Z.py`, never an existing name.
fn backup_name(path: &Path) -> PathBuf {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string().replace(':', "-");
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let ext = path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    let mut n = 1;
    loop {
        let suffix = if n == 1 { String::new() } else { format!("-{n}") };
        let candidate = path.with_file_name(format!("{stem}.backup-{stamp}{suffix}{ext}"));
        if !candidate.exists() {
            return candidate;
        }
        n += 1;
    }
}

fn copy_atomically(from: &Path, to: &Path) -> std::io::Result<()> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let temp = to.with_file_name(format!(
        ".{}.tmp-{}",
        to.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(),
        std::process::id()
    ));
    std::fs::copy(from, &temp)?;
    std::fs::rename(&temp, to)
}
