//! Ending the learner's processes, all of them, on every way out.
//!
//! Every worker leads its own process group, and killing the group takes what the learner's code
//! started the usual ways (`subprocess`, `os.system`, `multiprocessing`). What leaves the group (a
//! new session, a daemon's double fork, an `execve` with an empty environment) cannot leave the
//! family: on Linux the workshop is a child subreaper (`PR_SET_CHILD_SUBREAPER`), so every orphan
//! of the learner's code becomes a child of ours however it forked, and each sweep kills every
//! child that is not a running worker, generation after generation. What the workshop runs for
//! itself (an editor, a pager) stays in its own process group and is left alone.
//!
//! Where the subreaper is unavailable (an old kernel, a seccomp filter), orphans go to init, so
//! the sweep finds them by their mark instead: an environment variable every worker carries and
//! what it starts inherits. A process that execs with a scrubbed environment is beyond that reach;
//! with the subreaper, nothing is.
//!
//! Files graded side by side: a stray carrying the mark of a worker still running is that
//! worker's business, so one file's clean-up never kills what a classmate's code still uses.
//!
//! If the workshop is killed outright (SIGKILL), the kernel kills every worker (the parent-death
//! signal) and the lifeline, one small process forked once per workshop (from 50 ms after the
//! first worker starts) that reads a pipe only the workshop holds, kills every worker's group
//! when that pipe closes.

use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
#[cfg(target_os = "linux")]
use std::time::{Duration, Instant};

/// Python processes the bridge is running now, each leading its own process group: children of
/// ours that are not strays. Spawning and registering happen under this lock, so a sweep or
/// `end_everything` sees every worker that exists.
static WORKERS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Each running worker's own mark (see `worker_mark`), by its pid.
static MARKS: Mutex<Vec<(i32, String)>> = Mutex::new(Vec::new());

/// Workers killed without waiting for them, because they had no children then: nothing of theirs
/// can become an orphan, so nothing needs them reaped before the sweep. Reaped when they are done
/// (without waiting), left to init at the end.
static DYING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// The workers that are bubblewrap sandboxes (see `kill_all`).
static SANDBOXED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// The inits of killed sandboxes' PID namespaces, dying with everything in them: children of ours
/// (the subreaper), so their pids cannot be reused before we reap them. Reaped when done, without
/// waiting, and left out of the sweeps meanwhile; the last sweep (`end_everything`) takes those
/// left with our other children, so none outlives us.
static INITS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Set once the workshop is quitting: no worker starts after that, and every child is a stray.
static QUITTING: AtomicBool = AtomicBool::new(false);

/// Whether the workshop is quitting: no worker will start again, so a wait for one is over.
pub(crate) fn quitting() -> bool {
    QUITTING.load(Ordering::SeqCst)
}

/// Set when the first worker starts: a command that never ran Python has nothing to end.
static STARTED: AtomicBool = AtomicBool::new(false);

/// How many generations of re-parented strays are chased before giving up.
#[cfg(target_os = "linux")]
const GENERATIONS: usize = 32;

/// How long after the first worker starts the lifeline is forked. Before that, a workshop killed
/// outright still takes its Python down (the parent-death signal), not yet what that Python's
/// code started in its group.
#[cfg(target_os = "linux")]
const LIFELINE_AFTER: Duration = Duration::from_millis(50);

/// When the lifeline is forked, for a first worker started at `started`.
#[cfg(target_os = "linux")]
fn lifeline_due_after(started: Instant) -> Instant {
    started + LIFELINE_AFTER
}

/// The environment variable every worker, and so everything it starts, carries.
pub(super) const MARK: &str = "WORKSHOP_BRIDGE";

/// This workshop process's value of `MARK`.
pub(super) fn mark() -> &'static str {
    static VALUE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VALUE.get_or_init(|| {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        format!("{}-{nanos}", std::process::id())
    })
}

/// A fresh mark for one worker: this process's mark and a number. Everything the worker starts
/// inherits it, so when files are graded side by side, one file's clean-up never kills what
/// another file's code is still running.
pub(super) fn worker_mark() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    format!("{}-{}", mark(), NEXT.fetch_add(1, Ordering::SeqCst))
}

/// Set by the workshop's own process (see `adopt_orphans`): only a process that ends everything
/// on its way out may adopt the learner's orphans. The library in another process (a test)
/// finds strays by their mark.
static ADOPTING: AtomicBool = AtomicBool::new(false);

