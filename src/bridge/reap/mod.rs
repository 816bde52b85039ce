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
//! Where the subreaper is unavailable (an old kernel, a seccomp filter, macOS), orphans go to
//! init, so the sweep finds them by their mark instead: an environment variable every worker
//! carries and what it starts inherits. A process that execs with a scrubbed environment is
//! beyond that reach; with the subreaper, nothing is.
//!
//! Files graded side by side: a stray carrying the mark of a worker still running is that
//! worker's business, so one file's clean-up never kills what a classmate's code still uses.
//!
//! If the workshop is killed outright (SIGKILL), the kernel kills every worker (the parent-death
//! signal, Linux's only) and the lifeline, one small process forked once per workshop (on Linux
//! from 50 ms after the first worker starts) that reads a pipe only the workshop holds, kills
//! every worker's group when that pipe closes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

#[cfg(target_os = "macos")]
pub(in crate::bridge) mod darwin;
mod lifeline;
mod procs;
mod spawn;

pub(super) use spawn::{announced_while, spawn, Place};

#[cfg(target_os = "linux")]
use procs::children;
pub(super) use procs::stopped;
use procs::{children_of, mark_of, marked_processes};

/// Python processes the bridge is running now, each leading its own process group: children of
/// ours that are not strays. Spawning and registering happen under this lock, so a sweep or
/// `end_everything` sees every worker that exists.
pub(super) static WORKERS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Each running worker's own mark (see `worker_mark`), by its pid.
pub(super) static MARKS: Mutex<Vec<(i32, String)>> = Mutex::new(Vec::new());

/// Workers killed without waiting for them, because they had no children then: nothing of theirs
/// can become an orphan, so nothing needs them reaped before the sweep. Reaped when they are done
/// (without waiting), left to init at the end.
static DYING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// The workers that are bubblewrap sandboxes (see `kill_all`).
pub(super) static SANDBOXED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// The inits of killed sandboxes' PID namespaces, dying with everything in them: children of ours
/// (the subreaper), so their pids cannot be reused before we reap them. Reaped when done, without
/// waiting, and left out of the sweeps meanwhile; the last sweep (`end_everything`) takes those
/// left with our other children, so none outlives us.
static INITS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Set once the workshop is quitting: no worker starts after that, and every child is a stray.
pub(super) static QUITTING: AtomicBool = AtomicBool::new(false);

/// Whether the workshop is quitting: no worker will start again, so a wait for one is over.
pub(crate) fn quitting() -> bool {
    QUITTING.load(Ordering::SeqCst)
}

/// Set when the first worker starts: a command that never ran Python has nothing to end.
pub(super) static STARTED: AtomicBool = AtomicBool::new(false);

/// How many generations of re-parented strays are chased before giving up.
const GENERATIONS: usize = 32;

/// How long after the first worker starts the lifeline is forked. Before that, a workshop killed
/// outright still takes its Python down (the parent-death signal), not yet what that Python's
/// code started in its group.
#[cfg(target_os = "linux")]
const LIFELINE_AFTER: Duration = Duration::from_millis(50);

/// When the lifeline is forked, for a first worker started at `started`.
#[cfg(target_os = "linux")]
pub(super) fn lifeline_due_after(started: Instant) -> Instant {
    started + LIFELINE_AFTER
}

/// The environment variable every worker, and so everything it starts, carries.
pub(super) const MARK: &str = "WORKSHOP_BRIDGE";

/// This workshop process's value of `MARK`.
pub(super) fn mark() -> &'static str {
    static VALUE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VALUE.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
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

