//! Python started ahead of time: a spare for a file not known yet, and the warm-up at the start of
//! a command.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::capture::capture_pipe;
use super::process::Process;
use super::runner::runner_code;
use super::worker::{Handed, Worker};
use super::{cache, reap, BridgeConfig, Stop, STARTUP_ALLOWANCE};

/// A Python process started ahead of time, with the runner imported, waiting to be told which
/// file to load: taking one saves the interpreter's start-up when the file is known (a save in
/// `check --watch`). Dropping it kills it.
pub(crate) struct Spare {
    worker: Worker,
    python: OsString,
}

impl Spare {
    /// Start one for files to be run under `cfg` (its file is not read). `None` when Python
    /// would not start: the next `Bridge` start then says why.
    pub(crate) fn start(cfg: &BridgeConfig) -> Option<Spare> {
        let (worker, _) = Worker::launch(cfg, &Stop::default(), true).ok()?;
        Some(Spare { worker, python: cfg.python.clone() })
    }
}

/// A Python process started at the very beginning of a command, before the lesson and the
/// learner's file are read: its start-up runs beside the workshop's own instead of after it.
struct Warm {
    worker: Worker,
    started: Instant,
    python: OsString,
}

/// How many Pythons a command warms up where no spare can be forked: one for the learner's file
/// and one for the lesson's world, which runs in a process of its own (see `world::python`).
const WARMED: usize = 2;

/// The warm Pythons, once started, and the thread starting them until then.
#[derive(Default)]
struct Warming {
    ready: Vec<Warm>,
    starting: Option<std::thread::JoinHandle<Vec<Warm>>>,
    /// The learner's spare, forked by the first warm Python (which the world then takes).
    forked: Option<Forked>,
}

/// The learner's spare: a runner the warm Python forked as soon as it was ready, before anything
/// was loaded into either (`_fork_a_spare` in runner/spare.py), leading a process group of its own and
/// handed to this process, its child subreaper. Known here by the channel it was forked onto
/// until its hello gives its pid; adopted then (see `reap::adopt`). One interpreter's start-up
/// serves both processes. The learner's file is the one forked into, and the world gets the
/// first process: the hand-over (a second fork, and an exit) then delays the loading that has
/// time in hand, since a world loads for longer than a learner's file, and the world's process
/// is never a descendant of the learner's either way. Dropped untaken, its channel closes and it
/// ends; it is a child of ours, so the last sweep kills it anyway.
struct Forked {
    requests: File,
    answers: File,
    output: File,
    started: Instant,
    python: OsString,
}

static WARM: std::sync::Mutex<Option<Warming>> = std::sync::Mutex::new(None);

/// Start Python now for the files this command will run (`WORKSHOP_PYTHON`, else `python3`):
/// the learner's and the lesson's world's, without waiting for either to answer. Where this
/// process adopts orphans (Linux), one interpreter is started and forks the learner's spare
/// before anything loads (see `Forked`): half the start-up CPU of two, which a busy machine
/// feels. Elsewhere two start, the first at once and the second from a thread. Each
/// `Bridge::start_with_spare` that fits takes one (the learner's file the forked spare); a
/// command that ends without using them kills them with the rest. A Python that will not start is
/// left for that start to report. `forked_only`: warm nothing where the learner's cannot be
/// forked (`watch`, which measured no gain from two interpreters starting beside its reading).
/// `read_ahead`: the file the first Python will most likely load (the world's host), whose code
/// it reads before it forks.
pub(crate) fn warm_up(forked_only: bool, read_ahead: Option<&'static Path>) {
    if super::plain() {
        return;
    }
    let Ok(mut warm) = WARM.lock() else { return };
    if warm.is_some() {
        return;
    }
    let cfg = BridgeConfig {
        python: BridgeConfig::learner_python(),
        file: PathBuf::new(),
        shown_as: String::new(),
        functions: Vec::new(),
        timeout: Duration::ZERO,
        sandbox: None,
        world: false,
    };
    let begin = |cfg: &BridgeConfig| {
        let started = Instant::now();
        let worker = Worker::begin(cfg, runner_code(), &Stop::default(), true).ok()?;
        Some(Warm { worker, started, python: cfg.python.clone() })
    };
    // One interpreter for both when this process adopts orphans: the learner's is forked from it.
    if reap::subreaper() {
        if let Some(warming) = begin_forking(&cfg, read_ahead) {
            *warm = Some(warming);
            return;
        }
    }
    if forked_only {
        return;
    }
    // The first at once; the rest from a thread, each fork a moment the lesson is read meanwhile.
    let Some(first) = begin(&cfg) else {
        *warm = Some(Warming::default());
        return;
    };
    let rest = move || (1..WARMED).map_while(|_| begin(&cfg)).collect();
    let starting = std::thread::Builder::new().name("warm-up".into()).spawn(rest).ok();
    *warm = Some(Warming { ready: vec![first], starting, forked: None });
}

/// The warm Python for the world, started on the channel of the learner's spare it forks.
fn begin_forking(cfg: &BridgeConfig, read_ahead: Option<&'static Path>) -> Option<Warming> {
    let pipe = || super::pipe::cloexec_pipe().ok();
    let (theirs_in, requests) = pipe()?;
    let (answers, theirs_out) = pipe()?;
    let (output, theirs_err) = capture_pipe().ok()?;
    let handed = Handed::Fork(
        [theirs_in.as_raw_fd(), theirs_out.as_raw_fd(), theirs_err.as_raw_fd()],
        read_ahead,
    );
    let pipe = rustix::fs::fstat(&theirs_in).ok()?.st_ino;
    let started = Instant::now();
    let worker = Worker::started(cfg, runner_code(), &Stop::default(), true, handed).ok()?;
    // Told apart from a stray, until it is adopted, by the pipe it reads (which only it holds).
    // The runner forks it once it is ready, long after this.
    reap::spare_coming(Some((theirs_in.as_raw_fd(), format!("pipe:[{pipe}]"))));
    // The spare's ends are the runners' alone now: the channel closes when they are gone.
    drop((theirs_in, theirs_out, theirs_err));
    let forked = Forked {
        requests: File::from(requests),
        answers: File::from(answers),
        output,
        started,
        python: cfg.python.clone(),
    };
    let first = Warm { worker, started, python: cfg.python.clone() };
    Some(Warming { ready: vec![first], starting: None, forked: Some(forked) })
}

