//! A line `check --watch` shows under the report, and how long it stays: decided by what the
//! note is about, never by how its words read.

/// One note under the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Note {
    /// How to watch at all on this file system (`--poll`): it stays until the session ends.
    Watching(String),
    /// The lesson `n` moved on to: it stays through grades, until a hint takes the space.
    Moved(String),
    /// Anything else: said once, gone at the next grade or hint.
    Once(String),
}

impl Note {
    pub(crate) fn text(&self) -> &str {
        match self {
            Note::Watching(text) | Note::Moved(text) | Note::Once(text) => text,
        }
    }

    /// Whether it is still shown under a new report.
    pub(crate) fn stays_for_a_grade(&self) -> bool {
        matches!(self, Note::Watching(_) | Note::Moved(_))
    }

    /// Whether it is still shown beside a hint.
    pub(crate) fn stays_for_a_hint(&self) -> bool {
        matches!(self, Note::Watching(_))
    }
}

#[cfg(test)]
mod tests {
    use super::Note;

    #[test]
    fn what_stays_follows_the_kind_not_the_words() {
        let notes = [
            Note::Watching("Lesson 5 starts with words that once decided".into()),
            Note::Moved("no poll here".into()),
            Note::Once("Lesson 6: quit and run again with --poll".into()),
        ];
        let graded: Vec<&Note> = notes.iter().filter(|n| n.stays_for_a_grade()).collect();
        assert_eq!(graded, [&notes[0], &notes[1]]);
        let hinted: Vec<&Note> = notes.iter().filter(|n| n.stays_for_a_hint()).collect();
        assert_eq!(hinted, [&notes[0]]);
    }
}
