//! The placeholder world of a lesson that has none loaded: no tools, no messages, nothing to say.

use serde_json::Value;

use crate::world::Setting;

/// The world of a lesson that has none loaded: no messages, nothing helps, nothing to say.
#[derive(Debug)]
pub(super) struct Nowhere;

pub(super) static NOWHERE: Nowhere = Nowhere;

impl Setting for Nowhere {
    fn start(&self, _ticket: &str) -> Box<dyn crate::world::World + '_> {
        Box::new(Nowhere)
    }
    fn message(&self, _key: &str) -> Option<&str> {
        None
    }
    fn retry_helps(&self, _category: &str) -> bool {
        false
    }
    fn draw_fields(&self, _draw: &mut dyn FnMut(u64) -> u64) -> Vec<(String, String)> {
        Vec::new()
    }
    fn summary(&self, _output: &Value) -> Option<String> {
        None
    }
}

impl crate::world::World for Nowhere {
    fn call(
        &mut self,
        tool: &str,
        _input: &Value,
        fail: &mut crate::world::Fail<'_>,
    ) -> Result<Value, crate::world::Halt> {
        fail(&crate::world::Failure {
            category: "validation".into(),
            message: format!("There is no tool named {tool}: this lesson has no world."),
            verify: None,
            fields: Default::default(),
        })
    }
    fn found(&self, _read: &Value) -> bool {
        false
    }
    fn effects(&self) -> crate::world::Effects {
        crate::world::Effects::default()
    }
    fn report(
        &self,
        _seen: &crate::world::Seen,
        _attempts: usize,
        _input: &Value,
    ) -> Option<Value> {
        None
    }
}
