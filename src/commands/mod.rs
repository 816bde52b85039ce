//! The commands. Each is thin: resolve its input, call the lesson machinery, render, pick an exit code.

pub(crate) mod check;
mod check_on_save;
mod completions;
mod doctor;
mod grade;
mod hint;
mod init;
mod lesson_text;
pub(crate) mod list;
mod pages;
mod quiz;
mod record;
mod record_live;
mod record_runs;
mod reset;
mod solution;
pub(crate) mod start;
pub(crate) mod watch;
mod welcome;

use std::io::IsTerminal;

use std::path::Path;

use crate::cli::{Cli, CodeArg, Command};
pub(crate) use crate::context::Context;
use crate::error::{Corrupt, Error, Flaw, LessonError};
use crate::lesson::Lesson;
use crate::render::styles::{self, Glyphs, Styles};
use crate::replay::CodeChoice;

pub(crate) fn dispatch(cli: Cli) -> Result<i32, Error> {
    // Python starts now, while the lesson is read: most of a `check` or a `watch` is the
    // interpreters' start-up. `watch` only where one interpreter serves its code and its world
    // (see `warm_up`): two starting beside its reading of the recordings measured no gain.
    match &cli.command {
        Some(Command::Check(args)) if check::grades_at_once(args) => warm_up(false),
        Some(Command::Watch(_)) => warm_up(true),
        _ => {}
    }
    let cwd =
        std::env::current_dir().map_err(|e| Error::io("cannot read the current folder", e))?;
    if let Some(Command::Init(args)) = &cli.command {
        if let Some(name) = typed_name() {
            crate::output::set_command(name);
        }
        return init::run(cli.root.as_deref(), args, &cwd);
    }
    let root = crate::course::root::find(cli.root.as_deref(), &cwd)?;
    if let Some(command) = command_from(&root, &cwd) {
        crate::output::set_command(command);
    }
    let ctx = Context {
        root,
        cwd,
        styles: Styles::for_stdout(cli.color),
        glyphs: Glyphs::detect(cli.ascii),
        width: styles::width(),
        stdout_terminal: std::io::stdout().is_terminal(),
        stdin_terminal: std::io::stdin().is_terminal(),
        command: cli.command.as_ref().map(Command::name).unwrap_or("check"),
    };
    let Some(command) = cli.command else {
        return welcome::run(&ctx).map_err(|e| e.relative_to(&ctx.root));
    };
    let result = match command {
        Command::Start(args) => start::run(&ctx, args),
        Command::Check(args) => check::run(&ctx, args),
        Command::Grade(args) => grade::run(&ctx, args),
        Command::List => list::run(&ctx),
        Command::Watch(args) => watch::run(&ctx, args),
        Command::Doctor(args) => doctor::run(&ctx, args),
        Command::Record(args) => record::run(&ctx, args),
        Command::Lesson(args) => lesson_text::run(&ctx, args),
        Command::Quiz(args) => quiz::run(&ctx, args),
        Command::Hint(args) => hint::run(&ctx, args),
        Command::Reset(args) => reset::run(&ctx, args),
        Command::Solution(args) => solution::run(&ctx, args),
        Command::Completions(args) => completions::run(&ctx, args),
        // Handled above, before a root is looked for; the same call, were it ever reached here.
        Command::Init(args) => init::run(cli.root.as_deref(), &args, &ctx.cwd),
    };
    result.map_err(|e| e.relative_to(&ctx.root))
}

/// The warm-up `dispatch` would start, started before the command line is parsed (clap's parsing
/// takes half a millisecond, a few per cent of a `check`), when the words alone say so. A wrong
/// guess costs only itself: `dispatch` warms up as always (once), and a command that ends with
/// its Python unused kills it with the rest.
pub(crate) fn warm_up_early(args: &[std::ffi::OsString]) {
    if let Some(forked_only) = warms_early(args) {
        warm_up(forked_only);
    }
}

/// Start the command's Pythons now (see `bridge::warm_up`), the first reading the world's host
/// ahead, since it is the world's.
pub(crate) fn warm_up(forked_only: bool) {
    crate::bridge::warm_up(forked_only, crate::world::python::host_to_read_ahead());
}

/// `Some(forked_only)`: the words are a `check` that grades at once, or a `watch` (see
/// `dispatch`). Anything it does not know before the command (an option of its own) or after it
/// (help, `--watch`, `--edit`, a word that is not text) is no guess.
fn warms_early(args: &[std::ffi::OsString]) -> Option<bool> {
    let mut words = args.iter().skip(1).map(|a| a.to_str());
    let command = loop {
        match words.next()?? {
            "--root" | "--color" => {
                words.next();
            }
            "--ascii" => {}
            word if word.starts_with("--root=") || word.starts_with("--color=") => {}
            word if word.starts_with('-') => return None,
            word => break word,
        }
    };
    for word in words {
        if matches!(word?, "-h" | "--help" | "-V" | "--version" | "--watch" | "--edit") {
            return None;
        }
    }
    match command {
        "check" => Some(false),
        "watch" => Some(true),
        _ => None,
    }
}

