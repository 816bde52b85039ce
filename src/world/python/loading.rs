//! A world's process started and asked to load the lesson's data, and the questions asked of
//! it ahead of the command's need.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde_json::{json, Map, Value};

use super::host_file::host_file;
use super::upset::upset;
use std::path::Path;

use super::super::frames;
use super::{CallAnswer, NotAnAnswer, PythonWorld, Refused, DEADLINE, FIRST_RUN, FUNCTIONS};
use crate::bridge::{Asked, Bridge, BridgeConfig, LoadError, LoadKind, Stop};
use crate::world::{TicketKeys, Tool};

/// One question of the host's `ask`: the runs it is `done` with, the run it opens (`[number,
/// ticket]`, or null), the function asked and its arguments.
pub(super) fn host_question(
    done: Value,
    opening: Value,
    function: &str,
    args: Vec<Value>,
) -> Vec<Value> {
    vec![done, opening, Value::from(function), Value::Array(args)]
}

/// A question asked of the world ahead of the command's need of it, as soon as its process can
/// take it: its answer is ready when the command comes to ask it.
pub(crate) enum AheadQuestion {
    /// A check's sample draw with these numbers (`draw_fields`).
    Draw(Vec<Value>),
    /// The first call of a run of `ticket` (`World::call`, opening the run): the command's next
    /// run of that ticket takes the run, and the answer when its first call is this one.
    FirstCall { ticket: String, tool: String, input: Value },
}

impl AheadQuestion {
    /// The question, asked as the command will ask it (forgetting no runs, see `asked`), and
    /// the run it opens, numbered `run`, when it opens one.
    pub(super) fn asked(self, run: u64) -> (Vec<Value>, Option<(String, u64)>) {
        match self {
            AheadQuestion::Draw(units) => {
                (host_question(json!([]), Value::Null, "draw", vec![Value::from(units)]), None)
            }
            AheadQuestion::FirstCall { ticket, tool, input } => {
                let args = vec![json!(run), Value::from(tool), input];
                (host_question(json!([]), json!([run, ticket]), "call", args), Some((ticket, run)))
            }
        }
    }
}

/// How many runs may wait with their first calls asked ahead of a loaded world: a file that
/// does not load leaves its runs to the next file's checks of the same tickets, and no more than
/// this are asked while they wait.
pub(super) const RESERVED_AT_MOST: usize = 16;

/// A world's process started and asked to load the lesson's data, its answer not yet read.
pub(crate) struct Loading {
    shown: String,
    asked: Asked,
    load: Vec<Value>,
    /// The runs whose first calls were asked ahead: each one's ticket and number.
    reserved: Vec<(String, u64)>,
    /// The number of the next run to open.
    next_run: u64,
    /// What upset the first process from outside as it started, in words: this one took its place.
    upset: Option<String>,
}

impl PythonWorld {
    /// Start the world's process on `file` and ask it to load the lesson's data.
    pub(crate) fn begin(
        file: &Path,
        shown: &str,
        data: &toml::Value,
        tools: &[Tool],
        tickets: &[TicketKeys<'_>],
    ) -> Result<Loading, Refused> {
        let host = host_file().map_err(|why| {
            Refused::Broken(format!("the world host could not be written: {why}"))
        })?;
        let cfg = BridgeConfig {
            python: BridgeConfig::learner_python(),
            file: host.to_path_buf(),
            shown_as: shown.to_string(),
            functions: FUNCTIONS.iter().map(|f| f.to_string()).collect(),
            timeout: DEADLINE,
            sandbox: None,
            world: true,
        };
        let tools: Vec<Value> = tools
            .iter()
            .map(|t| json!({"name": t.name, "does": t.does, "description": t.description, "input_schema": t.input_schema}))
            .collect();
        let tickets: Map<String, Value> = tickets
            .iter()
            .map(|t| (t.id.to_string(), serde_json::to_value(t.keys).unwrap_or(Value::Null)))
            .collect();
        let data = serde_json::to_value(data).unwrap_or(Value::Null);
        let path = file.to_string_lossy().into_owned();
        let protocol = Value::from(crate::bridge::PROTOCOL);
        let load =
            vec![Value::from(path), data, Value::from(tools), Value::Object(tickets), protocol];
        // A Python warmed up at the start of the command (`check`) is taken when there is one,
        // told to load the host and the lesson's world in one go.
        let refused = |e: LoadError| match e.kind {
            LoadKind::NoPython => Refused::NoPython,
            _ => Refused::Broken(format!("its process could not start: {}", e.message)),
        };
        let (asked, upset) =
            match Bridge::start_asking(cfg.clone(), Stop::default(), "load_world", &load) {
                Ok(asked) => (asked, None),
                // Stopped or killed from outside as it started (by the file loading beside it):
                // that file's doing, as when it happens later, and the world starts once more.
                Err(e) if from_outside(&e) => {
                    let asked = Bridge::start_asking(cfg, Stop::default(), "load_world", &load)
                        .map_err(refused)?;
                    (asked, Some(started_upset(&e)))
                }
                Err(e) => return Err(refused(e)),
            };
        Ok(Loading {
            shown: shown.to_string(),
            asked,
            load,
            reserved: Vec::new(),
            next_run: FIRST_RUN,
            upset,
        })
    }
}

impl Loading {
    /// Ask now a question expected once the world has loaded: its process answers as soon as it
    /// has loaded, and the command finds the answer there instead of asking once the load is read.
    pub(crate) fn ask_ahead(&mut self, ahead: AheadQuestion) {
        let (question, opens) = ahead.asked(self.next_run);
        if opens.is_some() {
            self.next_run += 1;
        }
        if self.asked.send_ahead("ask", question) {
            self.reserved.extend(opens);
        }
    }

