//! A lesson's recordings, or its recording script, not there to use. Paths as shown.

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{dir} has no script.toml, so there is nothing to record.")]
    NoScript { dir: String },
    /// `--ticket` and `--runtime` (either may be absent) select no run of the script.
    #[error(
        "the script has no run for {}{}: see the [[run]] entries of script.toml.",
        ticket.as_ref().map_or("any ticket".to_string(), |t| format!("ticket {t}")),
        runtime.as_ref().map_or(String::new(), |r| format!(" in the {r} runtime"))
    )]
    NoRun { ticket: Option<String>, runtime: Option<String> },
    #[error(
        "there are no recordings for this lesson: {dir} is missing. Restore it (git checkout -- \
         recordings) or make it with ./workshop record."
    )]
    NoRecordings { dir: String },
    #[error(
        "{file} is missing, so this ticket has no recorded turns. Restore it (git checkout -- \
         recordings) or make it with ./workshop record."
    )]
    FileMissing { file: String },
}
