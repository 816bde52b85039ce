//! Ending the learner's processes, all of them.
//!
//! Killing the process group takes down everything the learner's code started in the usual ways
//! (`subprocess`, `os.system`, `multiprocessing`). A process started in a new session
//! (`start_new_session=True`, a daemon's double fork) leaves the group, so on Linux the workshop
//! also makes itself a child subreaper: such processes are re-parented to it when their parent
//! dies, and are found among its own children and killed too, generation after generation. Only
//! children whose environment carries this process's `MARK` (set on every worker, inherited by
//! what it starts) are touched, so a process the workshop started for another reason is safe; a
//! learner's process that execs with a scrubbed environment is beyond reach.

use std::sync::Mutex;
#[cfg(target_os = "linux")]
use std::time::{Duration, Instant};

/// Python processes the bridge is running now: children of ours that are not strays.
static WORKERS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// How many generations of re-parented strays are chased before giving up.
#[cfg(target_os = "linux")]
const GENERATIONS: usize = 32;

/// The environment variable every worker, and so everything it starts, carries.
pub const MARK: &str = "WORKSHOP_BRIDGE";

/// This workshop process's value of `MARK`.
pub fn mark() -> &'static str {
    static VALUE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VALUE.get_or_init(|| {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        format!("{}-{nanos}", std::process::id())
    })
}

/// Called before a worker is spawned.
pub fn prepare() {
    #[cfg(target_os = "linux")]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER takes an integer flag and no pointers.
            unsafe {
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0 as libc::c_ulong, 0, 0);
            }
        });
    }
}

/// Held while a worker is spawned and registered, and while strays are looked for: with files
/// graded in parallel, a worker that has started but is not registered yet must never be taken
/// for a stray by another thread's clean-up.
static SPAWNING: Mutex<()> = Mutex::new(());

/// Spawn a worker and register it, as one step for every other thread.
pub fn spawn(cmd: &mut std::process::Command) -> std::io::Result<std::process::Child> {
    let _held = SPAWNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let child = cmd.spawn()?;
    register(child.id());
    Ok(child)
}

fn register(pid: u32) {
    if let (Ok(pid), Ok(mut workers)) = (i32::try_from(pid), WORKERS.lock()) {
        workers.push(pid);
    }
}

/// Kill the worker's process group and reap the worker, then every stray left behind.
pub fn kill_all(child: &mut std::process::Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group created at spawn.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        let _ = child.kill();
        let _ = child.wait();
        if let Ok(mut workers) = WORKERS.lock() {
            workers.retain(|w| *w != pid);
        }
    } else {
        let _ = child.kill();
        let _ = child.wait();
    }
    kill_strays();
}

/// Our children that are not running workers: processes the learner's code started outside its
/// group, re-parented to us when their parents died. Each is killed with its group and reaped;
/// its own children then become ours, and the next round takes them.
fn kill_strays() {
    #[cfg(target_os = "linux")]
    for _ in 0..GENERATIONS {
        let held = SPAWNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let workers = WORKERS.lock().map(|w| w.clone()).unwrap_or_default();
        let strays: Vec<i32> =
            children(std::process::id()).into_iter().filter(|p| !workers.contains(p) && marked(*p)).collect();
        if strays.is_empty() {
            return;
        }
        for &pid in &strays {
            // SAFETY: kill(2) on a pid that is our own child (so not yet reaped and not reused),
            // and on the group it may lead; a pid that leads no group makes the second a no-op.
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

/// Whether a process carries this workshop's mark: it descends from one of our workers.
#[cfg(target_os = "linux")]
fn marked(pid: i32) -> bool {
    let wanted = format!("{MARK}={}", mark());
    std::fs::read(format!("/proc/{pid}/environ"))
        .map(|env| env.split(|&b| b == 0).any(|var| var == wanted.as_bytes()))
        .unwrap_or(false)
}

/// The children of a process, from `/proc/<pid>/task/<tid>/children` (one list per thread).
#[cfg(target_os = "linux")]
fn children(pid: u32) -> Vec<i32> {
    let mut found = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return found;
    };
    for task in tasks.flatten() {
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            found.extend(list.split_whitespace().filter_map(|p| p.parse::<i32>().ok()));
        }
    }
    found
}
