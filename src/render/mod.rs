//! Everything that turns results into text. Knows nothing about Python.

pub mod cards;
pub mod check;
pub mod exercism;
pub mod html;
pub mod markdown;
pub mod quiz;
pub mod solution;
pub mod steps;
pub mod styled;
pub mod styles;

/// Wrapping that never splits a word at its hyphen: lesson ids and commands stay whole.
pub(crate) fn plain_words(width: usize) -> textwrap::Options<'static> {
    textwrap::Options::new(width.max(20)).word_splitter(textwrap::WordSplitter::NoHyphenation)
}

/// `1 problem`, `2 problems`: a count with its noun.
pub fn count(n: usize, word: &str) -> String {
    crate::replay::story::plural(n, word, &format!("{word}s"))
}
