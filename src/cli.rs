//! The command line, parsed once into plain values. Decisions such as colour are made in
//! `commands::Context`, not here.

use std::path::PathBuf;

use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::lesson::Runtime;
use crate::render::styles::ColorChoice;

/// The shortest deadline a call may have: below it, even a correct file would time out.
const MIN_TIMEOUT: f64 = 0.01;
const MAX_TIMEOUT: f64 = 600.0;

/// A flag's value that is not what the flag takes; clap shows it after the flag's name.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BadValue {
    #[error("'{0}' is not a number of seconds, such as 1 or 2.5")]
    NotSeconds(String),
    #[error("{0} s is out of range: give at least {MIN_TIMEOUT} (10 ms) and at most {MAX_TIMEOUT}, such as 1 or 2.5")]
    SecondsOutOfRange(String),
    #[error("'{0}' is not a factor, such as 0.5 or 2")]
    NotFactor(String),
    #[error("{0} is out of range: give a factor above 0 and at most 100, such as 0.5 or 2")]
    FactorOutOfRange(String),
}

/// `--timeout SECS`: seconds each call of the learner's code may take.
fn parse_timeout(text: &str) -> Result<Duration, BadValue> {
    let secs: f64 = text.trim().parse().map_err(|_| BadValue::NotSeconds(text.to_string()))?;
    if !(secs.is_finite() && (MIN_TIMEOUT..=MAX_TIMEOUT).contains(&secs)) {
        return Err(BadValue::SecondsOutOfRange(text.to_string()));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// `--speed X`: the player and the printed replay accept the same range.
fn parse_speed(text: &str) -> Result<f64, BadValue> {
    let factor: f64 = text.trim().parse().map_err(|_| BadValue::NotFactor(text.to_string()))?;
    if !(factor.is_finite() && factor > 0.0 && factor <= 100.0) {
        return Err(BadValue::FactorOutOfRange(text.to_string()));
    }
    Ok(factor)
}

/// `--code`: any text is a choice or a path, resolved later against the lesson.
fn parse_code(text: &str) -> Result<CodeArg, std::convert::Infallible> {
    Ok(CodeArg::parse(text))
}

#[derive(Debug, Parser)]
#[command(
    name = "workshop",
    version,
    about = "Hands-on lessons about building reliable AI agents, offline, in a terminal.",
    after_help = "Start here:\n  ./workshop                     what this is, your progress, the next command\n  ./workshop list                lessons and your progress\n  ./workshop start <lesson>      copy the starter file into work/\n  ./workshop check <lesson>      grade your file"
)]
pub(crate) struct Cli {
    /// The workshop folder (the one holding lessons/). Default: found upward from here.
    #[arg(long, global = true, env = "WORKSHOP_ROOT", value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// When to colour the output.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Use ASCII marks instead of ✓ and ✗.
    #[arg(long, global = true, env = "WORKSHOP_ASCII", value_parser = clap::builder::BoolishValueParser::new())]
    pub ascii: bool,

