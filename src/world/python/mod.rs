//! A world written in Python (`worlds/<name>/world.py`), run in a process of its own: the
//! learner's bridge machinery (deadlines, the private channel, the allow-list environment,
//! clean-up) with `host.py` as the file it serves, which loads the author's world. The learner's
//! code never runs there, so what a run counts cannot be forged by it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Value};

use super::frames::{self, HostSaid};
use super::{Effects, Fail, Failure, Halt, Problem, Seen, Setting, World};
use crate::bridge::{Bridge, Outcome};

mod host_file;
mod loading;
mod upset;

pub(crate) use host_file::host_to_read_ahead;
use loading::{host_question, RESERVED_AT_MOST};
pub(crate) use loading::{AheadQuestion, Loading};
use upset::{doing, upset};

pub(crate) const HOST: &str = include_str!("../host.py");

/// The host's functions, as the runner checks they exist: loading, then every question asked
/// through `ask` (see `PythonWorld::asked`).
const FUNCTIONS: [&str; 2] = ["load_world", "ask"];

/// The last line of an error raised in the world's code.
const WORLDS_OWN: &str =
    "This is an error in the world, not in the learner's code: fix the world file.";

/// How long a world may take over one call: a world is the author's code, and fast.
const DEADLINE: Duration = Duration::from_secs(5);

/// Numbers handed to the world for its sample fields (each a uniform draw in 0..1).
const DRAWS: usize = 8;

/// Why a world could not be opened: the lesson's data it refuses (near text of the manifest),
/// or the world itself is broken (an author's error in its own file).
#[derive(Debug)]
pub(crate) enum Refused {
    Problems(Vec<Problem>),
    Broken(String),
    /// No Python to run it: said as for the learner's file.
    NoPython,
}

/// A world's process, loaded with a lesson's data.
#[derive(Debug)]
pub(crate) struct PythonWorld {
    /// The world file as messages name it.
    shown: String,
    bridge: Mutex<BridgeSlot>,
    behaviours: Vec<String>,
    messages: BTreeMap<String, String>,
    fields: Vec<String>,
    counts: BTreeMap<String, Vec<String>>,
    retry_helps: Vec<String>,
    internal: Vec<String>,
    /// The first author's error met while running, if any: every later call fails fast.
    broken: Mutex<Option<String>>,
    /// What loading was given, to load a fresh process with when this one ended under it.
    load: Vec<Value>,
    /// How often the process ended under the world by itself.
    ended: std::sync::atomic::AtomicU32,
    /// How often a fresh process took the place of one that ended (see `resets`).
    resets: AtomicU64,
    /// Calls whose asking upset the world (an answer over the limit), by the thread that asked
    /// them (see `upset`).
    upsets: Mutex<Vec<(std::thread::ThreadId, String)>>,
    /// The last upset from outside (a signal, lines written into its channel), in words: not
    /// the asker's doing, whoever asked; `Lesson::grading` tells whose.
    /// Kept with the count of resets it came to.
    outside: Mutex<Option<(u64, String)>>,
    /// The number the next run gets: never one given before, in any of the world's processes.
    next_run: AtomicU64,
    /// The runs whose first calls were asked ahead (`Loading::ask_ahead`), not started yet: each
    /// one's ticket and number, for the next run of that ticket to take.
    reserved: Mutex<Vec<(String, u64)>>,
    /// Runs that ended, for the host to forget with the next question (no round trip of their own).
    done: Mutex<Vec<u64>>,
}

/// How many times a world's process may end before that is the world's own error.
const ENDINGS_ALLOWED: u32 = 3;

/// The bridge, which is not `Debug`.
struct BridgeSlot(Bridge);

impl std::fmt::Debug for BridgeSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("world process")
    }
}

/// What the host answered to one call.
enum CallAnswer {
    Value(Value),
    Failed(Failure),
}

/// What an answer of the host carries besides its value or failure: the world's own lines about
/// a call (`self.say(...)` in a tool), and what the run had done after it.
struct Besides {
    said: Vec<String>,
    effects: Option<Effects>,
}

/// The numbers a world's `draw(n)` takes its draws from, in turn: each draw of 2^53 is a
/// uniform number in 0..1 with every bit the world's own draw(n) would have used (it takes
/// floor(u * n) % n, as the seeded draw does).
pub(crate) fn units(draw: &mut dyn FnMut(u64) -> u64) -> Vec<Value> {
    const SCALE: u64 = 1 << 53;
    (0..DRAWS).map(|_| Value::from(draw(SCALE) as f64 / SCALE as f64)).collect()
}