/// This process owns its process tree: while learner code runs, it is a child subreaper.
pub(super) fn adopt_orphans() {
    ADOPTING.store(true, Ordering::SeqCst);
}

/// Whether this process can be a child subreaper: asked of the kernel once.
fn subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        static ABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        ADOPTING.load(Ordering::SeqCst) && *ABLE.get_or_init(|| set_subreaper(true))
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// Turn the subreaper on or off; false when the kernel refuses.
#[cfg(target_os = "linux")]
fn set_subreaper(on: bool) -> bool {
    // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER takes an integer flag and no pointers.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, libc::c_ulong::from(on), 0, 0, 0) == 0 }
}

/// Start a worker and register it, under the registry's lock. On Linux the child is started from
/// one long-lived thread and asks the kernel for SIGKILL when its parent dies: the parent-death
/// signal follows the thread that forked, so a short-lived thread (a grading in `check --watch`)
/// must not be the one that forks. `sandboxed`: the command is bubblewrap, whose child leads
/// the PID namespace everything of the submission runs in.
pub(super) fn spawn(mut command: Command, sandboxed: bool) -> std::io::Result<Child> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id();
        // SAFETY: the closure runs in the forked child before exec and only makes async-signal-safe
        // calls (prctl, getppid, raise, close_range, fcntl, getrlimit).
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                close_inherited();
                // The parent may have died between fork and prctl: then nobody would signal us.
                if u32::try_from(libc::getppid()).ok() != Some(parent) {
                    libc::raise(libc::SIGKILL);
                }
                Ok(())
            });
        }
        if let Some(spawner) = spawner() {
            let (reply, answer) = std::sync::mpsc::channel();
            if spawner.send((command, sandboxed, reply)).is_ok() {
                if let Ok(result) = answer.recv() {
                    return result;
                }
            }
            return Err(std::io::Error::other("the workshop's process starter stopped"));
        }
    }
    spawn_here(command, sandboxed)
}

/// In a child between fork and exec: every descriptor above 2 closes at exec. The workshop's own
/// are close-on-exec already, but one it inherited is not (`grade ... 3>>results.jsonl`), and a
/// submission must not write through it. Marked rather than closed, so the standard library's
/// pipe that reports a failed exec still works; a kernel before 5.11 gets a loop.
#[cfg(target_os = "linux")]
unsafe fn close_inherited() {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    if libc::syscall(libc::SYS_close_range, 3_u32, u32::MAX, CLOSE_RANGE_CLOEXEC) == 0 {
        return;
    }
    let mut limit = libc::rlimit { rlim_cur: 1024, rlim_max: 1024 };
    libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
    for fd in 3..limit.rlim_cur.min(65_536) as libc::c_int {
        libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
    }
}

fn spawn_here(mut command: Command, sandboxed: bool) -> std::io::Result<Child> {
    let mut workers = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
    if QUITTING.load(Ordering::SeqCst) {
        return Err(std::io::Error::other("the workshop is quitting"));
    }
    let own = command
        .get_envs()
        .find(|(k, _)| *k == std::ffi::OsStr::new(MARK))
        .and_then(|(_, v)| v.map(|v| v.to_string_lossy().into_owned()));
    STARTED.store(true, Ordering::SeqCst);
    // On while any worker runs, so every orphan of the learner's code comes to us; off when none
    // does (see `kill_all`), so a program the workshop starts for the learner (an editor that
    // detaches) is never taken for one.
    #[cfg(target_os = "linux")]
    if subreaper() {
        set_subreaper(true);
    }
    let child = command.spawn()?;
    if let Ok(pid) = i32::try_from(child.id()) {
        workers.push(pid);
        if sandboxed {
            if let Ok(mut list) = SANDBOXED.lock() {
                list.push(pid);
            }
        }
        #[cfg(target_os = "linux")]
        lifeline::watch(pid);
        if let (Some(own), Ok(mut marks)) = (own, MARKS.lock()) {
            marks.push((pid, own));
        }
    }
    Ok(child)
}

#[cfg(target_os = "linux")]
type SpawnJob = (Command, bool, std::sync::mpsc::Sender<std::io::Result<Child>>);

