//! Keeping the workshop's threads and its Pythons on chosen cores: only for speed. A request and
//! its answer are turns taken by one thread and one Python, so when both keep to one core each
//! turn is a switch there rather than the wake-up of another core (docs/benchmarks.md has the
//! figures). Nothing here changes what a run does or says: with `WORKSHOP_PLAIN` set (see
//! `speed::plain`) none of it happens, and the tests run that path too. Without CPU affinity
//! (macOS), none of it happens either.

use std::sync::atomic::AtomicUsize;
#[cfg(target_os = "linux")]
use std::sync::atomic::Ordering;
use std::sync::Mutex;

#[cfg(target_os = "linux")]
use rustix::process::Pid;

/// The core this thread and every worker are kept on, once asked (`keep_on_one_core`);
/// `usize::MAX` until then.
static ONE_CORE: AtomicUsize = AtomicUsize::new(usize::MAX);

/// The cores this thread could use before it kept to one, less that one: where a worker goes to
/// die (see `kill_group`).
#[cfg(target_os = "linux")]
static ELSEWHERE: Mutex<Option<rustix::thread::CpuSet>> = Mutex::new(None);

/// Workers to be moved to the one core at their next request (see `keep_on_one_core`).
static TO_MOVE: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Keep this thread, every worker running now and every one started or adopted from now on, on
/// the core this thread is on. For a command whose Pythons and this thread take turns (a request,
/// then its answer; never two at once): each turn is then a switch on one core rather than a
/// wake-up of another (docs/benchmarks.md has what that saves). Not for files graded side by
/// side. A worker running now is moved when it is next asked (`asking`), while it waits for the
/// request: moving a process that runs on another core stops it, and this thread, until the move
/// is done. Only for speed: on the plain path, or where there is no CPU affinity (macOS), nothing.
pub(super) fn keep_on_one_core() {
    #[cfg(target_os = "linux")]
    if !super::plain() {
        let cpu = rustix::thread::sched_getcpu();
        let before = rustix::thread::sched_getaffinity(None);
        if rustix::thread::sched_setaffinity(None, &only(cpu)).is_err() {
            return;
        }
        if let (Ok(before), Ok(mut elsewhere)) = (before, ELSEWHERE.lock()) {
            *elsewhere = all_but(before, cpu);
        }
        let workers = super::reap::WORKERS.lock().unwrap_or_else(|e| e.into_inner());
        ONE_CORE.store(cpu, Ordering::SeqCst);
        if let Ok(mut to_move) = TO_MOVE.lock() {
            to_move.extend(workers.iter().copied());
        }
    }
}

/// A request is about to be written to worker `pid`, and this thread will wait for its answer:
/// if it is still to be moved to the one core, now, while it waits for it; if it follows the
/// thread that asks it (see `follows_its_asker`), onto this thread's core.
pub(super) fn asking(pid: u32) {
    let Ok(pid) = i32::try_from(pid) else { return };
    to_the_askers_core(pid);
    let Ok(mut to_move) = TO_MOVE.lock() else { return };
    if let Some(at) = to_move.iter().position(|&p| p == pid) {
        to_move.swap_remove(at);
        drop(to_move);
        to_the_one_core(pid);
    }
}

/// Workers every grading thread asks (the lesson's world, in `grade`), with the core each was
/// last put on (`usize::MAX`: none yet).
static FOLLOWING: Mutex<Vec<(i32, usize)>> = Mutex::new(Vec::new());

/// Worker `pid` is one that several grading threads ask in turn, each waiting for its answer
/// (the lesson's world in `grade`): each time a thread that keeps to a core of its own asks it,
/// it is moved onto that core first, while it waits for the request. The thread, and the file
/// it grades, then wait on that core, so the answer is a switch there. Left where the scheduler
/// put it, it waited for a core busy starting another file's Python while the asking thread's
/// core was idle (docs/benchmarks.md).
pub(super) fn follows_its_asker(pid: u32) {
    if let (Ok(pid), Ok(mut following)) = (i32::try_from(pid), FOLLOWING.lock()) {
        following.push((pid, usize::MAX));
    }
}

/// This thread is about to wait for an answer of worker `pid` that was asked ahead: if it
/// follows its asker, onto this thread's core (see `follows_its_asker`).
pub(super) fn awaiting(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        to_the_askers_core(pid);
    }
}

