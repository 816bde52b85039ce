//! The learner's progress, kept in `work/.progress.json`: written atomically (a temp file, then a
//! rename), and read forgivingly (a missing or damaged file is an empty record).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LessonProgress {
    #[serde(default)]
    pub started: bool,
    /// When `start` last ran for the lesson (seconds since 1970), to pick the lesson a command
    /// means when it names none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<u64>,
    /// Checks passed at the last `check` of the learner's own file.
    #[serde(default)]
    pub passed: Option<usize>,
    #[serde(default)]
    pub total: Option<usize>,
    /// Every check has passed at least once (opens `solution`).
    #[serde(default)]
    pub green: bool,
    /// How many hint steps have been shown, per check id.
    #[serde(default)]
    pub hint_steps: BTreeMap<String, usize>,
    /// The last quiz score, as (right, questions).
    #[serde(default)]
    pub quiz: Option<(usize, usize)>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Progress {
    #[serde(default)]
    pub lessons: BTreeMap<String, LessonProgress>,
    /// The lesson a command that named none was last said to mean: the note says it again only
    /// when that changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub announced: Option<String>,
}

/// Far more than any learner's progress takes.
const PROGRESS_CAP: u64 = 1 << 20;

pub(crate) fn path(root: &Path) -> PathBuf {
    root.join("work").join(".progress.json")
}

impl Progress {
    /// Never fails: what cannot be read (a damaged file, a FIFO, a link to a device) is treated
    /// as no progress yet, and is replaced at the next save.
    pub(crate) fn read(root: &Path) -> Progress {
        let text = crate::files::read_data_text(&path(root), PROGRESS_CAP).ok();
        text.and_then(|text| serde_json::from_str(&text).ok()).unwrap_or_default()
    }

    pub(crate) fn write(&self, root: &Path) -> std::io::Result<()> {
        let target = path(root);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let temp = target.with_extension(format!("json.tmp-{}", std::process::id()));
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        // A write cut short (the disk full, a file-size limit) leaves no temporary file behind.
        std::fs::write(&temp, text + "\n")
            .and_then(|()| std::fs::rename(&temp, &target))
            .inspect_err(|_| {
                let _ = std::fs::remove_file(&temp);
            })
    }

    /// Read, change one lesson's entry, write back. Progress is a convenience: failures to save
    /// are reported by the caller as a warning, never as a failed command.
    /// Two commands at once (a `check` and a `hint`) take turns, so neither loses the other's
    /// change: the read-change-write happens under an exclusive lock on `work/.progress.lock`.
    pub(crate) fn update(
        root: &Path,
        lesson: &str,
        change: impl FnOnce(&mut LessonProgress),
    ) -> std::io::Result<()> {
        Progress::change(root, |all| change(all.lessons.entry(lesson.to_string()).or_default()))
    }

    /// Read, change, write back, under the same lock as `update`.
    pub(crate) fn change(root: &Path, change: impl FnOnce(&mut Progress)) -> std::io::Result<()> {
        let target = path(root);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let lock = crate::files::open_lock_file(&target.with_extension("lock"))?;
        // flock(2) on Unix; released when `lock` is closed, at the end of this function.
        lock.lock()?;
        let mut progress = Progress::read(root);
        change(&mut progress);
        progress.write(root)
    }
}