/// The thread every worker is forked from; it lives as long as the workshop.
#[cfg(target_os = "linux")]
fn spawner() -> Option<&'static std::sync::mpsc::Sender<SpawnJob>> {
    static SPAWNER: std::sync::OnceLock<Option<std::sync::mpsc::Sender<SpawnJob>>> = std::sync::OnceLock::new();
    SPAWNER
        .get_or_init(|| {
            let (tx, rx) = std::sync::mpsc::channel::<SpawnJob>();
            std::thread::Builder::new()
                .name("python-spawner".into())
                .spawn(move || {
                    // The lifeline is forked a while after the first worker starts, so a command
                    // that is over sooner (a `check`) never pays for the fork.
                    let mut lifeline_due: Option<Instant> = None;
                    loop {
                        let job = match lifeline_due {
                            Some(due) => match rx.recv_timeout(due.saturating_duration_since(Instant::now())) {
                                Ok(job) => job,
                                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                                    lifeline::start();
                                    lifeline_due = None;
                                    continue;
                                }
                                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return,
                            },
                            None => match rx.recv() {
                                Ok(job) => job,
                                Err(_) => return,
                            },
                        };
                        let (command, sandboxed, reply) = job;
                        let result = spawn_here(command, sandboxed);
                        let spawned = result.is_ok();
                        let _ = reply.send(result);
                        if spawned && lifeline_due.is_none() && !lifeline::started() {
                            lifeline_due = Some(lifeline_due_after(Instant::now()));
                        }
                    }
                })
                .ok()
                .map(|_| tx)
        })
        .as_ref()
}

/// The workshop is quitting (a signal, `q`, or the end of the command): kill every worker's group
/// and every stray, and start no more. Safe to call from any thread, while other threads may
/// still be calling Python, and more than once.
pub(super) fn end_everything() {
    if !STARTED.load(Ordering::SeqCst) {
        QUITTING.store(true, Ordering::SeqCst);
        return;
    }
    let workers = {
        let workers = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
        QUITTING.store(true, Ordering::SeqCst);
        for &pid in workers.iter() {
            // SAFETY: kill(2) on the process group each worker leads; the worker is not reaped
            // yet (only this function and `kill_all` reap workers, and `kill_all` leaves the
            // registry first), so the group is ours. A group already gone makes it a no-op.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
            #[cfg(target_os = "linux")]
            lifeline::forget(pid);
        }
        workers.clone()
    };
    // Reaping the workers re-parents to us what they started in new sessions, for the sweep.
    #[cfg(target_os = "linux")]
    for pid in workers {
        reap(pid);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = workers;
    kill_strays();
    #[cfg(target_os = "linux")]
    lifeline::end();
}

/// Kill the worker's process group and reap the worker, then every stray left behind. A worker
/// `end_everything` has taken is only looked at: it was killed and reaped there.
///
/// A sandboxed worker (bubblewrap, see `spawn`) leaves no strays: everything it started is in
/// the PID namespace of its child, the namespace's init, which the kernel kills when bwrap dies
/// (`--die-with-parent`), taking the whole namespace with it. So no sweep follows, and the init
/// is reaped later, without waiting (see `INITS`).
pub(super) fn kill_all(child: &mut Child) {
    let killed = i32::try_from(child.id()).ok().and_then(|pid| {
        let mut workers = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
        if QUITTING.load(Ordering::SeqCst) || !workers.contains(&pid) {
            return None;
        }
        let sandboxed = SANDBOXED.lock().is_ok_and(|s| s.contains(&pid));
        // Read before the kill: once it is dead its children are ours, unnamed.
        let children = children_of(pid);
        // SAFETY: kill(2) on the process group our child leads, not yet reaped.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        #[cfg(target_os = "linux")]
        lifeline::forget(pid);
        workers.retain(|w| *w != pid);
        if let Ok(mut marks) = MARKS.lock() {
            marks.retain(|(w, _)| *w != pid);
        }
        if let Ok(mut list) = SANDBOXED.lock() {
            list.retain(|w| *w != pid);
        }
        let kind = match children {
            _ if sandboxed => Killed::Sandboxed(children.unwrap_or_default()),
            Some(list) if list.is_empty() => Killed::Childless(pid),
            _ => Killed::WithChildren,
        };
        Some(kind)
    });
    let sandboxed = matches!(killed, Some(Killed::Sandboxed(_)));
    match killed {
        // Nothing to re-parent: no wait for the kernel to finish it (a check's last worker,
        // which would add its tear-down to every check).
        Some(Killed::Childless(pid)) => {
            if let Ok(mut dying) = DYING.lock() {
                dying.push(pid);
            }
        }
        Some(Killed::WithChildren) => {
            let _ = child.kill();
            let _ = child.wait();
        }
        Some(Killed::Sandboxed(inits)) => {
            // bwrap itself ends at once (the namespaces are its child's). Once it is reaped, the
            // namespace's init is our child unless another thread turned the subreaper off just
            // before; then it went to init, and `collect_the_dying` drops it when waitpid says it
            // is not ours. Nothing kills it by pid: the last sweep kills only our own children.
            let _ = child.wait();
            if subreaper() {
                if let Ok(mut list) = INITS.lock() {
                    list.extend(inits);
                }
            }
        }
        None => {
            let _ = child.try_wait();
        }
    }
    collect_the_dying();
    if !sandboxed {
        kill_strays();
    }
    // The last worker is gone and so is everything it started: no orphan of the learner's can
    // come any more.
    #[cfg(target_os = "linux")]
    {
        let workers = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
        if workers.is_empty() && subreaper() {
            set_subreaper(false);
        }
    }
}

/// How `kill_all` killed a worker.
enum Killed {
    /// It had no children: nothing of it can be left, so it is reaped when done.
    Childless(i32),
    /// Its children may outlive it: it is waited for, and they are swept.
    WithChildren,
    /// A bubblewrap sandbox, with the pids of its children (the namespace's init).
    Sandboxed(Vec<i32>),
}

/// The children of a process now (from every thread's list); `None` when /proc cannot show them.
fn children_of(pid: i32) -> Option<Vec<i32>> {
    #[cfg(target_os = "linux")]
    {
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
        let mut found = Vec::new();
        for task in tasks.flatten() {
            let list = std::fs::read_to_string(task.path().join("children")).ok()?;
            found.extend(list.split_whitespace().filter_map(|p| p.parse::<i32>().ok()));
        }
        Some(found)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
    }
}

/// Reap the killed workers (and sandbox inits) that are done, without waiting for the others.
fn collect_the_dying() {
    for list in [&DYING, &INITS] {
        if let Ok(mut list) = list.lock() {
            list.retain(|&pid| {
                let mut status = 0;
                // SAFETY: waitpid(2) on our own child, with a valid pointer to a local; WNOHANG.
                unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) == 0 }
            });
        }
    }
}

