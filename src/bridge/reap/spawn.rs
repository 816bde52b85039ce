//! Starting a worker: on Linux from one long-lived thread, with the parent-death signal (elsewhere
//! announced to the lifeline instead, see `spawn_elsewhere`), with no inherited
//! descriptors, registered under the registry's lock.

use std::process::{Child, Command};
use std::sync::atomic::Ordering;
#[cfg(target_os = "linux")]
use std::time::Instant;

#[cfg(target_os = "linux")]
use rustix::process::{Pid, Signal};

use super::lifeline;
#[cfg(target_os = "linux")]
use super::{lifeline_due_after, set_subreaper, subreaper};
use super::{MARK, MARKS, QUITTING, SANDBOXED, STARTED, WORKERS};

/// Where a started process may run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(in crate::bridge) enum Place {
    /// On the core the starting thread keeps to, when it keeps to one (a grading thread's file).
    WithThisThread,
    /// Wherever the scheduler puts it: a process several threads ask (the lesson's world).
    Anywhere,
    /// Off the core the starting thread is on now, while it may run on another: a Python whose
    /// start-up the command waits for, started while this thread still has work of its own (the
    /// warm-up's, started before the lesson is read). A child starts on its parent's core and
    /// often stays there, since its parent sleeps while it execs; the parent's work then came
    /// before the interpreter's start-up (a millisecond, a tenth of a `check`, in two starts of
    /// three from a shell). The runner gives the learner's spare every core back when it forks,
    /// and sends the middle process to the core kept from it (see `_cores` in runner/spare.py).
    AwayFromThisThread,
}

impl Place {
    /// The one core a process started from this thread keeps to, if any.
    #[cfg(target_os = "linux")]
    pub(in crate::bridge) fn core(self) -> Option<rustix::thread::CpuSet> {
        match self {
            Place::WithThisThread => {
                crate::bridge::cores::own_core().map(crate::bridge::cores::only)
            }
            Place::Anywhere => None,
            Place::AwayFromThisThread => crate::bridge::cores::all_but(
                rustix::thread::sched_getaffinity(None).ok()?,
                rustix::thread::sched_getcpu(),
            ),
        }
    }
}

/// Start a worker and register it, under the registry's lock. On Linux the child is started from
/// one long-lived thread (the main thread's own unsandboxed starts from it directly) and asks the
/// kernel for SIGKILL when its parent dies: the parent-death signal follows the thread that
/// forked, so a short-lived thread (a grading in `check --watch`) must not be the one that forks.
/// `sandboxed`: the command is bubblewrap, whose child leads the PID namespace everything of the
/// submission runs in (the lifeline is started first then, and told of it before it runs: see
/// `Announced`). `handed`: the descriptors above 2 the program keeps, by their own numbers, open
/// in this process until this returns: bubblewrap's signal to go on (see `Ahead`), or the
/// channel of the second spare a runner forks (see `warm`). `place`: where it may run.
pub(in crate::bridge) fn spawn(
    #[cfg_attr(not(target_os = "linux"), allow(unused_mut))] mut command: Command,
    sandboxed: bool,
    handed: &[std::os::fd::RawFd],
    place: Place,
) -> std::io::Result<Child> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id();
        let kept: Vec<std::os::fd::RawFd> = handed.to_vec();
        let announced = if sandboxed { Announced::arm(&mut command) } else { None };
        let core = place.core();
        // SAFETY: the closure runs in the forked child before exec and only makes async-signal-safe
        // calls (prctl, sched_setaffinity, getppid, kill and getrlimit as rustix's raw system
        // calls, close_range, fcntl), allocating nothing.
        unsafe {
            command.pre_exec(move || {
                rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
                if let Some(core) = &core {
                    // Only faster: where it is refused, the process runs anywhere.
                    let _ = rustix::thread::sched_setaffinity(None, core);
                }
                close_inherited();
                for &fd in &kept {
                    // Kept across exec, by its own number (so no descriptor of the standard
                    // library's is overwritten).
                    if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                // The parent may have died between fork and prctl: then nobody would signal us.
                if u32::try_from(Pid::as_raw(rustix::process::getppid())).ok() != Some(parent) {
                    let _ = rustix::process::kill_process(rustix::process::getpid(), Signal::KILL);
                }
                Ok(())
            });
        }
        if !sandboxed && std::thread::current().name() == Some("main") {
            // The main thread lives as long as the workshop, so the parent-death signal it gives
            // holds as the spawner's does, without the hop: on a VM, waking the spawner on another
            // core cost about a tenth of a `check` (the warm-up's start is on the main thread).
            let result = spawn_here(command, false);
            if let (Ok(_), Some(spawner)) = (&result, spawner()) {
                let _ = spawner.send(SpawnJob::Started);
            }
            return result;
        }
        if let Some(spawner) = spawner() {
            let (reply, answer) = std::sync::mpsc::channel();
            let result = match spawner.send(SpawnJob::Spawn(Box::new(command), sandboxed, reply)) {
                Ok(()) => answer.recv().unwrap_or_else(|_| {
                    Err(std::io::Error::other("the workshop's process starter stopped"))
                }),
                Err(_) => Err(std::io::Error::other("the workshop's process starter stopped")),
            };
            if let (Err(_), Some(announced)) = (&result, announced) {
                announced.withdraw();
            }
            return result;
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        spawn_elsewhere(command, sandboxed, handed, place)
    }
    #[cfg(target_os = "linux")]
    spawn_here(command, sandboxed)
}

