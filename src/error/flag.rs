//! A flag, or the setting that stands for one (`WORKSHOP_SEED`, `EDITOR`), that cannot be used
//! as given: what was given, and what to give instead.

use super::Cause;

#[derive(Debug, thiserror::Error)]
pub enum FlagError {
    #[error("--jobs 0 grades nothing: give 1 or more, or leave it out for one per core.")]
    NoJobs,
    #[error(
        "--watch redraws a report for a person after every save, and --format json or exercism \
         prints one report for a program: drop one of them."
    )]
    WatchWithFormat,
    #[error(
        "--partition {text} is not K/N: give the shard and the number of shards, such as 2/4 for \
         the second of four jobs."
    )]
    PartitionNotShard { text: String },
    /// K or N out of range; `most` is the largest N that makes sense in the example.
    #[error(
        "--partition {text} is out of range: K must be from 1 to N and N at least 1, such as \
         1/{most} to {most}/{most}."
    )]
    PartitionRange { text: String, most: u64 },
    #[error(
        "--answers has {given} token{} but the quiz has {asked} questions: give one per question, \
         in order, separated by commas, such as \"A,BD,C\".",
        if *given == 1 { "" } else { "s" }
    )]
    AnswerCount { given: usize, asked: usize },
    /// The answer for question `number` (from 1) cannot be read: the quiz's own error says why.
    #[error("--answers token {number} (\"{token}\", for question {number}): {source}.")]
    AnswerToken { number: usize, token: String, source: Cause },
    #[error("--html {shown} is a folder: give a file name, such as {shown}/replay.html.")]
    HtmlFolder { shown: String },
    /// `record --live --model` names another model than the lesson's manifest (`named`).
    #[error(
        "--model {model} is not the model lessons/{lesson}/lesson.toml names ({named}); replays \
         send that one, so turns recorded with {model} would never be found. Set agent.model = \
         \"{model}\" there, then record again."
    )]
    OtherModel { model: String, lesson: String, named: String },
    /// `--sandbox bwrap` where bubblewrap cannot run: the probe's own account, then `next`.
    #[error(
        "--sandbox bwrap: {why}. {next}; or grade with --sandbox auto, which says what is then \
         not isolated."
    )]
    Bwrap { why: String, next: &'static str },
    /// `--sandbox bwrap` off Linux; `instead` is where to grade instead, as a sentence.
    #[error(
        "--sandbox bwrap: the bubblewrap sandbox is Linux-only, and this system is {os}. \
         {instead}; or grade here with --sandbox none, which isolates less."
    )]
    BwrapNotLinux { os: String, instead: String },
    #[error(
        "WORKSHOP_SEED={text} is not a sample key: give up to 16 hexadecimal digits (as grade's \
         summary prints them), or unset it."
    )]
    SampleKey { text: String },
    #[error("no completions for the shell '{name}': choose one of {}.", choices.join(", "))]
    Shell { name: String, choices: Vec<&'static str> },
    /// `--edit` with neither `VISUAL` nor `EDITOR` set; `file` as shown.
    #[error(
        "--edit needs an editor: set VISUAL or EDITOR (export EDITOR=nano, say), or open {file} \
         yourself."
    )]
    NoEditor { file: String },
    #[error(
        "the editor '{editor}' ended with {status}; {file} is as it saved it. Check VISUAL or \
         EDITOR."
    )]
    EditorFailed { editor: String, status: std::process::ExitStatus, file: String },
    /// `--live` without what it needs (a key, a build with it): the live client's own words.
    #[error(transparent)]
    Live(Cause),
}
