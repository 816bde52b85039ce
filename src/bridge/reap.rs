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

use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
#[cfg(target_os = "linux")]
use std::time::{Duration, Instant};

/// Python processes the bridge is running now, each leading its own process group: children of
/// ours that are not strays. Spawning and registering happen under this lock, so `end_everything`
/// sees every worker that exists.
static WORKERS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Each running worker's own mark (see `worker_mark`), by its pid: a stray that carries the mark
/// of a worker still running is that worker's business, not another's clean-up.
static MARKS: Mutex<Vec<(i32, String)>> = Mutex::new(Vec::new());

/// Each worker's lifeline: a tiny `sh` outside the worker's group, reading a pipe only we hold.
/// If the workshop dies, even by SIGKILL, the pipe closes and the lifeline kills the worker's
/// whole process group, so what the learner's code started dies too. In the normal course the
/// workshop ends the lifeline itself, before it could ever fire.
static LIFELINES: Mutex<Vec<(i32, Child)>> = Mutex::new(Vec::new());

/// Set once the workshop is quitting on a signal: no worker starts after that.
static QUITTING: AtomicBool = AtomicBool::new(false);

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

/// A fresh mark for one worker: this process's mark and a number. Everything the worker starts
/// inherits it, so when files are graded side by side, one file's clean-up never kills what
/// another file's code is still running.
pub fn worker_mark() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    format!("{}-{}", mark(), NEXT.fetch_add(1, Ordering::SeqCst))
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

/// Start a worker and register it, under the registry's lock. On Linux the child is started from
/// one long-lived thread and asks the kernel for SIGKILL when its parent dies: the parent-death
/// signal follows the thread that forked, so a short-lived thread (a grading in `check --watch`)
/// must not be the one that forks.
pub fn spawn(mut command: Command) -> std::io::Result<Child> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id();
        // SAFETY: the closure runs in the forked child before exec and only makes async-signal-safe
        // calls (prctl, getppid, raise).
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have died between fork and prctl: then nobody would signal us.
                if u32::try_from(libc::getppid()).ok() != Some(parent) {
                    libc::raise(libc::SIGKILL);
                }
                Ok(())
            });
        }
        if let Some(spawner) = spawner() {
            let (reply, answer) = std::sync::mpsc::channel();
            if spawner.send((command, reply)).is_ok() {
                if let Ok(result) = answer.recv() {
                    return result;
                }
            }
            return Err(std::io::Error::other("the workshop's process starter stopped"));
        }
    }
    spawn_here(command)
}

fn spawn_here(mut command: Command) -> std::io::Result<Child> {
    let mut workers = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
    if QUITTING.load(Ordering::SeqCst) {
        return Err(std::io::Error::other("the workshop is quitting"));
    }
    let own = command
        .get_envs()
        .find(|(k, _)| *k == std::ffi::OsStr::new(MARK))
        .and_then(|(_, v)| v.map(|v| v.to_string_lossy().into_owned()));
    let child = command.spawn()?;
    if let Ok(pid) = i32::try_from(child.id()) {
        workers.push(pid);
        if let (Some(own), Ok(mut marks)) = (own, MARKS.lock()) {
            marks.push((pid, own));
        }
    }
    Ok(child)
}

#[cfg(target_os = "linux")]
type SpawnJob = (Command, std::sync::mpsc::Sender<std::io::Result<Child>>);

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
                    for (command, reply) in rx {
                        let result = spawn_here(command);
                        let pid = result.as_ref().ok().and_then(|c| i32::try_from(c.id()).ok());
                        let _ = reply.send(result);
                        // After the answer, so the caller does not wait for it.
                        if let Some(pid) = pid {
                            start_lifeline(pid);
                        }
                    }
                })
                .ok()
                .map(|_| tx)
        })
        .as_ref()
}

/// Start the lifeline of a worker that leads process group `pid`, if the worker still runs.
#[cfg(target_os = "linux")]
fn start_lifeline(pid: i32) {
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    let workers = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
    if !workers.contains(&pid) {
        return;
    }
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("read _ ; kill -KILL \"-$1\" 2>/dev/null")
        .arg("lifeline")
        .arg(pid.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    if let Ok(lifeline) = command.spawn() {
        // Its stdin's write end stays here (close-on-exec): held until the lifeline is ended.
        if let Ok(mut lifelines) = LIFELINES.lock() {
            lifelines.push((pid, lifeline));
        }
    }
}

/// End a worker's lifeline quietly (the worker is being ended by us).
fn end_lifeline(pid: i32) {
    let found = LIFELINES.lock().ok().and_then(|mut l| l.iter().position(|(p, _)| *p == pid).map(|i| l.remove(i)));
    if let Some((_, mut lifeline)) = found {
        let _ = lifeline.kill();
        let _ = lifeline.wait();
    }
}

/// The workshop is quitting on a signal: kill every worker's group and every stray, and start no
/// more. Called from the signal thread, while other threads may still be calling Python.
pub fn end_everything() {
    let workers = {
        let workers = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
        QUITTING.store(true, Ordering::SeqCst);
        for &pid in workers.iter() {
            // SAFETY: kill(2) on the process group each worker leads; a group already gone makes
            // it a no-op.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        workers.clone()
    };
    for &pid in &workers {
        end_lifeline(pid);
    }
    // Reaping the workers re-parents to us what they started in new sessions, for the chase.
    #[cfg(target_os = "linux")]
    for pid in workers {
        reap(pid);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = workers;
    kill_strays();
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
        if let Ok(mut marks) = MARKS.lock() {
            marks.retain(|(w, _)| *w != pid);
        }
        end_lifeline(pid);
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
        // Held through the scan and the kills: `spawn_here` registers a new worker under this
        // lock, so one started by another thread (files graded in parallel) is never taken for
        // a stray between its start and its registration.
        let held = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
        let workers = held.clone();
        let quitting = QUITTING.load(Ordering::SeqCst);
        let running: Vec<String> = MARKS.lock().map(|m| m.iter().map(|(_, m)| m.clone()).collect()).unwrap_or_default();
        let strays: Vec<i32> = children(std::process::id())
            .into_iter()
            .filter(|p| quitting || !workers.contains(p))
            .filter(|p| mark_of(*p).is_some_and(|m| quitting || !running.contains(&m)))
            .collect();
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