/// Worker `pid` onto this thread's core, if it follows its asker and is not there already.
/// Without CPU affinity (macOS), nothing: it only saves time.
fn to_the_askers_core(pid: i32) {
    #[cfg(target_os = "linux")]
    {
        let Some(cpu) = own_core() else { return };
        let Ok(mut following) = FOLLOWING.lock() else { return };
        let Some(entry) = following.iter_mut().find(|(p, _)| *p == pid) else { return };
        if entry.1 == cpu {
            return;
        }
        entry.1 = cpu;
        drop(following);
        if let Some(pid) = Pid::from_raw(pid) {
            let _ = rustix::thread::sched_setaffinity(Some(pid), &only(cpu));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = pid;
}

/// The cores grading threads keep to (see `keep_to_a_core_of_its_own`).
static TAKEN: Mutex<Vec<usize>> = Mutex::new(Vec::new());

thread_local! {
    /// The core this thread keeps to, with every worker it starts.
    static OWN_CORE: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// For a thread that grades files one after another beside others doing the same (`grade`):
/// keep it, and every worker it starts from now on, on a core no other such thread keeps to,
/// the one it is on when that is free. A file's Python and its thread only take turns, so each
/// call is then a switch on that core rather than a wake-up of another (docs/benchmarks.md). A
/// thread that finds every core taken (more threads than cores) is
/// left to the scheduler. The core is free again when the guard is dropped. Without CPU affinity
/// (macOS), every thread is left to the scheduler: it only saves time.
pub(crate) fn keep_to_a_core_of_its_own() -> OwnCore {
    if super::plain() {
        return OwnCore(None);
    }
    #[cfg(target_os = "linux")]
    {
        let Ok(allowed) = rustix::thread::sched_getaffinity(None) else { return OwnCore(None) };
        let Ok(mut taken) = TAKEN.lock() else { return OwnCore(None) };
        let here = rustix::thread::sched_getcpu();
        let free = |cpu: &usize| allowed.is_set(*cpu) && !taken.contains(cpu);
        let Some(cpu) = std::iter::once(here).chain(0..rustix::thread::CpuSet::MAX_CPU).find(free)
        else {
            return OwnCore(None);
        };
        if rustix::thread::sched_setaffinity(None, &only(cpu)).is_ok() {
            taken.push(cpu);
            OWN_CORE.with(|own| own.set(Some(cpu)));
            return OwnCore(Some(cpu));
        }
    }
    OwnCore(None)
}

/// A core a thread keeps to (see `keep_to_a_core_of_its_own`), until this is dropped.
pub(crate) struct OwnCore(Option<usize>);

impl Drop for OwnCore {
    fn drop(&mut self) {
        if let Some(cpu) = self.0 {
            OWN_CORE.with(|own| own.set(None));
            if let Ok(mut taken) = TAKEN.lock() {
                taken.retain(|c| *c != cpu);
            }
        }
    }
}

/// The core this thread keeps to, if any (see `keep_to_a_core_of_its_own`).
#[cfg(target_os = "linux")]
pub(super) fn own_core() -> Option<usize> {
    OWN_CORE.with(std::cell::Cell::get)
}

/// The cores of `set` but `cpu`, if any.
#[cfg(target_os = "linux")]
pub(super) fn all_but(
    mut set: rustix::thread::CpuSet,
    cpu: usize,
) -> Option<rustix::thread::CpuSet> {
    set.unset(cpu);
    (set.count() > 0).then_some(set)
}

/// A worker about to be killed leaves the one core for the `others` (`ELSEWHERE`), when this
/// thread keeps to one: killed there, the kernel's tearing down of its memory would come before
/// this thread's next step. (Its threads and children die where they are.)
#[cfg(target_os = "linux")]
pub(super) fn to_die_elsewhere(pid: Pid) {
    moved_to(pid, ELSEWHERE.lock().ok().and_then(|e| *e));
}

#[cfg(target_os = "linux")]
fn moved_to(pid: Pid, others: Option<rustix::thread::CpuSet>) {
    if let Some(others) = others {
        let _ = rustix::thread::sched_setaffinity(Some(pid), &others);
    }
}

/// A killed worker out of the lists of workers to move (see `reap::forget`).
pub(super) fn forget(pid: i32) {
    if let Ok(mut to_move) = TO_MOVE.lock() {
        to_move.retain(|w| *w != pid);
    }
    if let Ok(mut following) = FOLLOWING.lock() {
        following.retain(|(w, _)| *w != pid);
    }
}

/// A worker goes to the one core, when there is one (its threads and children to come follow it).
/// There is none without CPU affinity (macOS).
pub(super) fn to_the_one_core(pid: i32) {
    #[cfg(target_os = "linux")]
    {
        let cpu = ONE_CORE.load(Ordering::SeqCst);
        if cpu != usize::MAX {
            let _ = rustix::thread::sched_setaffinity(Pid::from_raw(pid), &only(cpu));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (pid, &ONE_CORE);
}

#[cfg(target_os = "linux")]
pub(super) fn only(cpu: usize) -> rustix::thread::CpuSet {
    let mut one = rustix::thread::CpuSet::new();
    one.set(cpu);
    one
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::process::Command;

    use super::*;

    /// With the workshop kept to one core, a worker is moved off it to be killed, onto the cores
    /// the workshop had before; on one core only, it stays.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_worker_is_killed_off_the_core_the_workshop_keeps_to() {
        let cores = |pid: u32| -> String {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
            status
                .lines()
                .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                .unwrap()
                .trim()
                .to_string()
        };
        let mut two = rustix::thread::CpuSet::new();
        two.set(0);
        two.set(1);
        assert!(all_but(two, 1).is_some_and(|s| s.is_set(0) && !s.is_set(1) && s.count() == 1));
        assert!(all_but(only(1), 1).is_none(), "one core: nowhere else to go");
        let mut sleeper = Command::new("sleep").arg("30").spawn().unwrap();
        let pid = Pid::from_raw(sleeper.id() as i32).unwrap();
        let _ = rustix::thread::sched_setaffinity(Some(pid), &only(1));
        moved_to(pid, all_but(two, 1));
        let moved = cores(sleeper.id());
        let _ = sleeper.kill();
        let _ = sleeper.wait();
        if rustix::thread::sched_getaffinity(None).is_ok_and(|s| s.is_set(0) && s.is_set(1)) {
            assert_eq!(moved, "0", "moved off core 1, onto the other");
        }
    }

    /// A thread that grades keeps to a core no other grading thread has, and a file it starts
    /// keeps to it too; the lesson's world, which every such thread asks, keeps to none. Free
    /// again once the thread lets go.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_grading_thread_and_its_files_keep_to_one_core_and_the_world_to_none() {
        let two_threads = std::thread::scope(|scope| {
            let (first_took, second_may) = std::sync::mpsc::channel::<Option<usize>>();
            let (second_took, first_may) = std::sync::mpsc::channel::<()>();
            let first = scope.spawn(move || {
                let held = keep_to_a_core_of_its_own();
                let mine = own_core();
                first_took.send(mine).unwrap();
                let _ = first_may.recv();
                assert_eq!(
                    crate::bridge::reap::Place::WithThisThread.core().map(|s| s.count()),
                    mine.map(|_| 1)
                );
                assert!(crate::bridge::reap::Place::Anywhere.core().is_none());
                drop(held);
                assert!(
                    own_core().is_none()
                        && crate::bridge::reap::Place::WithThisThread.core().is_none()
                );
                mine
            });
            let second = scope.spawn(move || {
                // Started on the core the first took, so that core is the one it is on.
                if let (Ok(Some(taken)), Ok(all)) =
                    (second_may.recv(), rustix::thread::sched_getaffinity(None))
                {
                    let _ = rustix::thread::sched_setaffinity(None, &only(taken));
                    std::thread::yield_now();
                    let _ = rustix::thread::sched_setaffinity(None, &all);
                }
                let _held = keep_to_a_core_of_its_own();
                let mine = own_core();
                second_took.send(()).unwrap();
                mine
            });
            (first.join().unwrap(), second.join().unwrap())
        });
        let usable = rustix::thread::sched_getaffinity(None).map(|s| s.count()).unwrap_or(1);
        if usable >= 2 {
            let (Some(a), Some(b)) = two_threads else { panic!("two cores, but {two_threads:?}") };
            assert_ne!(a, b, "two grading threads on one core");
        }
        assert!(TAKEN.lock().unwrap().is_empty(), "cores left taken");
    }
}