/// The number of a command's first run in the world (`Setting::start` numbers them from here).
const FIRST_RUN: u64 = 1;

impl PythonWorld {
    /// A world whose process has started, before anything is loaded into it.
    fn started(shown: &str, bridge: Bridge) -> PythonWorld {
        PythonWorld {
            shown: shown.to_string(),
            bridge: Mutex::new(BridgeSlot(bridge)),
            behaviours: Vec::new(),
            messages: BTreeMap::new(),
            fields: Vec::new(),
            counts: BTreeMap::new(),
            retry_helps: Vec::new(),
            internal: Vec::new(),
            broken: Mutex::new(None),
            load: Vec::new(),
            ended: std::sync::atomic::AtomicU32::new(0),
            resets: AtomicU64::new(0),
            upsets: Mutex::new(Vec::new()),
            outside: Mutex::new(None),
            next_run: AtomicU64::new(FIRST_RUN),
            reserved: Mutex::new(Vec::new()),
            done: Mutex::new(Vec::new()),
        }
    }

    /// The behaviours (`@tool` names) the world has, for the lesson's `does`.
    pub(crate) fn behaviours(&self) -> &[String] {
        &self.behaviours
    }

    /// The first author's error met while running, with the world file.
    pub(crate) fn broken(&self) -> Option<String> {
        self.broken.lock().ok().and_then(|b| b.clone())
    }

    fn garbled(&self, doing: &str, what: &str) -> String {
        format!("while {doing}, the world answered with {what}, which the host never sends")
    }

    /// An author's error in this world, as the command reports it.
    pub(crate) fn error(&self, why: String) -> crate::error::Error {
        let flaw = crate::error::Flaw::World(why);
        crate::error::Corrupt::new(Path::new(&self.shown), flaw).into()
    }

    /// Call a host function, for its answer and the world's own lines of it; an error names the
    /// call as `named` (what was asked through the host's `ask`), and the first one is kept.
    fn ask_saying(
        &self,
        function: &str,
        named: &str,
        args: &[Value],
    ) -> Result<(CallAnswer, Besides), NotAnAnswer> {
        if let Some(why) = self.broken() {
            return Err(NotAnAnswer::Broken(why));
        }
        let mut slot = match self.bridge.lock() {
            Ok(slot) => slot,
            Err(_) => return Err(NotAnAnswer::Broken("the world's process was lost".into())),
        };
        let call = slot.0.call(function, args);
        let killed = slot.0.killed_by_signal();
        self.judged(&mut slot.0, function, named, call, killed)
    }

    /// What a call to a host function came to (`killed`: its process was killed by a signal
    /// under it); an author's error is kept (the first one).
    fn judged(
        &self,
        bridge: &mut Bridge,
        function: &str,
        named: &str,
        call: crate::bridge::Call,
        killed: bool,
    ) -> Result<(CallAnswer, Besides), NotAnAnswer> {
        let answer = match call.outcome {
            Outcome::Returned(value) => self.read(value, named),
            // Killed, stopped, flooded or written into from outside, or made to answer past the
            // limit by what it was asked: the doing of the file whose run asked, not the author's.
            other if function != "load_world" && upset(&other, killed) => {
                Err(self.upset(bridge, named, &other))
            }
            // The process ended under the call by itself: a fresh one is loaded, and the runs it
            // held are lost (their calls fail, nothing more), as often as that happens; a world
            // that keeps exiting by itself is its author's error.
            Outcome::Exited { .. } | Outcome::Unavailable { .. }
                if function != "load_world"
                    && self.ended.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
                        < ENDINGS_ALLOWED
                    && self.reload(bridge) =>
            {
                self.resets.fetch_add(1, Ordering::SeqCst);
                Err(NotAnAnswer::Lost)
            }
            other => {
                let problem = other.problem().unwrap_or_else(|| "failed".into());
                let stop = if problem.ends_with(['.', '?', '!']) { "" } else { "." };
                Err(NotAnAnswer::Broken(format!(
                    "while {}, the world {problem}{stop} This is an error in the world, not in the learner's code: fix the world file.",
                    doing(named)
                )))
            }
        };
        if let Err(NotAnAnswer::Broken(why)) = &answer {
            self.remember_broken(why.clone());
        }
        answer
    }

    /// An author's error (or a host the workshop cannot read): the first one is kept, and every
    /// later question is answered with it.
    fn remember_broken(&self, why: String) {
        if let Ok(mut broken) = self.broken.lock() {
            broken.get_or_insert(why);
        }
    }