impl Forked {
    /// The spare as a worker of this process, told `request` (its file), once its hello came and
    /// it is a running child of ours; `None` otherwise (it ends with its channel).
    fn adopt(self, cfg: &BridgeConfig, stop: &Stop, request: &[u8]) -> Option<Worker> {
        let Forked { requests, mut answers, output, started, python } = self;
        if python != cfg.python {
            return None;
        }
        let deadline = started + cfg.timeout + STARTUP_ALLOWANCE;
        // Told first, so it goes from its hello to loading without waiting for this side: the
        // request waits in the pipe, which only it reads (and which closes with it if it is not
        // adopted).
        let mut requests = requests;
        let told = requests.write_all(request).is_ok();
        let adopted = told
            .then(|| hello(&mut answers, deadline))
            .flatten()
            .filter(|(pid, _)| reap::adopt(*pid));
        let Some((pid, rest)) = adopted else {
            // Not to be waited for any more: a sweep may take it now.
            reap::spare_coming(None);
            return None;
        };
        cache::runner_started();
        let child = Process::Adopted { pid, status: None };
        let mut worker = Worker::of(
            child,
            OwnedFd::from(requests).into(),
            OwnedFd::from(answers).into(),
            output,
            stop,
            false,
        );
        worker.pending = rest;
        Some(worker)
    }
}

/// The pid a runner's hello gives, and what came after it, read before `deadline`.
fn hello(answers: &mut File, deadline: Instant) -> Option<(i32, Vec<u8>)> {
    use rustix::event::{PollFd, PollFlags, Timespec};
    let mut got = Vec::new();
    loop {
        if let Some(end) = got.iter().position(|&b| b == b'\n') {
            let line: Value = serde_json::from_slice(&got[..end]).ok()?;
            let spoken = super::protocol::spoken(&line).flatten();
            let pid = i32::try_from(line["pid"].as_i64()?)
                .ok()
                .filter(|_| spoken == Some(super::protocol::PROTOCOL))?;
            return Some((pid, got[end + 1..].to_vec()));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || got.len() > 4096 {
            return None;
        }
        let millis = left.as_millis().clamp(1, 999) as i64;
        let timeout = Timespec { tv_sec: 0, tv_nsec: millis * 1_000_000 };
        let mut fds = [PollFd::new(&*answers, PollFlags::IN)];
        match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(0) | Err(rustix::io::Errno::INTR) => continue,
            Ok(_) => {}
            Err(_) => return None,
        }
        let mut chunk = [0u8; 512];
        match answers.read(&mut chunk) {
            Ok(0) => return None,
            Ok(n) => got.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
}

/// The warm Python, told `request` (its file) and greeted, when there is one for `cfg`. The
/// request is written first, so the runner goes from its hello to loading without waiting for
/// this side. Anything wrong with it (a damaged cached runner) is left for a cold start to deal
/// with and report.
fn take_warm(cfg: &BridgeConfig, stop: &Stop, request: &[u8]) -> Option<Worker> {
    if cfg.sandbox.is_some() {
        return None;
    }
    if !cfg.world {
        let forked = WARM.lock().ok().and_then(|mut warm| warm.as_mut()?.forked.take());
        if let Some(worker) = forked.and_then(|forked| forked.adopt(cfg, stop, request)) {
            return Some(worker);
        }
    }
    let Warm { mut worker, started, python } = {
        let mut warm = WARM.lock().ok()?;
        let warming = warm.as_mut()?;
        if let Some(thread) = warming.starting.take() {
            warming.ready.extend(thread.join().unwrap_or_default());
        }
        warming.ready.pop()?
    };
    if python != cfg.python {
        return None;
    }
    worker.stop = stop.clone();
    worker.stdin.write_all(request).ok()?;
    worker.greet(cfg, started).ok().map(|(worker, _)| worker)
}

/// For a command that warmed up, once its Pythons are started and from here on only take turns
/// with this thread (a request, then its answer; `check`'s calls, `watch`'s replays printed as
/// cards, not the player, which starts several codes at once): keep them and this thread on one
/// core (see `cores::keep_on_one_core`).
pub(crate) fn take_turns_on_one_core() {
    if WARM.lock().is_ok_and(|warm| warm.is_some()) {
        super::cores::keep_on_one_core();
    }
}

/// The spare when it fits and still runs, else the warm Python, told `request` (its file).
pub(super) fn told(
    cfg: &BridgeConfig,
    stop: &Stop,
    spare: Option<Spare>,
    request: &[u8],
) -> Option<Worker> {
    match spare.filter(|s| s.python == cfg.python && cfg.sandbox.is_none()) {
        Some(Spare { mut worker, .. }) => {
            let alive = running(&worker.child);
            (alive && worker.stdin.write_all(request).is_ok()).then_some(worker)
        }
        None => take_warm(cfg, stop, request),
    }
}

/// Whether the process still runs, looked at without reaping it: a reaped worker's pid could be
/// another process's by the time its dropping kills its group.
fn running(child: &Process) -> bool {
    i32::try_from(child.id()).is_ok_and(reap::running_child)
}
