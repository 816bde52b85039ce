//! When the world is upset: killed, stopped, flooded or written into from outside, or made to
//! answer past the limit, and whose doing that was; a fresh process loaded in its place.

use std::sync::atomic::Ordering;

use super::super::frames::{self, HostSaid};
use super::{NotAnAnswer, PythonWorld, DEADLINE};
use crate::bridge::{Bridge, Outcome};

impl PythonWorld {
    /// A call the asking file's run upset (see `upset`): remembered as that thread's, and the
    /// world made whole again for every later run (a fresh process when this one was ended).
    pub(super) fn upset(&self, bridge: &mut Bridge, named: &str, outcome: &Outcome) -> NotAnAnswer {
        // An answer over the limit leaves the process as it was; anything else ended it.
        if !matches!(outcome, Outcome::TooBig { .. }) {
            if !self.reload(bridge) {
                return NotAnAnswer::Broken(format!(
                    "{}, and it would not load again",
                    self.upset_words(named, outcome)
                ));
            }
            self.resets.fetch_add(1, Ordering::SeqCst);
        }
        self.remember_upset(named, outcome);
        NotAnAnswer::Lost
    }

    /// Remember what upset the world: for the thread that asked when its question did it (an
    /// answer over the limit, see `upset_from_this_thread`), else as done from outside (see
    /// `upset_from_outside`): a stopped or killed world is found by whichever file asks next,
    /// which with files graded side by side need not be the one that stopped it.
    pub(super) fn remember_upset(&self, named: &str, outcome: &Outcome) {
        let why = self.upset_words(named, outcome);
        if matches!(outcome, Outcome::TooBig { .. }) {
            if let Ok(mut upsets) = self.upsets.lock() {
                upsets.push((std::thread::current().id(), why));
            }
        } else {
            self.note_outside(self.resets(), why);
        }
    }

    /// A world whose first process was upset from outside as it started (see
    /// `Loading::finish`): one reset, done from outside, as if it had happened once it had loaded.
    pub(super) fn upset_as_it_started(&self, why: String) {
        let resets = self.resets.fetch_add(1, Ordering::SeqCst) + 1;
        self.note_outside(resets, why);
    }

    /// The world was upset from outside, in these words, as of `resets` resets.
    fn note_outside(&self, resets: u64, why: String) {
        if let Ok(mut outside) = self.outside.lock() {
            *outside = Some((resets, why));
        }
    }

    /// What last upset the world from outside, in words, when that came after `resets` resets
    /// (see `remember_upset`).
    pub(crate) fn upset_from_outside_since(&self, resets: u64) -> Option<String> {
        let outside = self.outside.lock().ok()?;
        outside.as_ref().filter(|(at, _)| *at > resets).map(|(_, why)| why.clone())
    }

    /// What upset the world, in words.
    fn upset_words(&self, named: &str, outcome: &Outcome) -> String {
        let doing = doing(named);
        match outcome {
            Outcome::TooBig { bytes } => format!(
                "while {doing}, the world's answer came to {bytes} bytes, more than the {} one \
                 answer may carry (it quotes what it was given, and that was as large)",
                crate::bridge::size_text(crate::bridge::ANSWER_LIMIT as u64)
            ),
            Outcome::TimedOut { .. } => format!(
                "while {doing}, the world was stopped by a signal (SIGSTOP) from outside, so it \
                 could not answer"
            ),
            Outcome::Garbled { .. } => {
                format!("while {doing}, lines the world did not write came on its answer channel")
            }
            _ => format!("while {doing}, the world's process was killed by a signal from outside"),
        }
    }

    /// How often the world was made whole again with a fresh process (any thread's doing).
    pub(crate) fn resets(&self) -> u64 {
        self.resets.load(Ordering::SeqCst)
    }

    /// What a run asked from this thread did to the world since the last look, if anything
    /// (the first thing), forgotten now.
    pub(crate) fn upset_from_this_thread(&self) -> Option<String> {
        let here = std::thread::current().id();
        let mut upsets = self.upsets.lock().ok()?;
        let first = upsets.iter().position(|(thread, _)| *thread == here)?;
        let why = upsets.remove(first).1;
        upsets.retain(|(thread, _)| *thread != here);
        Some(why)
    }

    /// Load a fresh process with the lesson's data again, trying for up to a deadline while it
    /// keeps ending under the load (killed as it starts); false when it would not load.
    pub(super) fn reload(&self, bridge: &mut Bridge) -> bool {
        let until = std::time::Instant::now() + DEADLINE;
        // Once the workshop is quitting no process can start: retrying would spin until the deadline.
        while std::time::Instant::now() < until && !crate::bridge::quitting() {
            match bridge.call("load_world", &self.load).outcome {
                Outcome::Returned(value) => {
                    let read = frames::read(value);
                    return read.is_ok_and(|answer| matches!(answer.said, HostSaid::Value(_)));
                }
                Outcome::Exited { .. } | Outcome::Unavailable { .. } => {}
                _ => return false,
            }
        }
        false
    }
}

/// Whether a call's end came from outside the world's own code: its process killed by a signal,
/// held stopped past the deadline, an answer channel carrying lines the host never wrote, or an
/// answer over the limit (a name it quotes, as large as a file made it). A file graded beside
/// the world, or its input, did it; an error raised in the world's code, or a loop in it, is the
/// author's.
pub(super) fn upset(outcome: &Outcome, killed: bool) -> bool {
    match outcome {
        Outcome::Exited { .. } | Outcome::Unavailable { .. } => killed,
        Outcome::TimedOut { stopped, .. } => *stopped,
        Outcome::TooBig { .. } | Outcome::Garbled { .. } => true,
        Outcome::Returned(_) | Outcome::Raised { .. } | Outcome::NotJson { .. } => false,
    }
}

/// What the world was doing when asked `named` (a function of the host), for messages.
pub(super) fn doing(named: &str) -> String {
    match named {
        "call" => "running a tool call".into(),
        "found" => "deciding whether a read found something".into(),
        "effects" => "reporting what a run did".into(),
        "report" => "building a subagent's report".into(),
        "card" => "saying a result in words on its card".into(),
        "draw" => "drawing the sample fields".into(),
        "load_world" => "loading".into(),
        other => format!("running {other}"),
    }
}
