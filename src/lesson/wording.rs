//! A lesson's wordings (`[[wording]]`): checked, and handed to every `names ... as`
//! expectation of its checks and kinds, so a check and a replay's kind read a role alike.

use std::sync::Arc;

use super::expect::Wording;
use super::problems::{Near, Problems};
use super::Lesson;

impl Lesson {
    /// Check the wordings, and give each expectation that asks a role the wording declaring it;
    /// a role no wording declares is a problem of the check or kind that asks it.
    pub(super) fn word_expectations(&mut self, problems: &mut Problems) {
        let mut roles: Vec<(&str, &str)> = Vec::new();
        for (i, wording) in self.wording.iter().enumerate() {
            let at = Near::entry("wording", i).then("id");
            wording.problems().into_iter().for_each(|why| problems.say(at.clone(), why));
            for role in &wording.roles {
                match roles.iter().find(|(r, w)| *r == role.id && *w != wording.id) {
                    Some((_, other)) => {
                        let why = format!("the role '{}' is wording {other}'s too", role.id);
                        let why = format!("wording {}: {why}: give it another id", wording.id);
                        problems.say(at.clone(), why);
                    }
                    None => roles.push((&role.id, &wording.id)),
                }
            }
        }
        let declared: Vec<String> = roles.iter().map(|(r, _)| r.to_string()).collect();
        let known = if declared.is_empty() { "none".to_string() } else { declared.join(", ") };
        let unknown = |asker: &str, role: String| {
            format!("{asker}: no [[wording]] declares the role '{role}' (declared: {known})")
        };
        let wordings: Vec<Arc<Wording>> = self.wording.iter().cloned().map(Arc::new).collect();
        let mut missing = Vec::new();
        for (i, check) in self.checks.iter_mut().enumerate() {
            let cases = check.cases.iter_mut().map(|c| &mut c.expect);
            let guidance = check.guidance.iter_mut().map(|g| &mut g.when);
            let lists = cases.chain(std::iter::once(&mut check.expect)).chain(guidance);
            for role in lists.flat_map(|list| list.word(&wordings)) {
                missing.push((Near::entry("checks", i).then("id"), unknown(&check.id, role)));
            }
        }
        for (i, words) in self.own_words.iter_mut().enumerate() {
            let kinds = words.kinds.iter_mut().map(|k| &mut k.when);
            let lists = std::iter::once(&mut words.blocks).chain(kinds);
            for role in lists.flat_map(|list| list.word(&wordings)) {
                missing.push((Near::entry("own_words", i).then("id"), unknown(&words.id, role)));
            }
        }
        for (at, why) in missing {
            problems.say(at, why);
        }
    }
}