    /// The world once its process has loaded the lesson's data (waited for here), or why not.
    pub(crate) fn finish(self) -> Result<PythonWorld, Refused> {
        let Loading { shown, asked, load, reserved, next_run, upset: at_start } = self;
        let (bridge, loading) = asked.answer();
        let mut world = PythonWorld::started(&shown, bridge);
        if let Some(why) = at_start {
            world.upset_as_it_started(why);
        }
        world.load = load;
        world.next_run = AtomicU64::new(next_run);
        world.reserved = Mutex::new(reserved);
        let answer = match world.bridge.lock() {
            Ok(mut slot) => {
                let mut loading = loading;
                let mut killed = slot.0.killed_by_signal();
                // Stopped or killed from outside as it loaded (by the file graded meanwhile):
                // that file's doing, and the world loads once more in a fresh process.
                if upset(&loading.outcome, killed) {
                    world.resets.fetch_add(1, Ordering::SeqCst);
                    world.remember_upset("load_world", &loading.outcome);
                    loading = slot.0.call("load_world", &world.load);
                    killed = slot.0.killed_by_signal();
                }
                world
                    .judged(&mut slot.0, "load_world", "load_world", loading, killed)
                    .map(|(answer, _)| answer)
            }
            Err(_) => Err(NotAnAnswer::Broken("the world's process was lost".into())),
        };
        let loaded = match answer {
            Ok(CallAnswer::Value(v)) => v,
            Ok(CallAnswer::Failed(_)) => {
                return Err(Refused::Broken(world.garbled("loading", "a Failure")))
            }
            Err(NotAnAnswer::Problems(found)) => return Err(Refused::Problems(found)),
            Err(NotAnAnswer::Broken(why)) => return Err(Refused::Broken(why)),
            Err(NotAnAnswer::Lost) => {
                return Err(Refused::Broken("its process ended while it loaded".into()))
            }
        };
        let broken = |why| Refused::Broken(format!("while loading, {why}"));
        let loaded = frames::loaded(loaded).map_err(broken)?;
        world.behaviours = loaded.behaviours;
        world.fields = loaded.fields;
        world.retry_helps = loaded.retry_helps;
        world.internal = loaded.internal;
        world.messages = loaded.messages;
        world.counts = loaded.counts.into_iter().collect();
        Ok(world)
    }
}

/// Whether a world's process failed to start because something outside stopped or killed it.
fn from_outside(e: &LoadError) -> bool {
    e.kind == LoadKind::HeldStopped || (e.kind == LoadKind::Died && e.signal.is_some())
}

/// What upset a world's first process as it started, in words (see `from_outside`).
fn started_upset(e: &LoadError) -> String {
    match e.signal {
        Some(_) if e.kind == LoadKind::Died => {
            "while the world started, its process was killed by a signal from outside".into()
        }
        _ => "while the world started, it was stopped by a signal (SIGSTOP) from outside, so it \
              could not load"
            .into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_stopped_or_killed_from_outside_is_an_upset_and_anything_else_is_the_worlds() {
        let stopped = LoadError::new(LoadKind::HeldStopped, "held".into());
        let killed = LoadError { signal: Some(9), ..LoadError::new(LoadKind::Died, "k".into()) };
        assert!(from_outside(&stopped) && from_outside(&killed));
        assert!(started_upset(&stopped).contains("SIGSTOP"));
        assert!(started_upset(&killed).contains("killed by a signal from outside"));
        for own in [LoadKind::Died, LoadKind::Timeout, LoadKind::Exception, LoadKind::Garbled] {
            assert!(!from_outside(&LoadError::new(own, "its own".into())), "{own:?}");
        }
    }
}