/// Whether this process can be a child subreaper: asked of the kernel once. Linux's alone:
/// elsewhere strays are found by their mark (see `kill_strays`).
pub(super) fn subreaper() -> bool {
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
pub(super) fn set_subreaper(on: bool) -> bool {
    // rustix passes the pid as prctl's flag: any pid is "on", none is "off".
    rustix::process::set_child_subreaper(on.then(rustix::process::getpid)).is_ok()
}

/// SIGKILL to the process group `pid` leads; a group already gone makes it a no-op.
fn kill_group(pid: i32) {
    if let Some(pid) = Pid::from_raw(pid) {
        #[cfg(target_os = "linux")]
        super::cores::to_die_elsewhere(pid);
        let _ = rustix::process::kill_process_group(pid, Signal::KILL);
    }
}

/// The process group of `pid`, while it exists.
#[cfg(target_os = "linux")]
fn group_of(pid: i32) -> Option<Pid> {
    Pid::from_raw(pid).and_then(|pid| rustix::process::getpgid(Some(pid)).ok())
}

/// Whether `pid`, a child of ours, is still running: reaped, without waiting, if it has ended.
/// False too when it is not our child (any more).
fn still_running(pid: i32) -> bool {
    let Some(pid) = Pid::from_raw(pid) else { return false };
    matches!(rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG), Ok(None))
}

/// The learner's spare, forked but not adopted yet (see `warm`), by the descriptor it reads its
/// requests on and what that is (`pipe:[inode]`, a pipe only it holds): a child of ours no sweep
/// may take for a stray.
static SPARE: Mutex<Option<(i32, String)>> = Mutex::new(None);

/// A spare is coming (`Some`: its requests' descriptor and pipe) or not any more.
pub(super) fn spare_coming(requests: Option<(i32, String)>) {
    *SPARE.lock().unwrap_or_else(|e| e.into_inner()) = requests;
}

/// Whether `pid` is the spare that is coming.
fn is_the_coming_spare(pid: i32) -> bool {
    let coming = SPARE.lock().map(|s| s.clone()).unwrap_or_default();
    coming.is_some_and(|(fd, pipe)| {
        std::fs::read_link(format!("/proc/{pid}/fd/{fd}"))
            .is_ok_and(|link| link.as_os_str() == pipe.as_str())
    })
}

/// Whether `pid` is a child of ours that has not ended, looked at without reaping it.
pub(super) fn running_child(pid: i32) -> bool {
    use rustix::process::{waitid, WaitId, WaitIdOptions};
    let Some(pid) = Pid::from_raw(pid) else { return false };
    let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
    matches!(waitid(WaitId::Pid(pid), options), Ok(None))
}

/// Register as a worker a process a worker's runner forked and handed to us (the learner's
/// spare, see `warm`): only a running child of ours, so its pid is ours until we reap it, and
/// none once the workshop is quitting. Under the registry's lock, as a start is, so no sweep
/// takes it for a stray from here on. It shares the environment of the runner it was forked
/// from, and so that runner's mark, which the runner's own process keeps running under: before
/// anything else runs in it, it marks what it starts as its own, with its pid after the mark
/// (`_own_mark` in runner/spare.py), and that mark is registered here, so what it leaves behind when it
/// is killed is a stray, not the other runner's.
pub(super) fn adopt(pid: i32) -> bool {
    let mut workers = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
    if QUITTING.load(Ordering::SeqCst) || !running_child(pid) {
        return false;
    }
    workers.push(pid);
    spare_coming(None);
    super::cores::to_the_one_core(pid);
    lifeline::watch(pid);
    if let (Some(mark), Ok(mut marks)) = (mark_of(pid), MARKS.lock()) {
        marks.push((pid, format!("{mark}.{pid}")));
    }
    true
}

/// The workshop is quitting (a signal, `q`, or the end of the command): kill every worker's group
/// and every stray, and start no more. Safe to call from any thread, while other threads may
/// still be calling Python, and more than once.
pub(super) fn end_everything() {
    let workers = {
        // Quitting is set under the registry's lock, which every start holds from its look at
        // it to its registration: a start on another thread (the warm-up, a world loading) is
        // either refused or registered here and killed, never started unseen.
        let workers = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
        QUITTING.store(true, Ordering::SeqCst);
        if !STARTED.load(Ordering::SeqCst) {
            return;
        }
        for &pid in workers.iter() {
            // The process group each worker leads; the worker is not reaped yet (only this
            // function and `kill_all` reap workers, and `kill_all` leaves the registry first), so
            // the group is ours.
            kill_group(pid);
            lifeline::forget(pid);
        }
        workers.clone()
    };
    // Reaping the workers re-parents to us what they started in new sessions, for the sweep.
    for pid in workers {
        reap(pid);
    }
    kill_strays();
    lifeline::end();
}

