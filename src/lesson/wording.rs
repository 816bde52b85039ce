//! A lesson's wordings (`[[wording]]`): checked, and handed to every `names ... as`
//! expectation of its checks and kinds, so a check and a replay's kind read a role alike.

use std::sync::Arc;

use super::expect::Wording;
use super::problems::Problems;
use super::Lesson;

impl Lesson {
    /// Check the wordings, and give each expectation that asks a role the wording declaring it;
    /// a role no wording declares is a problem of the check or kind that asks it.
    pub(super) fn word_expectations(&mut self, problems: &mut Problems) {
        let mut roles: Vec<(&str, &str)> = Vec::new();
        for wording in &self.wording {
            let at = format!("id = \"{}\"", wording.id);
            wording.problems().into_iter().for_each(|why| problems.say(&at, why));
            for role in &wording.roles {
                match roles.iter().find(|(r, w)| *r == role.id && *w != wording.id) {
                    Some((_, other)) => {
                        let why = format!("the role '{}' is wording {other}'s too", role.id);
                        let why = format!("wording {}: {why}: give it another id", wording.id);
                        problems.say(&at, why);
                    }
                    None => roles.push((&role.id, &wording.id)),
                }
            }
        }
        let declared: Vec<String> = roles.iter().map(|(r, _)| r.to_string()).collect();
        let unknown = |asker: String, role: String| {
            let known = if declared.is_empty() { "none".to_string() } else { declared.join(", ") };
            (asker, format!("no [[wording]] declares the role '{role}' (declared: {known})"))
        };
        let wordings: Vec<Arc<Wording>> = self.wording.iter().cloned().map(Arc::new).collect();
        let mut missing = Vec::new();
        for check in &mut self.checks {
            let cases = check.cases.iter_mut().map(|c| &mut c.expect);
            let guidance = check.guidance.iter_mut().map(|g| &mut g.when);
            let lists = cases.chain(std::iter::once(&mut check.expect)).chain(guidance);
            for role in lists.flat_map(|list| list.word(&wordings)) {
                missing.push(unknown(check.id.clone(), role));
            }
        }
        for words in &mut self.own_words {
            let kinds = words.kinds.iter_mut().map(|k| &mut k.when);
            let lists = std::iter::once(&mut words.blocks).chain(kinds);
            for role in lists.flat_map(|list| list.word(&wordings)) {
                missing.push(unknown(words.id.clone(), role));
            }
        }
        for (asker, why) in missing {
            problems.say(format!("id = \"{asker}\""), format!("{asker}: {why}"));
        }
    }
}
