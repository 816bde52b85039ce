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
        self.define_in_checks(&declared, problems);
        self.define_in_kinds(&declared, problems);
    }

    /// Each check's expectations get the properties they ask.
    fn define_in_checks(&mut self, declared: &Declared, problems: &mut Problems) {
        for (i, check) in self.checks.iter_mut().enumerate() {
            let at = Near::entry("checks", i).then("id");
            let cases = check.cases.iter_mut().map(|c| &mut c.expect);
            let guidance = check.guidance.iter_mut().map(|g| &mut g.when);
            for list in cases.chain(std::iter::once(&mut check.expect)).chain(guidance) {
                if list.iter().any(Expect::reads_facts) {
                    problems.say(at.clone(), facts_outside(&check.id));
                }
                for id in list.define(declared) {
                    problems.say(at.clone(), unknown(declared, &check.id, &id));
                }
            }
        }
    }

    /// Each replay kind gets the properties it lists, each readable with its declaration's
    /// facts.
    fn define_in_kinds(&mut self, declared: &Declared, problems: &mut Problems) {
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
                        let asker = format!("{asker}, kind {}", kind.id);
                        problems.say(at.clone(), unknown(declared, &asker, id));
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

/// A lesson's properties, by id, as its checks and kinds are given them.
type Declared = BTreeMap<String, Arc<Property>>;

/// The problem of an asker that names a property the lesson does not declare.
fn unknown(declared: &Declared, asker: &str, id: &str) -> String {
    let known = match declared.is_empty() {
        true => "none".to_string(),
        false => declared.keys().cloned().collect::<Vec<_>>().join(", "),
    };
    format!("{asker}: no [properties] declares '{id}' (declared: {known})")
}

/// The problem of an asker whose expectations read a fact outside a property.
fn facts_outside(asker: &str) -> String {
    let why = "reads @facts outside a property: only a property's expectations have facts";
    format!("{asker}: {why}")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;
    use std::sync::Arc;

    use serde::Deserialize;
    use serde_json::{Map, Value};

    use crate::lesson::expect::{Property, Wording};

    /// The parts of a manifest its properties need.
    #[derive(Deserialize)]
    struct ManifestPart {
        #[serde(default)]
        properties: BTreeMap<String, Property>,
        #[serde(default)]
        wording: Vec<Wording>,
        #[serde(default)]
        own_words: Vec<Facts>,
    }

    #[derive(Deserialize)]
    struct Facts {
        #[serde(default)]
        facts: Value,
    }

    /// The rows of each lesson's table under "## Properties" in lessons/README.md: (property,
    /// a message that has it, one that lacks it).
    fn tables(readme: &str) -> BTreeMap<String, Vec<[String; 3]>> {
        let section = readme.split("\n## Properties").nth(1).unwrap_or_default();
        let section = section.split("\n## ").next().unwrap_or_default();
        let mut out: BTreeMap<String, Vec<[String; 3]>> = BTreeMap::new();
        let mut lesson = String::new();
        for line in section.lines() {
            if let Some(id) = line.strip_prefix("### ") {
                lesson = id.trim_matches('`').to_string();
            } else if line.starts_with("| `") {
                let inner = line.trim().trim_matches('|');
                let cell = |c: &str| c.trim().trim_matches('`').to_string();
                let cells: Vec<String> = inner.split(" | ").map(cell).collect();
                let row = [cells[0].clone(), cells[1].clone(), cells[2].clone()];
                out.entry(lesson.clone()).or_default().push(row);
            }
        }
        out
    }

    #[test]
    fn every_property_of_every_lesson_is_in_the_authors_tables_and_each_row_holds() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let readme = std::fs::read_to_string(root.join("lessons/README.md")).unwrap();
        let tables = tables(&readme);
        let mut lessons: Vec<String> = Vec::new();
        for entry in std::fs::read_dir(root.join("lessons")).unwrap() {
            let manifest = entry.unwrap().path().join("lesson.toml");
            let Ok(text) = std::fs::read_to_string(&manifest) else { continue };
            let mut declared: ManifestPart = toml::from_str(&text).unwrap();
            if declared.properties.is_empty() {
                continue;
            }
            let lesson = manifest.parent().unwrap().file_name().unwrap().to_string_lossy();
            lessons.push(lesson.to_string());
            let mut facts = Map::new();
            for words in &declared.own_words {
                facts.extend(words.facts.as_object().cloned().unwrap_or_default());
            }
            let facts = Value::Object(facts);
            let wordings: Vec<Arc<Wording>> = declared.wording.drain(..).map(Arc::new).collect();
            for (id, p) in declared.properties.iter_mut() {
                p.id = id.clone();
                assert!(p.when.word(&wordings).is_empty(), "{lesson}: {id}");
                assert!(p.problems().is_empty(), "{lesson}: {id}: {:?}", p.problems());
            }
            let rows = tables.get(lesson.as_ref()).cloned().unwrap_or_default();
            let mut listed: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
            listed.sort();
            let ids: Vec<&str> = declared.properties.keys().map(String::as_str).collect();
            assert_eq!(listed, ids, "{lesson}: the README's table lists every property, once");
            for [id, has, lacks] in &rows {
                let p = &declared.properties[id];
                assert_eq!(p.test(&Value::from(has.as_str()), &facts), Ok(()), "{lesson}: {id}");
                let lacked = p.test(&Value::from(lacks.as_str()), &facts);
                assert!(lacked.is_err(), "{lesson}: {id} holds of {lacks}");
            }
        }
        lessons.sort();
        let mut tabled: Vec<String> = tables.keys().cloned().collect();
        tabled.sort();
        assert_eq!(lessons, tabled, "a table for each lesson with properties, and no other");
    }
}