    /// One answer of the host, read by its kind (see `frames`): a host that answers otherwise
    /// than the workshop reads is broken, with the key and the answer that did not fit.
    fn read(&self, answer: Value, named: &str) -> Result<(CallAnswer, Besides), NotAnAnswer> {
        let broken = |why| NotAnAnswer::Broken(format!("while {}, {why}", doing(named)));
        let read = frames::read(answer).map_err(broken)?;
        let besides = Besides { said: read.lines, effects: read.effects };
        let answer = match read.said {
            HostSaid::Value(value) => CallAnswer::Value(value),
            HostSaid::Failed(failure) => CallAnswer::Failed(failure),
            HostSaid::Problems(problems) => return Err(NotAnAnswer::Problems(problems)),
            HostSaid::Lost => return Err(NotAnAnswer::Lost),
            HostSaid::Error(e) => {
                let at = e.line.map(|line| format!("line {line}: ")).unwrap_or_default();
                let code = e.code.filter(|c| !c.is_empty());
                let code = code.map(|c| format!("\n    {c}")).unwrap_or_default();
                return Err(NotAnAnswer::Broken(format!(
                    "{at}while {}, the world failed: {}{code}\n{WORLDS_OWN}",
                    e.doing, e.message
                )));
            }
        };
        Ok((answer, besides))
    }

    /// Ask the loaded world (`function` of the host's `ask`), forgetting the runs that ended
    /// and opening `run` first when this is its first question: one round trip either way.
    fn asked(
        &self,
        run: Option<&PythonRun<'_>>,
        function: &str,
        args: Vec<Value>,
    ) -> Result<(CallAnswer, Besides), NotAnAnswer> {
        let opening = match run {
            Some(run) if !run.opened.swap(true, Ordering::SeqCst) => {
                json!([run.number, run.ticket])
            }
            _ => Value::Null,
        };
        let mut question = host_question(json!([]), opening, function, args);
        // Asked ahead, the question forgot no runs: asked so, it takes that answer, and the runs
        // that ended are forgotten with the next one.
        let ahead = self.bridge.lock().is_ok_and(|slot| slot.0.is_ahead("ask", &question));
        if !ahead {
            question[0] =
                json!(self.done.lock().map(|mut d| std::mem::take(&mut *d)).unwrap_or_default());
        }
        self.ask_saying("ask", function, &question)
    }

    /// A value the host must give; a world that broke gives `None` (and is remembered broken).
    fn value(
        &self,
        run: Option<&PythonRun<'_>>,
        function: &str,
        args: Vec<Value>,
    ) -> Option<Value> {
        match self.asked(run, function, args) {
            Ok((CallAnswer::Value(v), _)) => Some(v),
            _ => None,
        }
    }
}

/// An answer that is not a value or a failure.
enum NotAnAnswer {
    Problems(Vec<Problem>),
    Broken(String),
    /// The run asked about was lost with a process that ended: its calls fail, nothing more.
    Lost,
}

impl Setting for PythonWorld {
    fn start(&self, ticket: &str) -> Box<dyn World + '_> {
        // Unanswered in the host with its first question, so a run costs no round trip of its own;
        // the number of a run of this ticket whose first call was asked ahead, if one is left.
        let reserved = self.reserved.lock().ok().and_then(|mut reserved| {
            let at = reserved.iter().position(|(t, _)| t == ticket)?;
            Some(reserved.remove(at).1)
        });
        let number = reserved.unwrap_or_else(|| self.next_run.fetch_add(1, Ordering::SeqCst));
        let (ticket, opened) = (ticket.to_string(), AtomicBool::new(false));
        Box::new(PythonRun {
            world: self,
            number,
            ticket,
            opened,
            said: Vec::new(),
            done_so_far: Mutex::new(None),
        })
    }

    fn message(&self, key: &str) -> Option<&str> {
        self.messages.get(key).map(String::as_str)
    }

    fn retry_helps(&self, category: &str) -> bool {
        self.retry_helps.iter().any(|c| c == category)
    }

    fn internal(&self, category: &str) -> bool {
        self.internal.iter().any(|c| c == category)
    }

    fn draw_fields(&self, draw: &mut dyn FnMut(u64) -> u64) -> Vec<(String, String)> {
        match self.value(None, "draw", vec![Value::from(units(draw))]) {
            Some(Value::Object(fields)) => {
                fields.into_iter().filter_map(|(k, v)| Some((k, v.as_str()?.to_string()))).collect()
            }
            _ => self.fields.iter().map(|k| (k.clone(), String::new())).collect(),
        }
    }

    fn summary(&self, output: &Value) -> Option<String> {
        self.value(None, "card", vec![output.clone()]).and_then(|v| v.as_str().map(String::from))
    }
}

