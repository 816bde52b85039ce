//! A lesson as the learner names it: its id, or its number as `list` shows it. A name that is
//! neither gets the nearest id as a suggestion and the lessons in course order.

use std::path::Path;

use serde::Deserialize;

use super::paths::{known_ids, validate_id};
use crate::error::{Error, LessonError, Numbered};

/// The part of a manifest that names a lesson's place; the rest is read when it is loaded.
#[derive(Deserialize)]
struct Place {
    number: u32,
}

/// The id of the lesson `word` names: an id as it is, or a lesson's number.
pub(crate) fn resolve(root: &Path, word: &str) -> Result<String, Error> {
    let known = known_ids(root);
    if known.iter().any(|id| id == word) {
        return Ok(word.to_string());
    }
    if let Ok(number) = word.parse::<u32>() {
        if let Some(id) = known.iter().find(|id| number_of(root, id) == Some(number)) {
            return Ok(id.clone());
        }
        return Err(LessonError::NoNumber { number, lessons: listed(root) }.into());
    }
    validate_id(word)?;
    Err(unknown(root, word))
}

/// The error for a name no lesson has: the nearest id, if one is near, and every lesson.
pub(crate) fn unknown(root: &Path, word: &str) -> Error {
    let known = known_ids(root);
    let guess = nearest(word, &known).map(str::to_string);
    LessonError::Unknown { word: word.to_string(), guess, lessons: listed(root) }.into()
}

/// The lessons in course order with their numbers, for an error that asks for one.
fn listed(root: &Path) -> Vec<Numbered> {
    let mut lessons: Vec<Numbered> = known_ids(root)
        .into_iter()
        .map(|id| Numbered { number: number_of(root, &id), id })
        .collect();
    // A manifest that cannot be read has no number: it is listed last, by id.
    lessons.sort_by_key(|l| (l.number.is_none(), l.number, l.id.clone()));
    lessons
}

/// A lesson's number from its manifest, without loading the rest; `None` when it cannot be read.
fn number_of(root: &Path, id: &str) -> Option<u32> {
    let path = root.join("lessons").join(id).join("lesson.toml");
    let text = crate::files::read_data_text(&path, crate::files::DATA_CAP).ok()?;
    toml::from_str::<Place>(&text).ok().map(|place| place.number)
}

/// The id nearest to a mistyped name: one that starts with it, or within a few edits of it.
fn nearest<'k>(word: &str, known: &'k [String]) -> Option<&'k str> {
    let word = word.to_ascii_lowercase();
    if word.len() >= 3 {
        if let Some(id) = known.iter().find(|id| id.starts_with(&word)) {
            return Some(id);
        }
    }
    // A third of the longer name may differ: enough for a typo, too little for another word.
    known
        .iter()
        .map(|id| (edits(&word, id), id))
        .filter(|(n, id)| *n * 3 <= word.len().max(id.len()))
        .min_by_key(|(n, _)| *n)
        .map(|(_, id)| id.as_str())
}

/// Levenshtein distance: the fewest insertions, deletions and substitutions from `a` to `b`.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::{edits, nearest};

    #[test]
    fn a_typo_finds_its_lesson_and_another_word_finds_none() {
        let known: Vec<String> =
            ["parcel-desk", "weather-report", "night-shift"].map(String::from).into();
        assert_eq!(nearest("parcel-dsk", &known), Some("parcel-desk"));
        assert_eq!(nearest("Night-Shitf", &known), Some("night-shift"));
        assert_eq!(nearest("weather", &known), Some("weather-report"));
        assert_eq!(nearest("quantum", &known), None);
        assert_eq!(edits("kitten", "sitting"), 3);
    }
}
