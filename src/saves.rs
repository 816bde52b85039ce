//! Watching one file for saves, as editors make them.
//!
//! The file's *folder* is watched, not the file: many editors (vim among them) save by writing a
//! new file and renaming it over the old one, or by way of a swap file, and a watch on the old
//! file's inode would see nothing after the first such save. Events for other names in the folder
//! (swap files, backups, `__pycache__`) are ignored.
//!
//! A save is over when the file is closed after writing (inotify's `IN_CLOSE_WRITE`) or renamed
//! into place: then it is reported at once, as one [`Change`], however many writes it took and
//! however long the editor paused between truncating the file and writing it. Events after which
//! no close comes (a deletion, a rename away, new times) are reported after [`QUIET`] without
//! another; so are writes, where the watcher does not report closes (not inotify) and with
//! `--poll`.
//!
//! `--poll` uses notify's `PollWatcher`, for filesystems that send no events (WSL mounts of
//! Windows drives, network drives). [`Staleness`] notices when the file changed on disk but no
//! event came, so the learner can be told about `--poll`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant, SystemTime};

use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind, RenameMode};
use notify::{PollWatcher, RecommendedWatcher, RecursiveMode, Watcher};

/// How long events that leave a save unfinished must be followed by nothing before the save
/// counts as made: only for saves that never end in a close after writing or a rename.
pub(crate) const QUIET: Duration = Duration::from_millis(50);
/// How often `--poll` looks at the folder.
pub(crate) const POLL_EVERY: Duration = Duration::from_millis(250);

/// What happened to the watched file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// It was written (in place, or replaced by a rename) and is there now.
    Saved,
    /// It is gone (deleted, or renamed away) for now.
    Gone,
    /// The watcher itself failed.
    Failed(String),
}

/// Why a file cannot be watched.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("{} is not a file name", .0.display())]
    NoFileName(PathBuf),
    /// The folder holding the file could not be found.
    #[error("cannot watch {}: {source}", .dir.display())]
    Folder { dir: PathBuf, source: std::io::Error },
    /// The watcher (native or polling) could not start.
    #[error("cannot watch {}: {source}", .dir.display())]
    Watcher { dir: PathBuf, source: notify::Error },
    /// The thread that turns events into changes could not start.
    #[error("cannot watch {}: {source}", .file.display())]
    Thread { file: PathBuf, source: std::io::Error },
}

/// Watches until dropped.
pub(crate) struct Listener {
    /// The watcher, native or polling, held for its `Drop`, which stops it (and so the thread
    /// that turns its events into changes).
    _watcher: Box<dyn std::any::Any>,
    pub polling: bool,
}

/// The folder to watch and the name to look for in it.
fn split(file: &Path) -> Result<(PathBuf, OsString), WatchError> {
    let name =
        file.file_name().ok_or_else(|| WatchError::NoFileName(file.to_path_buf()))?.to_os_string();
    let parent = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let dir = parent
        .canonicalize()
        .map_err(|source| WatchError::Folder { dir: parent.to_path_buf(), source })?;
    Ok((dir, name))
}

/// What one event says of a save of the watched file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SaveStep {
    /// The save is over: closed after writing, or renamed into place.
    Done,
    /// The file is being written (created, truncated, written to): a close will end it where the
    /// watcher reports closes.
    Writing,
    /// Something else happened to it (deleted, renamed away, its times or mode changed): no
    /// close will follow.
    Touched,
}

fn step(event: &notify::Event, name: &OsString) -> Option<SaveStep> {
    let ours = |p: &PathBuf| p.file_name() == Some(name.as_os_str());
    match event.kind {
        // Reading the file (Python importing it) is no save.
        EventKind::Access(AccessKind::Close(AccessMode::Write)) if event.paths.iter().any(ours) => {
            Some(SaveStep::Done)
        }
        EventKind::Access(_) => None,
        // Renamed into place: the new name is the last path.
        EventKind::Modify(ModifyKind::Name(RenameMode::To | RenameMode::Both))
            if event.paths.last().is_some_and(ours) =>
        {
            Some(SaveStep::Done)
        }
        EventKind::Create(_) | EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Any)
            if event.paths.iter().any(ours) =>
        {
            Some(SaveStep::Writing)
        }
        _ if event.paths.iter().any(ours) => Some(SaveStep::Touched),
        _ => None,
    }
}

