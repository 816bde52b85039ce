//! What a command chose not to do, to protect the learner's work (exit code 1), and how to do it
//! anyway.

#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// `start` or `reset` (`command`) found edits in the work files.
    #[error(
        "{} has your edits, so {command} left it alone. Keep working on it, or run ./workshop \
         {command} {lesson} --force (or ./workshop reset {lesson}) to begin again: your version \
         is kept as a copy beside it.",
        files.join(", ")
    )]
    Edited { files: Vec<String>, command: String, lesson: String },
    #[error(
        "{file} was saved while {command} ran, so it was left as it is. Run ./workshop {command} \
         {lesson} again to begin from the starter."
    )]
    SavedMeanwhile { file: String, command: String, lesson: String },
    /// `reset --undo` found `file` changed since the reset that kept `backup`.
    #[error(
        "{file} has changed since it was reset, so --undo left it alone. To bring back {backup} \
         anyway, keeping this version as a backup too: ./workshop reset {lesson} --undo --force"
    )]
    ChangedSinceReset { file: String, backup: String, lesson: String },
    #[error(
        "{file} was saved while reset ran, so it was left as it is. Run ./workshop reset {lesson} \
         --undo again."
    )]
    SavedDuringUndo { file: String, lesson: String },
    #[error(
        "the solution opens once ./workshop check {lesson} is green, and it is not yet. Try \
         ./workshop hint {lesson} first; to see it anyway, run ./workshop solution {lesson} \
         --reveal."
    )]
    SolutionLocked { lesson: String },
    #[error(
        "{dest} is a course folder already, and init never writes over one: your work there \
         stays as it is. Carry on in it (cd {dest}, then ./workshop list), or name a new folder \
         to begin afresh."
    )]
    CourseThere { dest: String },
    #[error(
        "{dest} is not empty, and init writes a course only into a new or empty folder, so that \
         nothing there is replaced. Name a new folder, such as ./workshop init workshop-course."
    )]
    NotEmpty { dest: String },
}