/// Our children that are not running workers: processes the learner's code started outside its
/// group, re-parented to us when their parents died. Each is killed with its group and reaped;
/// its own children then become ours, and the next round takes them.
fn kill_strays() {
    #[cfg(target_os = "linux")]
    for _ in 0..GENERATIONS {
        // Held through the scan and the kills: `spawn_here` registers a new worker under this
        // lock, so one started by another thread (files graded in parallel) is never taken for
        // a stray between its start and its registration.
        let held = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
        let quitting = QUITTING.load(Ordering::SeqCst);
        let running: Vec<String> = if quitting {
            Vec::new()
        } else {
            MARKS.lock().map(|m| m.iter().map(|(_, m)| m.clone()).collect()).unwrap_or_default()
        };
        let belongs_to_a_running_worker = |pid: i32| mark_of(pid).is_some_and(|m| running.contains(&m));
        let mut dying: Vec<i32> = DYING.lock().map(|d| d.clone()).unwrap_or_default();
        if !quitting {
            dying.extend(INITS.lock().map(|d| d.clone()).unwrap_or_default());
        }
        let strays: Vec<i32> = if subreaper() {
            let lifeline = lifeline::pid();
            // SAFETY: getpgrp(2) cannot fail.
            let own_group = unsafe { libc::getpgrp() };
            children()
                .into_iter()
                .filter(|&p| (quitting || !held.contains(&p)) && Some(p) != lifeline && !dying.contains(&p))
                // SAFETY: getpgid(2) of our own child, which is not reaped yet.
                .filter(|&p| unsafe { libc::getpgid(p) } != own_group || mark_of(p).is_some())
                .filter(|&p| !belongs_to_a_running_worker(p))
                .collect()
        } else {
            marked_processes()
                .into_iter()
                .filter(|&p| (quitting || !held.contains(&p)) && !dying.contains(&p) && !belongs_to_a_running_worker(p))
                .collect()
        };
        if strays.is_empty() {
            return;
        }
        for &pid in &strays {
            // SAFETY: kill(2) on a stray and on the group it may lead; with the subreaper it is
            // our own child (so not reaped and not reused), else a process that carried our mark
            // a moment ago. A pid that leads no group makes the first a no-op.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
                libc::kill(pid, libc::SIGKILL);
            }
        }
        drop(held);
        for pid in strays {
            reap(pid);
        }
    }
}

