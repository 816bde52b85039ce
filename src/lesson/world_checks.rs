//! The checks of a lesson's data that only its world can make: the behaviours its tools name,
//! its samples' messages and fields, the counts its notes and questions name.

use super::problems::{Near, Problems};
use super::Lesson;
use crate::world::python::PythonWorld;
use crate::world::Setting;

impl Lesson {
    /// The problems of the lesson's data its world finds: tools that do what it cannot, samples
    /// of messages it does not have, then (if there were none) unknown samples and counts.
    pub(super) fn check_with_world(&self, world: &PythonWorld, name: &str) -> Problems {
        let mut problems = Problems::default();
        for (i, tool) in self.tools.iter().enumerate() {
            if !world.behaviours().contains(&tool.does) {
                problems.say(
                    Near::entry("tools", i).then("does"),
                    format!(
                        "tool {} does '{}', which the world {name} cannot do: {}",
                        tool.name,
                        tool.does,
                        world.behaviours().join(", ")
                    ),
                );
            }
        }
        for (sample_name, sample) in &self.samples {
            if world.message(&sample.message).is_none() {
                problems.say(
                    Near::key("samples").then(sample_name).then("message"),
                    format!("sample {sample_name} uses an unknown message '{}'", sample.message),
                );
            }
        }
        if problems.found.is_empty() {
            self.check_sample_refs(&mut problems, world);
            self.check_outcomes(&mut problems, world);
        }
        problems
    }

    /// Every `$name` in a case is a sample, or a field the world draws for the samples (an id
    /// every sample message of the run names, say).
    fn check_sample_refs(&self, problems: &mut Problems, world: &PythonWorld) {
        let drawn = world.drawn();
        for (i, check) in self.checks.iter().enumerate() {
            for name in &check.samples {
                if !self.samples.contains_key(name) && !drawn.contains(name) {
                    let also = if drawn.is_empty() {
                        String::new()
                    } else {
                        format!(", or a drawn field: ${}", drawn.join(", $"))
                    };
                    problems.say(
                        Near::entry("checks", i).then("id"),
                        format!("check {} uses an unknown sample '${name}': name one of [samples]{also}", check.id),
                    );
                }
            }
        }
    }

    /// The counts each note and question names are counts a run has, with values they can have.
    fn check_outcomes(&self, problems: &mut Problems, world: &PythonWorld) {
        for (i, ticket) in self.tickets.iter().enumerate() {
            let entry = Near::entry("tickets", i);
            let mut known: Vec<String> =
                super::cond::COUNT_KEYS.iter().map(|k| k.to_string()).collect();
            known.extend(world.counted(&ticket.id));
            let notes = ticket
                .notes
                .list()
                .iter()
                .enumerate()
                .map(|(j, n)| ("a note", entry.clone().then("notes").at(j), &n.when));
            let choices =
                ticket.predict.iter().flat_map(|p| &p.choices).enumerate().map(|(j, c)| {
                    let near = entry.clone().then("predict").then("choices").at(j);
                    ("a choice of its question", near, &c.when)
                });
            for (what, near, when) in notes.chain(choices) {
                for (key, cond) in when {
                    let named = key.strip_prefix(super::cond::NAMED).is_some_and(|f| !f.is_empty());
                    let has = key.strip_prefix(super::cond::HAS);
                    let property = has.is_some_and(|p| self.properties.contains_key(p));
                    let why = if known.contains(key) || named || property {
                        cond.problem(key)
                    } else {
                        Some(format!(
                            "'{key}' is not something a run counts: choose from {}",
                            known.join(", ")
                        ))
                    };
                    if let Some(why) = why {
                        let near = near.clone().then("when").then(key);
                        let why = format!("ticket {}: {what} asks for {key}: {why}", ticket.id);
                        problems.say(near, why);
                    }
                }
            }
            let list = ticket.notes.list();
            let catch_all = list.iter().position(|n| n.when.is_empty());
            if let Some(j) = catch_all.filter(|j| j + 1 < list.len()) {
                problems.say(
                    entry.clone().then("notes").at(j),
                    format!(
                        "ticket {}: note {} applies to every run, so the notes after it never show: put it last",
                        ticket.id,
                        j + 1
                    ),
                );
            }
        }
    }
}
