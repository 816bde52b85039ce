//! Python started ahead of time: a spare for a file not known yet, and the warm-up at the start of
//! a command.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::runner::runner_code;
use super::worker::Worker;
use super::{BridgeConfig, Stop};

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

/// How many Pythons a command warms up: one for the learner's file and one for the lesson's
/// world, which runs in a process of its own (see `world::python`).
const WARMED: usize = 2;

/// The warm Pythons, once started, and the thread starting them until then.
#[derive(Default)]
struct Warming {
    ready: Vec<Warm>,
    starting: Option<std::thread::JoinHandle<Vec<Warm>>>,
}

static WARM: std::sync::Mutex<Option<Warming>> = std::sync::Mutex::new(None);

/// Start Python now for the files this command will run (`WORKSHOP_PYTHON`, else `python3`):
/// the learner's and the lesson's world's, the first at once and the second from a thread, without
/// waiting for either to answer. Each `Bridge::start_with_spare` that fits takes one; a command
/// that ends without using them kills them with the rest. A Python that will not start is left
/// for that start to report.
pub(crate) fn warm_up() {
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
    };
    let begin = |cfg: &BridgeConfig| {
        let started = Instant::now();
        let worker = Worker::begin(cfg, runner_code(), &Stop::default(), true).ok()?;
        Some(Warm { worker, started, python: cfg.python.clone() })
    };
    // The first at once; the rest from a thread, each fork a moment the lesson is read meanwhile.
    let Some(first) = begin(&cfg) else {
        *warm = Some(Warming::default());
        return;
    };
    let rest = move || (1..WARMED).map_while(|_| begin(&cfg)).collect();
    let starting = std::thread::Builder::new().name("warm-up".into()).spawn(rest).ok();
    *warm = Some(Warming { ready: vec![first], starting });
}

/// The warm Python, told `request` (its file) and greeted, when there is one for `cfg`. The
/// request is written first, so the runner goes from its hello to loading without waiting for
/// this side. Anything wrong with it (a damaged cached runner) is left for a cold start to deal
/// with and report.
fn take_warm(cfg: &BridgeConfig, stop: &Stop, request: &[u8]) -> Option<Worker> {
    if cfg.sandbox.is_some() {
        return None;
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

/// The spare when it fits and still runs, else the warm Python, told `request` (its file).
pub(super) fn told(cfg: &BridgeConfig, stop: &Stop, spare: Option<Spare>, request: &[u8]) -> Option<Worker> {
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
fn running(child: &std::process::Child) -> bool {
    use rustix::process::{waitid, Pid, WaitId, WaitIdOptions};
    let Some(pid) = i32::try_from(child.id()).ok().and_then(Pid::from_raw) else { return false };
    let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
    matches!(waitid(WaitId::Pid(pid), options), Ok(None))
}