    /// None: `./workshop` alone, which greets and names the next command.
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Copy a lesson's starter files into work/<lesson>/ and say what to open.
    #[command(
        after_help = "Examples:\n  ./workshop start <lesson>\n  ./workshop start <lesson> --force   begin again; your version is kept as a copy"
    )]
    Start(StartArgs),
    /// Grade your file for a lesson, one line per check, the first failure explained.
    #[command(
        after_help = "Examples:\n  ./workshop check <lesson>\n  ./workshop check --file solutions/mine.py --format json\n  ./workshop check --file mine.py --format exercism > results.json\n\nWith --watch, keys: r re-run, h the next hint (with the steps so far), n the next lesson once every check is green, q quit.\n\nExit status: 0 all checks pass, 1 some fail, 2 could not run (the file does not load, no Python, bad usage)."
    )]
    Check(CheckArgs),
    /// For course operators: grade a class's files in parallel, one JSON (or CSV) line per file.
    #[command(
        after_help = "Examples:\n  ./workshop grade <lesson> submissions/ > results.jsonl\n  ./workshop grade submissions/ --format csv > results.csv\n  ./workshop grade submissions/ --partition 2/4      the second of four CI jobs\n  ./workshop grade <lesson> solution/ --format exercism --sandbox bwrap\n  ./workshop grade submissions/ --format html > class.html   one page: open it in a browser\n\nIn a folder, every file named like the lesson's work file (the file ./workshop start <lesson> puts in work/<lesson>/) is graded, found recursively; if there is none, every .py file (with --format exercism, each folder is one solution: its file of that name). Files are graded in sorted order, each in a fresh private folder, under bubblewrap where it works (own PIDs, no network, read-only system, cleared environment) and resource limits, and printed in that order. A summary goes to stderr, saying how files were isolated.\n\nExit status: 0 every file got a verdict (pass, fail or error), 2 could not run (no such lesson, no files, no Python, --sandbox bwrap without a working bubblewrap, bad usage)."
    )]
    Grade(GradeArgs),
    /// The lessons, with your progress in each.
    #[command(after_help = "Example:\n  ./workshop list")]
    List,
    /// Replay recorded agent runs of a lesson's tickets as cards.
    #[command(
        after_help = "Examples:\n  ./workshop watch <lesson>\n  ./workshop watch --ticket <ticket> --code starter --expand\n  ./workshop watch --ticket <ticket> --compare\n  ./workshop watch --ticket <ticket> --runtime sdk --code yours --no-anim\n  ./workshop watch <lesson> --compare --html replay.html   one page to share: open it in a browser\n  ANTHROPIC_API_KEY=... ./workshop watch --ticket <ticket> --code yours --live"
    )]
    Watch(WatchArgs),
    /// For lesson authors: replay every combination, check every recording, grade starter and solution.
    #[command(after_help = "Example:\n  ./workshop doctor <lesson>")]
    Doctor(DoctorArgs),
    /// For lesson authors: run every scripted combination and write its authored turns as recordings.
    #[command(
        mut_arg("live", |a| a.help(RECORD_LIVE)),
        after_help = "Examples:\n  ./workshop record <lesson>\n  ANTHROPIC_API_KEY=... ./workshop record <lesson> --live\n  ./workshop record <lesson> --live --ticket <ticket> --runtime harness\n\nWithout --live the replies come from recordings/<lesson>/script.toml and are labelled `authored`. With --live every request goes to the model and each turn is labelled `live` with its model, date and request id; the files are written only once every run went through."
    )]
    Record(RecordArgs),
    /// Read the lesson's text in the terminal.
    #[command(
        after_help = "Examples:\n  ./workshop lesson <lesson>\n  ./workshop lesson --no-pager > lesson.txt\n\nOn a terminal, text longer than the screen goes through $PAGER (default: less -R)."
    )]
    Lesson(LessonArgs),
    /// Test yourself on the lesson's ideas.
    #[command(
        after_help = "Examples:\n  ./workshop quiz <lesson>                  one question at a time\n  ./workshop quiz --answers \"A,B,AC,D,C,A,B,AD,C,BD,A\"  one token per question, in order\n  ./workshop quiz --format json                      the questions and answers, for machines\n  ./workshop quiz --answers \"...\" --format json      each result and the score, for machines\n\nOn a terminal the questions come one at a time, each followed by why every option is right or wrong. Off a terminal (a pipe, a script) give --answers; without it the questions are printed and the exit status is 2, since nothing was graded.\n\nExit status: 0 answered (whatever the score), 1 stopped before the end, 2 could not run (bad --answers, no quiz, no terminal)."
    )]
    Quiz(QuizArgs),
    /// A hint for the first failing check, one step further each time you ask.
    #[command(after_help = "Examples:\n  ./workshop hint\n  ./workshop hint --check <check-id>")]
    Hint(HintArgs),
    /// Put the starter back in work/<lesson>/, keeping your version as a backup beside it.
    #[command(
        after_help = "Examples:\n  ./workshop reset\n  ./workshop reset <lesson> --yes   no question, even on a terminal\n  ./workshop reset --undo          your version back, from its last backup\n\nOn a terminal it asks first (y/N); off a terminal (a script) it goes ahead. Your file is never lost: it is moved to <file>.backup-<time>.py, and --undo moves the last backup back."
    )]
    Reset(ResetArgs),
    /// The reference solution as a diff against your file, once your checks are green.
    #[command(
        after_help = "Examples:\n  ./workshop solution\n  ./workshop solution --reveal   see it before you are green\n\nBefore your checks have been green it refuses, with exit status 1. --reveal asks first (y/N) on a terminal; off a terminal (a pipe, a script) it shows the solution without asking."
    )]
    Solution(SolutionArgs),
    /// Write a course folder to work in: the lessons, their starters, recordings and worlds.
    #[command(
        after_help = "Examples:\n  workshop init                  into ./workshop-course\n  workshop init ~/agents-course\n  cd workshop-course && workshop start <lesson>\n\nThe course comes from the program itself when it was installed as a wheel (pipx, uv tool), else from the workshop folder found as every command finds it (from a clone: ./workshop init DIR). It writes only into a new or empty folder: a folder with files in it, a course folder you already work in above all, is refused (exit status 1) and left as it is.\n\nExit status: 0 written, 1 refused, 2 could not run (no course to copy, a file where the folder should be)."
    )]
    Init(InitArgs),
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  ./workshop completions bash > ~/.local/share/bash-completion/completions/workshop\n  ./workshop completions fish > ~/.config/fish/completions/workshop.fish"
    )]
    Completions(CompletionsArgs),
}