impl PythonWorld {
    /// Ask the loaded world now the first call of a run of `ticket` (as `Loading::ask_ahead` does
    /// while it loads): the command's next run of that ticket takes the answer when its first
    /// call is this one. For a world that serves file after file (`grade`, `check --watch`): it
    /// works the call out while the next file's Python starts.
    pub(crate) fn call_ahead(&self, ticket: &str, tool: &str, input: &Value) {
        if self.broken().is_some() {
            return;
        }
        let Ok(mut reserved) = self.reserved.lock() else { return };
        if reserved.len() >= RESERVED_AT_MOST {
            return;
        }
        let first = AheadQuestion::FirstCall {
            ticket: ticket.into(),
            tool: tool.into(),
            input: input.clone(),
        };
        let (question, opens) = first.asked(self.next_run.fetch_add(1, Ordering::SeqCst));
        if self.bridge.lock().is_ok_and(|mut slot| slot.0.send_ahead("ask", question)) {
            reserved.extend(opens);
        }
    }

    /// The names of what a ticket's runs count, known at load.
    pub(crate) fn counted(&self, ticket: &str) -> Vec<String> {
        self.counts.get(ticket).cloned().unwrap_or_default()
    }

    /// The fields the world draws for sample messages, known at load.
    pub(crate) fn drawn(&self) -> &[String] {
        &self.fields
    }
}

/// One run in the world's process, by its number there.
struct PythonRun<'w> {
    world: &'w PythonWorld,
    number: u64,
    ticket: String,
    /// Whether the host has been asked to open it (with its first question).
    opened: AtomicBool,
    /// The world's lines about the last call.
    said: Vec<String>,
    /// What the run had done after its last call, when nothing was asked of it since: its
    /// effects, with no question of their own.
    done_so_far: Mutex<Option<Effects>>,
}

impl PythonRun<'_> {
    /// Asked anything but a call (a read's `found`, a report), the world may have changed: the
    /// effects the last call brought are no longer known to be the run's.
    fn forget_effects(&self) {
        if let Ok(mut known) = self.done_so_far.lock() {
            *known = None;
        }
    }
}

impl World for PythonRun<'_> {
    fn call(&mut self, tool: &str, input: &Value, fail: &mut Fail<'_>) -> Result<Value, Halt> {
        let answer = self.world.asked(
            Some(self),
            "call",
            vec![json!(self.number), Value::from(tool), input.clone()],
        );
        let (answer, besides) = match answer {
            Ok(answered) => answered,
            Err(_) => {
                self.forget_effects();
                return Err(Halt);
            }
        };
        self.said = besides.said;
        if let Ok(mut known) = self.done_so_far.lock() {
            *known = besides.effects;
        }
        match answer {
            CallAnswer::Value(v) => Ok(v),
            CallAnswer::Failed(failure) => fail(&failure),
        }
    }

    fn said(&mut self) -> Vec<String> {
        std::mem::take(&mut self.said)
    }

    fn found(&self, read: &Value) -> bool {
        self.forget_effects();
        self.world
            .value(Some(self), "found", vec![json!(self.number), read.clone()])
            .is_some_and(|v| v == Value::Bool(true))
    }

    fn effects(&self) -> Effects {
        if let Some(known) = self.done_so_far.lock().ok().and_then(|known| known.clone()) {
            return known;
        }
        let Some(v) = self.world.value(Some(self), "effects", vec![json!(self.number)]) else {
            return Effects::default();
        };
        frames::effects("the value of an `effects` question", v).unwrap_or_else(|why| {
            self.world.remember_broken(format!("while {}, {why}", doing("effects")));
            Effects::default()
        })
    }

    fn report(&self, seen: &Seen, attempts: usize, input: &Value) -> Option<Value> {
        self.forget_effects();
        let seen = json!({"category": seen.category, "retryable": seen.retryable, "message": seen.message});
        self.world
            .value(
                Some(self),
                "report",
                vec![json!(self.number), seen, Value::from(attempts), input.clone()],
            )
            .filter(|v| !v.is_null())
    }
}

impl Drop for PythonRun<'_> {
    fn drop(&mut self) {
        // Forgotten by the host with the world's next question: a run that was never asked
        // anything was never opened there.
        if self.opened.load(Ordering::SeqCst) {
            if let Ok(mut done) = self.world.done.lock() {
                done.push(self.number);
            }
        }
    }
}
