//! `--edit`: open the learner's file in their editor ($VISUAL, else $EDITOR) and wait for it.

use std::path::Path;
use std::process::Command;

use crate::error::{Error, FlagError};

/// The editor command the learner set, if any.
fn editor() -> Option<String> {
    ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|var| std::env::var(var).ok().filter(|v| !v.trim().is_empty()))
}

/// Open `file` and wait until the editor exits. The command goes through `sh -c`, so an editor
/// set with its own arguments (`code --wait`) works.
pub(crate) fn open(file: &Path, shown: &str) -> Result<(), Error> {
    let Some(editor) = editor() else {
        return Err(FlagError::NoEditor { file: shown.to_string() }.into());
    };
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(file)
        .status()
        .map_err(|e| Error::io(format!("could not start the editor '{editor}'"), e))?;
    if !status.success() {
        return Err(FlagError::EditorFailed { editor, status, file: shown.to_string() }.into());
    }
    Ok(())
}