/// Whether the native watcher reports every writer's close (inotify's `IN_CLOSE_WRITE`): then a
/// save under way is over at its close however long the editor pauses, and the quiet wait is
/// only for what no close follows.
const CLOSES_REPORTED: bool = cfg!(any(target_os = "linux", target_os = "android"));

/// Watch `file` and call `send` once per save (or deletion) of it.
pub(crate) fn listen(
    file: &Path,
    poll: bool,
    mut send: impl FnMut(Change) + Send + 'static,
) -> Result<Listener, WatchError> {
    let (dir, name) = split(file)?;
    let target = dir.join(&name);
    let (tx, rx) = mpsc::channel::<Result<SaveStep, notify::Error>>();
    let handler = move |result: notify::Result<notify::Event>| {
        let _ = match result {
            Ok(event) => match step(&event, &name) {
                Some(step) => tx.send(Ok(step)),
                None => Ok(()),
            },
            Err(e) => tx.send(Err(e)),
        };
    };
    let failed = |source: notify::Error| WatchError::Watcher { dir: dir.clone(), source };
    let watcher: Box<dyn std::any::Any> = if poll {
        // Compare contents too: some network filesystems keep modification times to 2 s.
        let config =
            notify::Config::default().with_poll_interval(POLL_EVERY).with_compare_contents(true);
        let mut w = PollWatcher::new(handler, config).map_err(failed)?;
        w.watch(&dir, RecursiveMode::NonRecursive).map_err(failed)?;
        Box::new(w)
    } else {
        let mut w = RecommendedWatcher::new(handler, notify::Config::default()).map_err(failed)?;
        w.watch(&dir, RecursiveMode::NonRecursive).map_err(failed)?;
        Box::new(w)
    };
    // Only a change of modification time, size or presence counts as a save (a rename reports
    // twice). The poller reports changes of content only, which may keep both on coarse
    // filesystems.
    let mut last = Fingerprint::of(&target);
    let mut report = move |failure: Option<String>| {
        if let Some(why) = failure {
            return send(Change::Failed(why));
        }
        let now = Fingerprint::of(&target);
        if now == last && !poll {
            return;
        }
        last = now;
        send(if target.is_file() { Change::Saved } else { Change::Gone });
    };
    std::thread::Builder::new()
        .name("file-watch".into())
        .spawn(move || {
            // Since when events have said a save is under way that nothing may end.
            let mut begun: Option<Instant> = None;
            let waits_for_close = CLOSES_REPORTED && !poll;
            loop {
                let next = match begun {
                    Some(at) => rx.recv_timeout(QUIET.saturating_sub(at.elapsed())),
                    None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                };
                match next {
                    Ok(Ok(SaveStep::Done)) | Err(RecvTimeoutError::Timeout) => {
                        begun = None;
                        report(None);
                    }
                    // Its close will come: a pause between truncating and writing is no save.
                    Ok(Ok(SaveStep::Writing)) if waits_for_close => begun = None,
                    Ok(Ok(SaveStep::Writing | SaveStep::Touched)) => begun = Some(Instant::now()),
                    Ok(Err(why)) => report(Some(why.to_string())),
                    // The watcher was dropped.
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
        })
        .map_err(|source| WatchError::Thread { file: file.to_path_buf(), source })?;
    Ok(Listener { _watcher: watcher, polling: poll })
}

/// What the file looks like on disk, cheaply: enough to tell that it changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fingerprint(Option<(SystemTime, u64)>);

impl Fingerprint {
    pub(crate) fn of(file: &Path) -> Fingerprint {
        Fingerprint(std::fs::metadata(file).ok().and_then(|m| Some((m.modified().ok()?, m.len()))))
    }
}

/// How long a change on disk may go without an event before we say events are not arriving.
pub(crate) const GRACE: Duration = Duration::from_millis(1500);

/// Notices a file that changed on disk while no event came: the sign of a filesystem that does
/// not report changes, where `--poll` is needed.
#[derive(Debug)]
pub(crate) struct Staleness {
    known: Fingerprint,
    noticed: Option<Instant>,
}

impl Staleness {
    pub(crate) fn new(now: Fingerprint) -> Staleness {
        Staleness { known: now, noticed: None }
    }

    /// An event came (or the file was graded): this is the file as we know it.
    pub(crate) fn seen(&mut self, now: Fingerprint) {
        self.known = now;
        self.noticed = None;
    }

    /// Look at the file again. True, once per change, when it has differed from what we know
    /// for longer than [`GRACE`] with no event.
    pub(crate) fn missed_event(&mut self, now: Fingerprint, at: Instant) -> bool {
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