impl Command {
    /// The command's name as typed, for messages that suggest running it again.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Command::Start(_) => "start",
            Command::Check(_) => "check",
            Command::Grade(_) => "grade",
            Command::List => "list",
            Command::Watch(_) => "watch",
            Command::Doctor(_) => "doctor",
            Command::Record(_) => "record",
            Command::Lesson(_) => "lesson",
            Command::Quiz(_) => "quiz",
            Command::Hint(_) => "hint",
            Command::Reset(_) => "reset",
            Command::Solution(_) => "solution",
            Command::Completions(_) => "completions",
            Command::Init(_) => "init",
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct WatchArgs {
    /// The lesson to replay, by name or number. Default: the only lesson, or the one you started.
    pub lesson: Option<String>,
    /// One ticket, by its id (shell completion offers them). Default: all of them, in order.
    #[arg(long, value_name = "ID")]
    pub ticket: Option<String>,
    /// Whose code runs the tools: starter, the lesson's reference fix (by its label, such as
    /// structured, or as solution), yours (work/<lesson>/), one of the lesson's named mistakes
    /// (such as no-verify), or a file path. Default: yours once you have started the lesson,
    /// else the fix.
    #[arg(long, value_name = "starter|solution|yours|PATH", default_value = "auto", hide_default_value = true, value_parser = parse_code)]
    pub code: CodeArg,
    /// The code around the model: harness (retries in code) or sdk (the model decides).
    #[arg(long, value_enum, default_value_t = Runtime::Harness)]
    pub runtime: Runtime,
    /// Compare two runs of each ticket side by side: the starter's, then the chosen code's (the
    /// reference fix while your file is still the starter, then yours, unless --code says
    /// otherwise), marking the first event where they split. The default before you have
    /// started the lesson.
    #[arg(long)]
    pub compare: bool,
    /// Show the raw input and output JSON under each tool call and attempt.
    #[arg(long)]
    pub expand: bool,
    /// Replay speed: 2 is twice as fast.
    #[arg(long, value_name = "X", default_value = "1", value_parser = parse_speed)]
    pub speed: f64,
    /// Print everything at once, with no pacing.
    #[arg(long)]
    pub no_anim: bool,
    /// In the player, skip the prediction question before a starter replay.
    #[arg(long)]
    pub no_predict: bool,
    /// text for people, json for machines.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the replay as one web page to FILE (- for standard output) instead of printing
    /// cards: nothing to fetch, it opens from disk in any browser.
    #[arg(long, value_name = "FILE", conflicts_with = "format")]
    pub html: Option<PathBuf>,
    /// Seconds each call of the code may take before it counts as stuck.
    #[arg(long, value_name = "SECS", default_value = "1", value_parser = parse_timeout)]
    pub timeout: Duration,
    #[command(flatten)]
    pub live: LiveArgs,
}

/// `record --live`: what `--live` does there (LiveArgs says what it does in `watch`).
const RECORD_LIVE: &str = concat!(
    "Ask the model for every turn (key from ANTHROPIC_API_KEY, address from ANTHROPIC_BASE_URL) ",
    "instead of writing the script's authored turns"
);

/// Asking the model itself (the Messages API) instead of only replaying.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct LiveArgs {
    /// Ask the model (key from ANTHROPIC_API_KEY, address from ANTHROPIC_BASE_URL). watch asks
    /// only where no recording answers and keeps the reply under work/<lesson>/recordings/.
    #[arg(long)]
    pub live: bool,
    /// With --live: the most requests one command may send, retries included. Default 50, or
    /// WORKSHOP_LIVE_MAX_REQUESTS.
    #[arg(long, value_name = "N", requires = "live")]
    pub max_requests: Option<u32>,
    /// With --live: seconds one request to the API may take. Default 60.
    #[arg(long, value_name = "SECS", requires = "live")]
    pub request_timeout: Option<f64>,
}

