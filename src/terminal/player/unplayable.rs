//! Why the player has no replay to show: a ticket outside the runtime, a code that cannot run
//! yet, or a replay that failed. Each says what to do next.

use std::sync::Arc;

use crate::lesson::Runtime;

#[derive(Clone, Debug, thiserror::Error)]
pub enum Unplayable {
    /// Nothing asked for yet: the player is starting.
    #[error("")]
    NotYet,
    #[error(
        "The ticket {ticket} runs only in the {runtimes} runtime, so there is no {} replay of it: press r to switch back.",
        .runtime.name()
    )]
    OtherRuntime { ticket: String, runtimes: String, runtime: Runtime },
    #[error("no such code")]
    NoSuchCode,
    #[error("no such ticket")]
    NoSuchTicket,
    /// The learner's own code before `start`.
    #[error("you have no copy yet; ./workshop start {lesson} makes one")]
    NoCopy { lesson: String },
    /// Finding the code, its recordings or running it failed.
    #[error(transparent)]
    Failed(Arc<crate::error::Error>),
}

impl From<crate::error::Error> for Unplayable {
    fn from(error: crate::error::Error) -> Unplayable {
        Unplayable::Failed(Arc::new(error))
    }
}

/// The same reason; a failure is the same one only when it is the very same error.
impl PartialEq for Unplayable {
    fn eq(&self, other: &Unplayable) -> bool {
        use Unplayable::*;
        match (self, other) {
            (NotYet, NotYet) | (NoSuchCode, NoSuchCode) | (NoSuchTicket, NoSuchTicket) => true,
            (
                OtherRuntime { ticket: a, runtimes: b, runtime: c },
                OtherRuntime { ticket: x, runtimes: y, runtime: z },
            ) => (a, b, c) == (x, y, z),
            (NoCopy { lesson: a }, NoCopy { lesson: b }) => a == b,
            (Failed(a), Failed(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}
