//! Watching one file for saves, as editors make them.
//!
//! The file's *folder* is watched, not the file: many editors (vim among them) save by writing a
//! new file and renaming it over the old one, or by way of a swap file, and a watch on the old
//! file's inode would see nothing after the first such save. Events for other names in the folder
//! (swap files, backups, `__pycache__`) are ignored. A burst of events from one save arrives as
//! one [`Change`], after [`DEBOUNCE`] of quiet.
//!
//! `--poll` uses notify's `PollWatcher`, for filesystems that send no events (WSL mounts of
//! Windows drives, network drives). [`Staleness`] notices when the file changed on disk but no
//! event came, so the learner can be told about `--poll`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use notify::{PollWatcher, RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{new_debouncer_opt, Config, DebounceEventResult};

/// Quiet time that ends a burst of events. Very short, since it is added to every save's wait:
/// an editor's save (write a temp file, rename it over) mostly lands inside it, and when a burst
/// does split in two, the second event stops the grading the first one started (a newer save
/// always wins), so the cost is one cancelled grading, never a stale verdict.
pub const DEBOUNCE: Duration = Duration::from_millis(5);
/// How often `--poll` looks at the folder.
pub const POLL_EVERY: Duration = Duration::from_millis(250);

/// What happened to the watched file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// It was written (in place, or replaced by a rename) and is there now.
    Saved,
    /// It is gone (deleted, or renamed away) for now.
    Gone,
    /// The watcher itself failed.
    Failed(String),
}

/// Watches until dropped.
pub struct FileWatcher {
    /// The debouncer, native or polling, held for its `Drop`, which stops it.
    _debouncer: Box<dyn std::any::Any>,
    pub polling: bool,
}

/// The folder to watch and the name to look for in it.
fn split(file: &Path) -> Result<(PathBuf, OsString), String> {
    let name = file.file_name().ok_or_else(|| format!("{} is not a file name", file.display()))?.to_os_string();
    let parent = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let dir = parent.canonicalize().map_err(|e| format!("cannot watch {}: {e}", parent.display()))?;
    Ok((dir, name))
}

/// Watch `file` and call `send` once per save (or deletion) of it.
pub fn watch(file: &Path, poll: bool, mut send: impl FnMut(Change) + Send + 'static) -> Result<FileWatcher, String> {
    let (dir, name) = split(file)?;
    let target = dir.join(&name);
    // Reading the file (Python importing it) makes events too, and the debouncer does not say of
    // which kind: only a change of modification time, size or presence counts as a save. The
    // poller reports changes of content only, which may keep both on coarse filesystems.
    let mut last = Fingerprint::of(&target);
    let handler = move |result: DebounceEventResult| match result {
        Ok(events) => {
            if !events.iter().any(|e| e.path.file_name() == Some(name.as_os_str())) {
                return;
            }
            let now = Fingerprint::of(&target);
            if now == last && !poll {
                return;
            }
            last = now;
            send(if target.is_file() { Change::Saved } else { Change::Gone });
        }
        Err(e) => send(Change::Failed(e.to_string())),
    };
    let failed = |e: notify::Error| format!("cannot watch {}: {e}", dir.display());
    let debouncer: Box<dyn std::any::Any> = if poll {
        // Compare contents too: some network filesystems keep modification times to 2 s.
        let notify_config = notify::Config::default().with_poll_interval(POLL_EVERY).with_compare_contents(true);
        let config = Config::default().with_timeout(DEBOUNCE).with_notify_config(notify_config);
        let mut d = new_debouncer_opt::<_, PollWatcher>(config, handler).map_err(failed)?;
        d.watcher().watch(&dir, RecursiveMode::NonRecursive).map_err(failed)?;
        Box::new(d)
    } else {
        let config = Config::default().with_timeout(DEBOUNCE);
        let mut d = new_debouncer_opt::<_, RecommendedWatcher>(config, handler).map_err(failed)?;
        d.watcher().watch(&dir, RecursiveMode::NonRecursive).map_err(failed)?;
        Box::new(d)
    };
    Ok(FileWatcher { _debouncer: debouncer, polling: poll })
}

/// What the file looks like on disk, cheaply: enough to tell that it changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint(Option<(SystemTime, u64)>);

impl Fingerprint {
    pub fn of(file: &Path) -> Fingerprint {
        Fingerprint(std::fs::metadata(file).ok().and_then(|m| Some((m.modified().ok()?, m.len()))))
    }
}

/// How long a change on disk may go without an event before we say events are not arriving.
pub const GRACE: Duration = Duration::from_millis(1500);

/// Notices a file that changed on disk while no event came: the sign of a filesystem that does
/// not report changes, where `--poll` is needed.
#[derive(Debug)]
pub struct Staleness {
    known: Fingerprint,
    noticed: Option<Instant>,
}

impl Staleness {
    pub fn new(now: Fingerprint) -> Staleness {
        Staleness { known: now, noticed: None }
    }

    /// An event came (or the file was graded): this is the file as we know it.
    pub fn seen(&mut self, now: Fingerprint) {
        self.known = now;
        self.noticed = None;
    }

    /// Look at the file again. True, once per change, when it has differed from what we know
    /// for longer than [`GRACE`] with no event.
    pub fn missed_event(&mut self, now: Fingerprint, at: Instant) -> bool {
        if now == self.known {
            self.noticed = None;
            return false;
        }
        let since = *self.noticed.get_or_insert(at);
        if at.duration_since(since) >= GRACE {
            self.seen(now);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn print(secs: u64) -> Fingerprint {
        Fingerprint(Some((SystemTime::UNIX_EPOCH + Duration::from_secs(secs), 10)))
    }

    #[test]
    fn a_change_with_no_event_is_noticed_once_after_the_grace() {
        let t0 = Instant::now();
        let mut s = Staleness::new(print(1));
        assert!(!s.missed_event(print(1), t0));
        assert!(!s.missed_event(print(2), t0));
        assert!(!s.missed_event(print(2), t0 + GRACE / 2));
        assert!(s.missed_event(print(2), t0 + GRACE));
        assert!(!s.missed_event(print(2), t0 + GRACE * 3));
    }

    #[test]
    fn an_event_in_time_means_events_arrive() {
        let t0 = Instant::now();
        let mut s = Staleness::new(print(1));
        assert!(!s.missed_event(print(2), t0));
        s.seen(print(2));
        assert!(!s.missed_event(print(2), t0 + GRACE * 2));
    }

    #[test]
    fn a_deleted_file_counts_as_a_change() {
        let t0 = Instant::now();
        let mut s = Staleness::new(print(1));
        assert!(!s.missed_event(Fingerprint(None), t0));
        assert!(s.missed_event(Fingerprint(None), t0 + GRACE));
    }
}
