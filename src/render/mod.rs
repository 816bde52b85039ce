//! Everything that turns results into text. Knows nothing about Python.

pub(crate) mod cards;
pub(crate) mod check;
pub(crate) mod exercism;
pub(crate) mod html;
pub(crate) mod markdown;
pub(crate) mod quiz;
pub(crate) mod solution;
pub(crate) mod steps;
pub(crate) mod styled;
pub(crate) mod styles;

/// Wrapping that never splits a word at its hyphen: lesson ids and commands stay whole.
pub(crate) fn plain_words(width: usize) -> textwrap::Options<'static> {
    textwrap::Options::new(width.max(20)).word_splitter(textwrap::WordSplitter::NoHyphenation)
}

/// `1 problem`, `2 problems`: a count with its noun.
pub(crate) fn count(n: usize, word: &str) -> String {
    crate::replay::story::plural(n, word, &format!("{word}s"))
}