#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// The lesson to examine. Default: every lesson.
    pub lesson: Option<String>,
    /// Seconds each call of the code may take (more on a machine too busy for the default).
    #[arg(long, value_name = "SECS", default_value = "2", value_parser = parse_timeout)]
    pub timeout: Duration,
}

#[derive(Debug, Args)]
pub(crate) struct RecordArgs {
    /// The lesson to record.
    pub lesson: Option<String>,
    /// Seconds each call of the code may take.
    #[arg(long, value_name = "SECS", default_value = "1", value_parser = parse_timeout)]
    pub timeout: Duration,
    /// Record only this ticket's runs. Default: every scripted run.
    #[arg(long, value_name = "ID")]
    pub ticket: Option<String>,
    /// Record only the runs in this runtime. Default: both.
    #[arg(long, value_enum)]
    pub runtime: Option<Runtime>,
    /// With --live: the model to ask; it must be the lesson's agent.model, which the replay sends.
    #[arg(long, value_name = "MODEL", requires = "live")]
    pub model: Option<String>,
    #[command(flatten)]
    pub live: LiveArgs,
}

#[derive(Debug, Args)]
pub(crate) struct LessonArgs {
    /// The lesson to read, by name or number. Default: the only lesson, or the one you started.
    pub lesson: Option<String>,
    /// Print straight to the terminal, without a pager.
    #[arg(long)]
    pub no_pager: bool,
}

