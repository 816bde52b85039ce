//! A run's world, started at its first use rather than with the run: the model's first turn
//! (its request, the recording that answers it) is worked out while the lesson's world may still
//! be loading, and the run's first tool call is asked of the world ahead of the wait for it.

use std::cell::OnceCell;

use serde_json::Value;

use crate::lesson::Lesson;
use crate::world::{Effects, Fail, Halt, Seen, World};

pub(super) struct LazyRun<'l> {
    lesson: &'l Lesson,
    ticket: &'l str,
    run: OnceCell<Box<dyn World + 'l>>,
}

impl<'l> LazyRun<'l> {
    pub(super) fn new(lesson: &'l Lesson, ticket: &'l str) -> LazyRun<'l> {
        LazyRun { lesson, ticket, run: OnceCell::new() }
    }

    fn run(&self) -> &(dyn World + 'l) {
        self.run.get_or_init(|| self.lesson.setting().start(self.ticket)).as_ref()
    }

    /// The run, started now if it was not (`None` only if it could not be kept).
    fn run_mut(&mut self) -> Option<&mut (dyn World + 'l)> {
        self.run();
        self.run.get_mut().map(|run| run.as_mut() as &mut (dyn World + 'l))
    }
}

impl World for LazyRun<'_> {
    fn call(&mut self, tool: &str, input: &Value, fail: &mut Fail<'_>) -> Result<Value, Halt> {
        if self.run.get().is_none() {
            // The first question of the command's first run, when the world is still loading.
            self.lesson.call_ahead(self.ticket, tool, input);
        }
        self.run_mut().map_or(Err(Halt), |run| run.call(tool, input, fail))
    }

    fn said(&mut self) -> Vec<String> {
        self.run_mut().map(|run| run.said()).unwrap_or_default()
    }

    fn found(&self, read: &Value) -> bool {
        self.run().found(read)
    }

    fn effects(&self) -> Effects {
        self.run().effects()
    }

    fn report(&self, seen: &Seen, attempts: usize, input: &Value) -> Option<Value> {
        self.run().report(seen, attempts, input)
    }
}
