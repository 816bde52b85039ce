//! A lesson's properties of a message (`[properties]`): checked, worded, and handed to every
//! check that asks one (`property = "<id>"`) and every replay kind that lists one, so a check, a
//! kind and a card read a property with the same code (`expect::Property`).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::expect::{Expect, Property, Wording};
use super::problems::{Near, Problems};
use super::Lesson;

impl Lesson {
    /// Check the properties, word their roles, and give each check and kind that names one the
    /// property itself; a property the lesson does not declare is a problem of its asker.
    pub(super) fn define_properties(&mut self, problems: &mut Problems) {
        let wordings: Vec<Arc<Wording>> = self.wording.iter().cloned().map(Arc::new).collect();
        let near = |id: &str| Near::key("properties").then(id);
        for (id, property) in self.properties.iter_mut() {
            property.id = id.clone();
            property.problems().into_iter().for_each(|why| problems.say(near(id), why));
            for role in property.when.word(&wordings) {
                let why = format!("property {id}: no [[wording]] declares the role '{role}'");
                problems.say(near(id), why);
            }
        }
        let declared: BTreeMap<String, Arc<Property>> =
            self.properties.iter().map(|(id, p)| (id.clone(), Arc::new(p.clone()))).collect();
        let known = match declared.is_empty() {
            true => "none".to_string(),
            false => declared.keys().cloned().collect::<Vec<_>>().join(", "),
        };
        let unknown = |asker: &str, id: String| {
            format!("{asker}: no [properties] declares '{id}' (declared: {known})")
        };
        let facts_outside = |asker: &str| {
            let why = "reads @facts outside a property: only a property's expectations have facts";
            format!("{asker}: {why}")
        };
        for (i, check) in self.checks.iter_mut().enumerate() {
            let at = Near::entry("checks", i).then("id");
            let cases = check.cases.iter_mut().map(|c| &mut c.expect);
            let guidance = check.guidance.iter_mut().map(|g| &mut g.when);
            for list in cases.chain(std::iter::once(&mut check.expect)).chain(guidance) {
                if list.iter().any(Expect::reads_facts) {
                    problems.say(at.clone(), facts_outside(&check.id));
                }
                for id in list.define(&declared) {
                    problems.say(at.clone(), unknown(&check.id, id));
                }
            }
        }
        for (i, words) in self.own_words.iter_mut().enumerate() {
            let at = Near::entry("own_words", i).then("id");
            let asker = format!("own_words {}", words.id);
            let lists = std::iter::once(&words.blocks).chain(words.kinds.iter().map(|k| &k.when));
            for list in lists {
                if list.iter().any(Expect::reads_facts) {
                    problems.say(at.clone(), facts_outside(&asker));
                }
                if list.iter().any(Expect::asks_property) {
                    let why = "asks a property in an expectation: list it in the kind's properties";
                    problems.say(at.clone(), format!("{asker}: {why}"));
                }
            }
            if !words.facts.is_null() && !words.facts.is_object() {
                let why = "facts must be a table of the failure's facts";
                problems.say(at.clone(), format!("{asker}: {why}"));
            }
            for kind in words.kinds.iter_mut() {
                kind.defined.clear();
                for id in &kind.properties {
                    let Some(property) = declared.get(id) else {
                        problems.say(at.clone(), unknown(&format!("{asker}, kind {}", kind.id), id.clone()));
                        continue;
                    };
                    if let Some(fact) = property.missing(&words.facts) {
                        let why = format!(
                            "kind '{}' has property '{id}', which reads the fact '{fact}': \
                             give it in this declaration's facts",
                            kind.id
                        );
                        problems.say(at.clone(), format!("{asker}: {why}"));
                    }
                    kind.defined.push(property.clone());
                }
            }
        }
    }
}