#[derive(Debug, Args)]
pub(crate) struct QuizArgs {
    /// The lesson whose quiz to take, by name or number.
    pub lesson: Option<String>,
    /// Answer without prompts: one token per question, in order, such as "C,BD,A".
    #[arg(long, value_name = "LIST")]
    pub answers: Option<String>,
    /// text for people, json to list the questions for machines.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub(crate) struct HintArgs {
    /// The lesson, by name or number.
    pub lesson: Option<String>,
    /// The check to get a hint for. Default: the first failing one.
    #[arg(long, value_name = "ID")]
    pub check: Option<String>,
    /// Then open your file in $VISUAL or $EDITOR.
    #[arg(long)]
    pub edit: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ResetArgs {
    /// The lesson, by name or number. Default: the one you started last.
    pub lesson: Option<String>,
    /// Do not ask first.
    #[arg(long, short)]
    pub yes: bool,
    /// Bring the last backup of your file back instead (it is refused if you edited the file
    /// since the reset).
    #[arg(long)]
    pub undo: bool,
    /// With --undo: bring it back even over edits, which are kept as a backup in turn.
    #[arg(long, requires = "undo")]
    pub force: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SolutionArgs {
    /// The lesson, by name or number.
    pub lesson: Option<String>,
    /// Show it even though your checks are not green yet (asks first on a terminal).
    #[arg(long)]
    pub reveal: bool,
}

#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// The folder to write the course into: new, or empty.
    #[arg(value_name = "DIR", default_value = "workshop-course")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// bash, zsh or fish.
    pub shell: String,
}

#[derive(Debug, Args)]
pub(crate) struct StartArgs {
    /// The lesson to start, by name or number (7). Without one, the lessons are listed.
    pub lesson: Option<String>,
    /// Start again from the starter even if you changed the file. Your version is kept beside it.
    #[arg(long)]
    pub force: bool,
    /// Then open your file in $VISUAL or $EDITOR.
    #[arg(long)]
    pub edit: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The lesson to grade, by name or number. Default: the only lesson, or the one you started.
    pub lesson: Option<String>,
    /// Grade this file instead of your work file in work/<lesson>/.
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// text for people, json for autograders, exercism for an Exercism-style test runner.
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// Seconds each call of your code may take before it counts as stuck.
    #[arg(long, value_name = "SECS", default_value = "1", value_parser = parse_timeout)]
    pub timeout: Duration,
    /// Grade again on every save of the file, until you press q.
    #[arg(long)]
    pub watch: bool,
    /// With --watch: look for changes by polling, for filesystems whose events do not arrive.
    #[arg(long, requires = "watch")]
    pub poll: bool,
    /// First open the file in $VISUAL or $EDITOR; grade it when the editor closes.
    #[arg(long, conflicts_with = "watch")]
    pub edit: bool,
}

#[derive(Debug, Args)]
pub(crate) struct GradeArgs {
    /// The lesson (optional when there is only one), then the files and folders to grade.
    #[arg(value_name = "[LESSON] PATH", required = true, num_args = 1..)]
    pub args: Vec<String>,
    /// The lesson, when its id is also the name of a folder here (then every PATH is a path).
    #[arg(long, value_name = "LESSON")]
    pub lesson: Option<String>,
    /// jsonl: check's JSON report per line; csv: file, status, passed, total, one column per check;
    /// exercism: one Exercism results object (version 3) per line, each PATH one solution;
    /// html: one web page of the whole class, written when every file is graded.
    #[arg(long, value_enum, default_value_t = GradeFormat::Jsonl)]
    pub format: GradeFormat,
    /// auto: bubblewrap where it works, else say what is not isolated; bwrap: refuse without it;
    /// none: no namespaces (a cleared environment, a private folder and limits only).
    #[arg(long, value_enum, default_value_t = SandboxMode::Auto, value_name = "HOW")]
    pub sandbox: SandboxMode,
    /// Files graded at once. Default: the number of cores.
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Grade only the K-th of N equal shards of the sorted file list, such as 2/4.
    #[arg(long, value_name = "K/N")]
    pub partition: Option<String>,
    /// Seconds each call of a file's code may take before it counts as stuck.
    #[arg(long, value_name = "SECS", default_value = "1", value_parser = parse_timeout)]
    pub timeout: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum GradeFormat {
    Jsonl,
    Csv,
    Exercism,
    Html,
}

/// `grade --sandbox`: how each submission is isolated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum SandboxMode {
    Auto,
    Bwrap,
    None,
}

/// `check`'s formats: those of every command, and the results of an Exercism test runner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckFormat {
    Text,
    Json,
    /// results.json of the Exercism test-runner interface, version 3.
    Exercism,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
}

impl clap::ValueEnum for Runtime {
    fn value_variants<'a>() -> &'a [Self] {
        &Runtime::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()))
    }
}

/// `--code` as typed: a word, or the path of a Python file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CodeArg {
    /// Yours once you have started the lesson, else the reference fix.
    Auto,
    Starter,
    Yours,
    /// The reference fix under its lesson's label, or `solution`; else a path.
    Named(String),
}

impl CodeArg {
    pub(crate) fn parse(text: &str) -> CodeArg {
        match text {
            "auto" => CodeArg::Auto,
            "starter" => CodeArg::Starter,
            "yours" => CodeArg::Yours,
            other => CodeArg::Named(other.to_string()),
        }
    }
}