/// Kill the worker's process group and reap the worker, then every stray left behind. A worker
/// `end_everything` has taken is only looked at: it was killed and reaped there.
///
/// A sandboxed worker (bubblewrap, see `spawn`) leaves no strays: everything it started is in
/// the PID namespace of its child, the namespace's init, which the kernel kills when bwrap dies
/// (`--die-with-parent`), taking the whole namespace with it. So no sweep follows, and the init
/// is reaped later, without waiting (see `INITS`).
pub(super) fn kill_all(child: &mut super::process::Process) {
    let killed = i32::try_from(child.id()).ok().and_then(|pid| {
        let mut workers = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
        if QUITTING.load(Ordering::SeqCst) || !workers.contains(&pid) {
            return None;
        }
        let sandboxed = SANDBOXED.lock().is_ok_and(|s| s.contains(&pid));
        // Read before the kill: once it is dead its children are ours, unnamed.
        let children = children_of(pid);
        // The process group our child leads, not yet reaped.
        kill_group(pid);
        lifeline::forget(pid);
        forget(&mut workers, pid);
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

/// A killed worker out of the registry (`workers`, held) and every list that names it.
fn forget(workers: &mut Vec<i32>, pid: i32) {
    workers.retain(|w| *w != pid);
    if let Ok(mut list) = SANDBOXED.lock() {
        list.retain(|w| *w != pid);
    }
    super::cores::forget(pid);
    if let Ok(mut marks) = MARKS.lock() {
        marks.retain(|(w, _)| *w != pid);
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

/// Reap the killed workers (and sandbox inits) that are done, without waiting for the others.
fn collect_the_dying() {
    for list in [&DYING, &INITS] {
        if let Ok(mut list) = list.lock() {
            list.retain(|&pid| still_running(pid));
        }
    }
}

/// Our children that are not running workers: processes the learner's code started outside its
/// group, re-parented to us when their parents died. Each is killed with its group and reaped;
/// its own children then become ours, and the next round takes them.
fn kill_strays() {
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
        let belongs_to_a_running_worker =
            |pid: i32| mark_of(pid).is_some_and(|m| running.contains(&m));
        let mut dying: Vec<i32> = DYING.lock().map(|d| d.clone()).unwrap_or_default();
        if !quitting {
            dying.extend(INITS.lock().map(|d| d.clone()).unwrap_or_default());
        }
        let strays: Vec<i32> = match () {
            #[cfg(target_os = "linux")]
            () if subreaper() => {
                let lifeline = lifeline::pid();
                let own_group = rustix::process::getpgrp();
                children()
                    .into_iter()
                    .filter(|&p| quitting || !held.contains(&p))
                    .filter(|&p| Some(p) != lifeline && !dying.contains(&p))
                    // The group of our own child, which is not reaped yet.
                    .filter(|&p| group_of(p) != Some(own_group) || mark_of(p).is_some())
                    .filter(|&p| !belongs_to_a_running_worker(p))
                    .filter(|&p| quitting || !is_the_coming_spare(p))
                    .collect()
            }
            () => marked_processes()
                .into_iter()
                .filter(|&p| {
                    (quitting || !held.contains(&p))
                        && !dying.contains(&p)
                        && !belongs_to_a_running_worker(p)
                })
                .filter(|&p| quitting || !is_the_coming_spare(p))
                .collect(),
        };
        if strays.is_empty() {
            return;
        }
        for &pid in &strays {
            // A stray and the group it may lead; with the subreaper it is our own child (so not
            // reaped and not reused), else a process that carried our mark a moment ago.
            kill_group(pid);
            if let Some(pid) = Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, Signal::KILL);
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
fn reap(pid: i32) {
    let until = Instant::now() + Duration::from_millis(200);
    loop {
        if !still_running(pid) || Instant::now() >= until {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

// Linux only: they read /proc, set cores and start the strays the subreaper or /proc finds.
#[cfg(all(test, target_os = "linux"))]
pub(super) mod tests {
    use std::process::Command;

    use super::procs::children_listed_in;
    use super::*;

    /// Held by each test that starts processes carrying this process's mark: a sweep in one
    /// would take another's for strays.
    pub(in crate::bridge) static MARKED: Mutex<()> = Mutex::new(());

    fn running(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next()) != Some("Z")
        })
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
        // Until `sleep` runs: while `env` execs it, its environment can read empty for a moment
        // and then, still `env`'s, with the mark.
        let execd = || {
            std::fs::read_to_string(format!("/proc/{member}/comm"))
                .is_ok_and(|c| c.trim() == "sleep")
        };
        while !execd()
            || std::fs::read(format!("/proc/{member}/environ")).is_ok_and(|env| !env.is_empty())
        {
            assert!(Instant::now() < until, "the member never exec'd with an empty environment");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(mark_of(member).is_none());
        kill_strays();
        let member_ended = ends(member);
        if !member_ended {
            // The member this test started; tidying up.
            if let Some(member) = Pid::from_raw(member) {
                let _ = rustix::process::kill_process(member, Signal::KILL);
            }
        }
        let _ = stray.kill();
        let _ = stray.wait();
        assert!(member_ended, "the stray's group member {member} outlived the sweep");
    }

    /// The learner's spare marks what it starts under the name the workshop looks for (see
    /// `adopt` and `_own_mark` in runner/spare.py, which spells it out, as Python starts).
    #[test]
    fn the_runner_marks_its_own_under_the_name_sweeps_read() {
        let runner = crate::bridge::runner::RUNNER;
        assert!(runner.contains(&format!("b\"{MARK}\"")), "the runner names the mark {MARK}");
    }

    /// The learner's spare, forked and handed to us but not adopted yet, is no stray: a sweep
    /// then (the world's process ending early) must leave it. Once it is not coming any more, it
    /// is one like the rest.
    #[test]
    fn the_coming_spare_is_no_stray_until_it_is_not_coming() {
        let _serial = MARKED.lock().unwrap_or_else(|e| e.into_inner());
        let (read, write) = rustix::pipe::pipe().unwrap();
        let pipe = format!("pipe:[{}]", rustix::fs::fstat(&read).unwrap().st_ino);
        let start = |stdin: std::process::Stdio| {
            Command::new("sleep").arg("336").env(MARK, worker_mark()).stdin(stdin).spawn().unwrap()
        };
        let mut spare = start(std::process::Stdio::from(read));
        let mut stray = start(std::process::Stdio::null());
        // Without the subreaper a stray is found by its mark, readable once it has exec'd;
        // until then its environment is still this test's.
        let until = Instant::now() + Duration::from_secs(10);
        while [&spare, &stray].iter().any(|c| mark_of(c.id() as i32).is_none()) {
            assert!(Instant::now() < until, "the two sleeps never exec'd with the mark");
            std::thread::sleep(Duration::from_millis(5));
        }
        spare_coming(Some((0, pipe)));
        kill_strays();
        let stray_ended = ends(stray.id() as i32);
        let spare_kept = running(spare.id() as i32);
        spare_coming(None);
        kill_strays();
        let spare_ended = ends(spare.id() as i32);
        for child in [&mut spare, &mut stray] {
            let _ = child.kill();
            let _ = child.wait();
        }
        drop(write);
        assert!(stray_ended && spare_kept, "stray ended: {stray_ended}, spare kept: {spare_kept}");
        assert!(spare_ended, "a spare no longer coming outlived the sweep");
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
        let mut other =
            Command::new("sleep").arg("30").env(MARK, "another-workshop-1").spawn().unwrap();
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