/// `spawn` where there is neither a parent-death signal nor a subreaper (macOS): from this
/// thread, the lifeline forked before the first worker, and each child announcing itself to it
/// before it execs, so a workshop killed outright at any point leaves no worker's group behind.
/// No core is chosen (`place`): there is no affinity to set there.
#[cfg(not(target_os = "linux"))]
fn spawn_elsewhere(
    mut command: Command,
    sandboxed: bool,
    handed: &[std::os::fd::RawFd],
    place: Place,
) -> std::io::Result<Child> {
    use std::os::unix::process::CommandExt;
    let _ = place;
    inherited_close_at_exec();
    let kept: Vec<std::os::fd::RawFd> = handed.to_vec();
    // SAFETY: the closure runs in the forked child before exec and only calls fcntl.
    unsafe {
        command.pre_exec(move || {
            for &fd in &kept {
                // Kept across exec, by its own number.
                if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let announced = Announced::arm(&mut command);
    let result = spawn_here(command, sandboxed);
    if let (Err(_), Some(announced)) = (&result, announced) {
        announced.withdraw();
    }
    result
}

/// Every descriptor above 2 this process inherited (`grade ... 3>>results.jsonl`) closes at
/// exec from now on, so no submission writes through it: its own are close-on-exec already.
/// Done once, here, where the list is a folder to read (`/dev/fd`), rather than in each child,
/// where it would be a loop over every possible number (no `close_range` but on Linux).
#[cfg(not(target_os = "linux"))]
fn inherited_close_at_exec() {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(|| {
        let listed = std::fs::read_dir("/dev/fd").into_iter().flatten().flatten();
        let fds: Vec<i32> = listed.filter_map(|e| e.file_name().to_str()?.parse().ok()).collect();
        for fd in fds.into_iter().filter(|&fd| fd > 2) {
            // SAFETY: fcntl on a number that may no longer be open (the folder's own) fails
            // with EBADF and changes nothing.
            unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
        }
    });
}

/// A child that tells the lifeline its own pid before it execs, and tells us too, on a pipe of
/// its own: if the start fails after that, the lifeline must forget a pid that is no longer ours.
///
/// Every bubblewrap is started so. bwrap's child, the namespace's init to be, asks for its
/// parent-death signal only once the sandbox is made: until then it waits on bwrap (for its user
/// mappings, and for `--block-fd` when made ahead), and a bwrap that died in that time leaves it
/// waiting for ever. It is in bwrap's group, so the lifeline kills it, as long as the lifeline
/// knows the group before bwrap runs: a workshop killed between bwrap's exec and the
/// registration that follows it left exactly such a child behind.
///
/// Where there is no parent-death signal (macOS), every worker is started so.
struct Announced {
    lifeline: std::os::fd::OwnedFd,
    read: std::os::fd::OwnedFd,
    write: std::os::fd::OwnedFd,
}

impl Announced {
    /// The command's child will announce itself, between fork and exec; `None` when there is no
    /// lifeline to tell.
    fn arm(command: &mut Command) -> Option<Announced> {
        use std::os::fd::AsRawFd;
        use std::os::unix::process::CommandExt;
        let lifeline = lifeline::started_for_a_child()?;
        let (read, write) = crate::bridge::pipe::cloexec_pipe().ok()?;
        let announced = Announced { lifeline, read, write };
        let (lifeline, back) = (announced.lifeline.as_raw_fd(), announced.write.as_raw_fd());
        // SAFETY: getpid and two writes of four bytes, rustix's raw system calls, on descriptors
        // open until this process drops `announced` (after the spawn); nothing allocated.
        unsafe {
            command.pre_exec(move || {
                let me = rustix::process::getpid().as_raw_nonzero().get();
                lifeline::announce(lifeline, me);
                lifeline::announce(back, me);
                Ok(())
            });
        }
        Some(announced)
    }

    /// The start failed, or its process was waited for: the pid the child announced, if it got
    /// that far, is forgotten. The child is gone (reaped), so the pipe reads whole or empty.
    fn withdraw(self) {
        let Announced { read, write, .. } = self;
        drop(write);
        let mut bytes = [0_u8; 4];
        if rustix::io::read(&read, &mut bytes) == Ok(4) {
            lifeline::forget(i32::from_ne_bytes(bytes));
        }
    }
}

/// Run a bubblewrap that is no worker (the probe `grade` makes once, run to its end by `run`)
/// announced to the lifeline as a worker's is (see `Announced`), and forgotten once `run` has
/// waited for it.
pub(in crate::bridge) fn announced_while<R>(
    mut command: Command,
    run: impl FnOnce(Command) -> R,
) -> R {
    let announced = Announced::arm(&mut command);
    let result = run(command);
    if let Some(announced) = announced {
        announced.withdraw();
    }
    result
}

/// In a child between fork and exec: every descriptor above 2 closes at exec. The workshop's own
/// are close-on-exec already, but one it inherited is not (`grade ... 3>>results.jsonl`), and a
/// submission must not write through it. Marked rather than closed, so the standard library's
/// pipe that reports a failed exec still works; a kernel before 5.11 gets a loop. libc's calls:
/// rustix has no close_range, and its fcntl wants a descriptor known to be open.
#[cfg(target_os = "linux")]
unsafe fn close_inherited() {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    if libc::syscall(libc::SYS_close_range, 3_u32, u32::MAX, CLOSE_RANGE_CLOEXEC) == 0 {
        return;
    }
    let open =
        rustix::process::getrlimit(rustix::process::Resource::Nofile).current.unwrap_or(u64::MAX);
    for fd in 3..open.min(65_536) as libc::c_int {
        libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
    }
}

pub(super) fn spawn_here(mut command: Command, sandboxed: bool) -> std::io::Result<Child> {
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
    // Without pipe2 (macOS) no pipe of ours is half made while a worker forks (see
    // `cloexec_pipe`); taken after the registry's lock, as everywhere.
    #[cfg(not(target_os = "linux"))]
    let forking = crate::bridge::pipe::FORKING.write().unwrap_or_else(|e| e.into_inner());
    let child = command.spawn();
    #[cfg(not(target_os = "linux"))]
    drop(forking);
    let child = child?;
    if let Ok(pid) = i32::try_from(child.id()) {
        workers.push(pid);
        crate::bridge::cores::to_the_one_core(pid);
        if sandboxed {
            if let Ok(mut list) = SANDBOXED.lock() {
                list.push(pid);
            }
        }
        lifeline::watch(pid);
        if let (Some(own), Ok(mut marks)) = (own, MARKS.lock()) {
            marks.push((pid, own));
        }
    }
    Ok(child)
}

/// What the spawner is asked.
#[cfg(target_os = "linux")]
enum SpawnJob {
    /// A command, whether it is bubblewrap, and where to answer.
    Spawn(Box<Command>, bool, std::sync::mpsc::Sender<std::io::Result<Child>>),
    /// A worker was started on the main thread: only the lifeline's time to keep.
    Started,
}

/// The thread every worker is forked from; it lives as long as the workshop.
#[cfg(target_os = "linux")]
fn spawner() -> Option<&'static std::sync::mpsc::Sender<SpawnJob>> {
    static SPAWNER: std::sync::OnceLock<Option<std::sync::mpsc::Sender<SpawnJob>>> =
        std::sync::OnceLock::new();
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
                            Some(due) => match rx
                                .recv_timeout(due.saturating_duration_since(Instant::now()))
                            {
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
                        let (command, sandboxed, reply) = match job {
                            SpawnJob::Spawn(command, sandboxed, reply) => {
                                (command, sandboxed, reply)
                            }
                            SpawnJob::Started => {
                                if lifeline_due.is_none() && !lifeline::started() {
                                    lifeline_due = Some(lifeline_due_after(Instant::now()));
                                }
                                continue;
                            }
                        };
                        // The lifeline was started for a sandbox already (`Announced`).
                        if sandboxed {
                            lifeline_due = None;
                        }
                        let result = spawn_here(*command, sandboxed);
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