/// Wait for a killed child, briefly: one stuck in the kernel is left rather than hanging on it.
/// A process that is not our child (found by its mark) returns at once.
#[cfg(target_os = "linux")]
fn reap(pid: i32) {
    let until = Instant::now() + Duration::from_millis(200);
    loop {
        let mut status = 0;
        // SAFETY: waitpid(2) on our own child, with a valid pointer to a local.
        let done = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if done != 0 || Instant::now() >= until {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The mark a process carries, when it is one of this workshop's: it descends from one of our
/// workers (whose own mark it names).
#[cfg(target_os = "linux")]
fn mark_of(pid: i32) -> Option<String> {
    let prefix = format!("{MARK}=");
    let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let value = env.split(|&b| b == 0).find_map(|var| var.strip_prefix(prefix.as_bytes()))?;
    let value = String::from_utf8_lossy(value).into_owned();
    let base = mark();
    (value == base || value.strip_prefix(base).is_some_and(|rest| rest.starts_with('-'))).then_some(value)
}

/// Every process carrying one of our marks, wherever it runs: the sweep without a subreaper.
#[cfg(target_os = "linux")]
fn marked_processes() -> Vec<i32> {
    processes().filter(|(pid, _)| mark_of(*pid).is_some()).map(|(pid, _)| pid).collect()
}

/// Every process in /proc, with the text of its `stat` file after the command name.
#[cfg(target_os = "linux")]
fn processes() -> impl Iterator<Item = (i32, String)> {
    let entries = std::fs::read_dir("/proc").into_iter().flatten().flatten();
    entries.filter_map(|entry| {
        let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
        Some((pid, stat.rsplit_once(')')?.1.to_string()))
    })
}

/// Our children, from `/proc/self/task/<tid>/children` (one list per thread: an orphan is
/// re-parented to any thread of ours); from every process's parent where those lists are absent.
#[cfg(target_os = "linux")]
fn children() -> Vec<i32> {
    children_listed_in(std::path::Path::new("/proc/self/task"))
}

/// Our children, from the `children` lists of the threads in `tasks`, or from every process's
/// parent when none of them has one (a kernel without `CONFIG_PROC_CHILDREN`).
#[cfg(target_os = "linux")]
fn children_listed_in(tasks: &std::path::Path) -> Vec<i32> {
    let mut found = Vec::new();
    let mut listed = false;
    for task in std::fs::read_dir(tasks).into_iter().flatten().flatten() {
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            listed = true;
            found.extend(list.split_whitespace().filter_map(|p| p.parse::<i32>().ok()));
        }
    }
    if !listed {
        let me = std::process::id().to_string();
        // `stat` after the name: " S <ppid> ...".
        found.extend(
            processes().filter(|(_, rest)| rest.split_whitespace().nth(1) == Some(me.as_str())).map(|(pid, _)| pid),
        );
    }
    found
}

/// The lifeline: one process forked once per workshop (no exec, so it costs a fraction of a
/// millisecond), in a process group of its own, holding only the read end of a pipe. The
/// workshop writes each worker's pid to it when the worker starts, and the pid negated when the
/// worker is ended; when the pipe closes without a goodbye (the workshop was killed outright),
/// the lifeline kills every group still listed. The workshop's own ways out forget every worker
/// first, so then it kills nothing.
#[cfg(target_os = "linux")]
mod lifeline {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::sync::Mutex;

    /// Groups one lifeline can hold: far more workers than any command runs at once.
    const MOST: usize = 4096;

    struct Line {
        /// The end the workshop writes (close-on-exec and non-blocking).
        write: OwnedFd,
        /// The end the lifeline reads, until it is forked.
        read: Option<OwnedFd>,
        pid: Option<i32>,
    }

    static LINE: Mutex<Option<Line>> = Mutex::new(None);

    /// A worker's group to kill if the workshop dies.
    pub(super) fn watch(pid: i32) {
        send(pid);
    }

    /// A worker the workshop ends itself: written before it is reaped, so a later reuse of its
    /// pid is never the lifeline's business.
    pub(super) fn forget(pid: i32) {
        send(-pid);
    }

    fn send(value: i32) {
        let Ok(mut line) = LINE.lock() else { return };
        if line.is_none() {
            *line = open();
        }
        if let Some(line) = line.as_ref() {
            let bytes = value.to_ne_bytes();
            // SAFETY: write(2) of a local buffer to a descriptor we own. Four bytes are below
            // PIPE_BUF, so the write is whole or not at all; a full pipe (a lifeline that stopped
            // reading) loses the message rather than blocking the workshop.
            unsafe {
                libc::write(line.write.as_raw_fd(), bytes.as_ptr().cast(), bytes.len());
            }
        }
    }

    fn open() -> Option<Line> {
        let mut fds = [0; 2];
        // SAFETY: pipe2(2) fills the two-element array it is given.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return None;
        }
        // SAFETY: both descriptors were just created and are owned by nothing else.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        // SAFETY: fcntl(2) on a descriptor we own.
        unsafe {
            let flags = libc::fcntl(write.as_raw_fd(), libc::F_GETFL);
            libc::fcntl(write.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
        Some(Line { write, read: Some(read), pid: None })
    }

    /// Fork the lifeline, once, after the first worker's pid is in the pipe.
    pub(super) fn start() {
        let Ok(mut line) = LINE.lock() else { return };
        let Some(line) = line.as_mut() else { return };
        let Some(read) = line.read.take() else { return };
        // SAFETY: fork(2) in a process with other threads: the child makes only
        // async-signal-safe calls (see `watch_the_pipe`) and never returns from it.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: in the forked child; the descriptor is the pipe's read end.
            unsafe { watch_the_pipe(read.as_raw_fd()) }
        }
        if pid > 0 {
            line.pid = Some(pid);
        }
        drop(read);
    }

    /// Whether it was forked already.
    pub(super) fn started() -> bool {
        LINE.lock().map_or(true, |l| l.as_ref().is_some_and(|l| l.read.is_none()))
    }

    /// The lifeline's pid, which no sweep may take for a stray.
    pub(super) fn pid() -> Option<i32> {
        LINE.lock().ok().and_then(|l| l.as_ref().and_then(|l| l.pid))
    }

    /// Close the pipe: every worker is forgotten by now, so the lifeline exits killing nothing.
    pub(super) fn end() {
        let line = LINE.lock().ok().and_then(|mut l| l.take());
        // Not waited for: it exits as soon as it reads the end, and init reaps it after us.
        drop(line);
    }

    /// The lifeline's whole life, in the forked child: async-signal-safe calls only (no
    /// allocation, no locks), since the workshop's other threads may have held any lock at the
    /// fork.
    ///
    /// # Safety
    /// Only in a child just forked, with `read` the pipe's read end.
    unsafe fn watch_the_pipe(read: libc::c_int) -> ! {
        // Its own group, so a Ctrl-C at the terminal does not end it before the workshop, and
        // no signal but SIGKILL ends it at all (the workshop's handlers are not its own). Named,
        // so a person (or a test) looking at the workshop's children can tell it.
        libc::setpgid(0, 0);
        libc::prctl(libc::PR_SET_NAME, c"workshop-life".as_ptr() as libc::c_ulong, 0, 0, 0);
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT, libc::SIGPIPE, libc::SIGTSTP] {
            libc::signal(signal, libc::SIG_IGN);
        }
        // Keep only the pipe, as fd 0: no other pipe of the workshop's (a worker's, the test
        // harness's stdout) stays open because the lifeline holds it.
        libc::dup2(read, 0);
        if libc::syscall(libc::SYS_close_range, 1_u32, u32::MAX, 0_u32) != 0 {
            let mut limit = libc::rlimit { rlim_cur: 1024, rlim_max: 1024 };
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
            for fd in 1..limit.rlim_cur.min(65_536) as libc::c_int {
                libc::close(fd);
            }
        }
        let mut groups = [0_i32; MOST];
        let mut count = 0;
        let mut bytes = [0_u8; 4];
        let mut have = 0;
        loop {
            let n = libc::read(0, bytes.as_mut_ptr().add(have).cast(), 4 - have);
            if n == 0 {
                break;
            }
            if n < 0 {
                if *libc::__errno_location() == libc::EINTR {
                    continue;
                }
                break;
            }
            have += n as usize;
            if have < 4 {
                continue;
            }
            have = 0;
            let value = i32::from_ne_bytes(bytes);
            if value > 0 && count < MOST {
                groups[count] = value;
                count += 1;
            } else if let Some(at) = groups[..count].iter().position(|&g| g == -value) {
                count -= 1;
                groups[at] = groups[count];
            }
        }
        for &group in &groups[..count] {
            libc::kill(-group, libc::SIGKILL);
        }
        libc::_exit(0)
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// Held by each test that starts processes carrying this process's mark: a sweep in one
    /// would take another's for strays.
    static MARKED: Mutex<()> = Mutex::new(());

    fn running(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next()) != Some("Z"))
    }

    /// Wait (boundedly: no speed test) until `pid` is gone or a zombie.
    fn ends(pid: i32) -> bool {
        let until = Instant::now() + Duration::from_secs(10);
        while running(pid) {
            if Instant::now() > until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        true
    }

    #[test]
    fn a_stray_is_killed_with_its_whole_group_even_a_member_no_sweep_can_find() {
        let _serial = MARKED.lock().unwrap_or_else(|e| e.into_inner());
        // Without the subreaper (this test process is not the workshop) strays are found by
        // their mark. The stray leads a group; the member in it execs with an empty
        // environment, so no sweep can find it: only a kill of the group reaches it.
        use std::io::BufRead;
        use std::os::unix::process::CommandExt;
        let mut stray = Command::new("sh")
            .args(["-c", "env -i sleep 334 & echo $!; wait"])
            .env(MARK, worker_mark())
            .process_group(0)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(stray.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let member: i32 = line.trim().parse().unwrap();
        let until = Instant::now() + Duration::from_secs(10);
        while std::fs::read(format!("/proc/{member}/environ")).is_ok_and(|env| !env.is_empty()) {
            assert!(Instant::now() < until, "the member never exec'd with an empty environment");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(mark_of(member).is_none());
        kill_strays();
        let member_ended = ends(member);
        if !member_ended {
            // SAFETY: kill(2) of the member this test started; tidying up.
            unsafe {
                libc::kill(member, libc::SIGKILL);
            }
        }
        let _ = stray.kill();
        let _ = stray.wait();
        assert!(member_ended, "the stray's group member {member} outlived the sweep");
    }

    #[test]
    fn without_the_kernels_lists_our_children_are_found_by_their_parent() {
        let _serial = MARKED.lock().unwrap_or_else(|e| e.into_inner());
        let mut child = Command::new("sleep").arg("335").spawn().unwrap();
        let pid = child.id() as i32;
        let nowhere = std::path::Path::new("/proc/self/no-such-folder");
        let found = children_listed_in(nowhere);
        let listed = children();
        let _ = child.kill();
        let _ = child.wait();
        assert!(found.contains(&pid), "{found:?}");
        assert!(listed.contains(&pid), "{listed:?}");
    }

    #[test]
    fn the_lifeline_is_forked_a_while_after_the_first_worker_not_before() {
        let now = Instant::now();
        assert_eq!(lifeline_due_after(now).saturating_duration_since(now), LIFELINE_AFTER);
    }

    #[test]
    fn a_process_carrying_this_workshops_mark_is_found_without_the_subreaper() {
        let _serial = MARKED.lock().unwrap_or_else(|e| e.into_inner());
        let own = worker_mark();
        let mut marked = Command::new("sleep").arg("30").env(MARK, &own).spawn().unwrap();
        let mut other = Command::new("sleep").arg("30").env(MARK, "another-workshop-1").spawn().unwrap();
        let pid = marked.id() as i32;
        // Its environment is readable once it has exec'd.
        let until = Instant::now() + Duration::from_secs(10);
        while mark_of(pid).is_none() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        let found = marked_processes();
        assert!(found.contains(&pid), "{found:?}");
        assert!(!found.contains(&(other.id() as i32)), "another workshop's process is not ours");
        assert_eq!(mark_of(pid), Some(own));
        for child in [&mut marked, &mut other] {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
