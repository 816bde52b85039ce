//! A line `check --watch` shows under the report, and how long it stays: decided by what the
//! note is about, never by how its words read.

/// One note under the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum WatchNote {
    /// How to watch at all on this file system (`--poll`): it stays until the session ends.
    Watching(String),
    /// The lesson `n` moved on to: it stays through grades, until a hint takes the space.
    Moved(String),
    /// Anything else: said once, gone at the next grade or hint.
    Once(String),
}

impl WatchNote {
    pub(crate) fn text(&self) -> &str {
        match self {
            WatchNote::Watching(text) | WatchNote::Moved(text) | WatchNote::Once(text) => text,
        }
    }

    /// Whether it is still shown under a new report.
    pub(crate) fn stays_for_a_grade(&self) -> bool {
        matches!(self, WatchNote::Watching(_) | WatchNote::Moved(_))
    }

    /// Whether it is still shown beside a hint.
    pub(crate) fn stays_for_a_hint(&self) -> bool {
        matches!(self, WatchNote::Watching(_))
    }
}

#[cfg(test)]
mod tests {
    use super::WatchNote;

    #[test]
    fn what_stays_follows_the_kind_not_the_words() {
        let notes = [
            WatchNote::Watching("Lesson 5 starts with words that once decided".into()),
            WatchNote::Moved("no poll here".into()),
            WatchNote::Once("Lesson 6: quit and run again with --poll".into()),
        ];
        let graded: Vec<&WatchNote> = notes.iter().filter(|n| n.stays_for_a_grade()).collect();
        assert_eq!(graded, [&notes[0], &notes[1]]);
        let hinted: Vec<&WatchNote> = notes.iter().filter(|n| n.stays_for_a_hint()).collect();
        assert_eq!(hinted, [&notes[0]]);
    }
}