/// How to run the workshop from `cwd`, when that is not `./workshop`: a relative path inside the
/// root (`../../workshop`), else its full path. Where the root has no launcher (a course folder
/// `init` wrote), the name typed when the program was found on PATH. `None` at the root, or
/// with neither.
fn command_from(root: &std::path::Path, cwd: &std::path::Path) -> Option<String> {
    let launcher = root.join("workshop");
    if !launcher.is_file() {
        return typed_name();
    }
    let (root, cwd) = (root.canonicalize().ok()?, cwd.canonicalize().ok()?);
    if cwd == root {
        return None;
    }
    match cwd.strip_prefix(&root) {
        Ok(inside) => Some(format!("{}workshop", "../".repeat(inside.components().count()))),
        Err(_) => Some(launcher.display().to_string()),
    }
}

/// The program's name as the learner typed it, when the shell found it on PATH (`workshop`, not
/// `./workshop` or a path), so messages name commands the same way.
fn typed_name() -> Option<String> {
    let first = std::env::args_os().next()?.into_string().ok()?;
    (!first.is_empty() && !first.contains('/')).then_some(first)
}

/// A run's `code` in the lesson's `script.toml` (for `record`, `record --live` and `doctor`):
/// what `--code` takes, except that a path is from the workshop's root, where the script's paths
/// are written from, wherever the command runs; a wrong one is the script's error.
pub(crate) fn scripted_code(
    ctx: &Context,
    lesson: &Lesson,
    text: &str,
) -> Result<CodeChoice, Error> {
    match CodeArg::parse(text) {
        CodeArg::Named(name) if named_code(lesson, &name).is_none() => {
            let full = ctx.root.join(&name);
            if full.is_file() {
                return Ok(CodeChoice::Path(full));
            }
            let script = lesson.recordings_dir(&ctx.root).join("script.toml");
            let flaw = Flaw::NoCodeFile { code: name.to_string(), choices: code_words(lesson) };
            Err(Corrupt::new(&script, flaw).into())
        }
        other => code(ctx, lesson, &other),
    }
}

/// The reference fix (by its label or as `solution`) or a named mistake; `None` for any other
/// word, which may be a path.
fn named_code(lesson: &Lesson, name: &str) -> Option<CodeChoice> {
    if name == lesson.solution_label || name == "solution" {
        Some(CodeChoice::Solution)
    } else {
        lesson.mistake(name).map(|_| CodeChoice::Mistake(name.to_string()))
    }
}

/// The code words a lesson takes, for messages: `starter, fixed, no-verify`.
fn code_words(lesson: &Lesson) -> String {
    let mistakes: String = lesson.mistakes.iter().map(|m| format!(", {}", m.label)).collect();
    format!("starter, {}{mistakes}", lesson.solution_label)
}

/// `--code` as typed, resolved for a lesson: a word, or a file found as `check --file` is.
pub(crate) fn code(ctx: &Context, lesson: &Lesson, arg: &CodeArg) -> Result<CodeChoice, Error> {
    Ok(match arg {
        CodeArg::Auto if lesson.work_file(&ctx.root).is_file() => CodeChoice::Yours,
        CodeArg::Auto => CodeChoice::Solution,
        CodeArg::Starter => CodeChoice::Starter,
        CodeArg::Yours => CodeChoice::Yours,
        CodeArg::Named(name) => match named_code(lesson, name) {
            Some(choice) => choice,
            None => match ctx.given_file(Path::new(name), "--code") {
                Ok(full) => CodeChoice::Path(full),
                // A word that is no path at all is more likely a mistyped choice.
                Err(_) if !name.contains(['/', '.']) => {
                    let (name, choices) = (name.to_string(), code_words(lesson));
                    return Err(LessonError::UnknownCode { name, choices }.into());
                }
                Err(e) => return Err(e),
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::warms_early;

    fn guess(line: &str) -> Option<bool> {
        let args: Vec<std::ffi::OsString> = line.split(' ').map(Into::into).collect();
        warms_early(&args)
    }

    #[test]
    fn the_warm_up_is_started_before_parsing_only_when_the_words_say_what_dispatch_would_do() {
        assert_eq!(guess("workshop check"), Some(false));
        assert_eq!(
            guess("workshop --root /x --color=never check structured-errors --file a.py"),
            Some(false)
        );
        assert_eq!(guess("workshop --ascii watch --ticket t"), Some(true));
        for no in [
            "workshop",
            "workshop check --watch",
            "workshop check structured-errors --edit",
            "workshop check --help",
            "workshop watch -h",
            "workshop grade class",
            "workshop --unknown check",
            "workshop --root",
            "workshop help check",
        ] {
            assert_eq!(guess(no), None, "{no}");
        }
    }
}
