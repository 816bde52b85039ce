//! Whether a text carries a piece of another word for word: the rule behind `quotes`, the
//! expectation a check uses to promise that a failure's raw text stays out of what the model
//! reads. Masking the telling words (a host, a password) is not enough: any run of the raw text
//! long enough to be its own, and not a word of the language, counts.

use std::collections::HashMap;

/// The fewest characters a piece holds, once trimmed of spaces and punctuation at its ends.
pub(crate) const SHORTEST_PIECE: usize = 12;

/// The longest piece of `raw` that `text` carries word for word, if one counts (`counts`). Each
/// of `facts` (what the learner is meant to name, such as a value or a time) is cut out of both
/// texts first, so naming it is never a piece of the raw text.
pub(crate) fn quoted_piece(text: &str, raw: &str, facts: &[&str]) -> Option<String> {
    let raw = cells(raw, facts);
    let text = cells(text, facts);
    if raw.len() < SHORTEST_PIECE || text.len() < SHORTEST_PIECE {
        return None;
    }
    let mut starts: HashMap<&[Option<char>], Vec<usize>> = HashMap::new();
    for (i, window) in raw.windows(SHORTEST_PIECE).enumerate() {
        if window.iter().all(Option::is_some) {
            starts.entry(window).or_default().push(i);
        }
    }
    let mut best: Option<String> = None;
    for (j, window) in text.windows(SHORTEST_PIECE).enumerate() {
        for &i in starts.get(window).map(Vec::as_slice).unwrap_or_default() {
            // Only runs that start where the common text starts: each is then seen once.
            if i > 0 && j > 0 && raw[i - 1].is_some() && raw[i - 1] == text[j - 1] {
                continue;
            }
            let mut end = SHORTEST_PIECE;
            // Equal characters, neither a cut-out fact.
            let same = |k: usize| {
                let c = raw.get(i + k);
                c.is_some_and(Option::is_some) && text.get(j + k) == c
            };
            while same(end) {
                end += 1;
            }
            let run: String = text[j..j + end].iter().flatten().collect();
            let piece = run.trim_matches(|c: char| c.is_whitespace() || c.is_ascii_punctuation());
            let longer = |b: &String| piece.chars().count() > b.chars().count();
            if counts(piece) && best.as_ref().is_none_or(longer) {
                best = Some(piece.to_string());
            }
        }
    }
    best
}

/// Whether a run shared with the raw text, trimmed of spaces and punctuation at its ends, is a
/// piece of it: `SHORTEST_PIECE` characters or more, and more than one or two words of prose
/// (which any sentence may share by chance: "the connection", "maintenance window"). It has a
/// digit or a sign inside (a path, a host, a line of code), three words or more, or a name
/// written as code (`OperationalError`).
fn counts(piece: &str) -> bool {
    let signs = piece.chars().any(|c| !c.is_alphabetic() && !c.is_whitespace());
    let code = piece.split_whitespace().any(|w| w.chars().skip(1).any(char::is_uppercase));
    let words = piece.split_whitespace().count();
    piece.chars().count() >= SHORTEST_PIECE && (signs || code || words >= 3)
}

/// The text's characters, with every occurrence of a fact replaced by a gap no run crosses.
fn cells(text: &str, facts: &[&str]) -> Vec<Option<char>> {
    let mut facts: Vec<&str> = facts.iter().copied().filter(|f| !f.is_empty()).collect();
    // The longest first, so a fact inside another is not cut out of it half way.
    facts.sort_by_key(|f| std::cmp::Reverse(f.len()));
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        match facts.iter().find(|f| rest.starts_with(**f)) {
            Some(fact) => {
                out.push(None);
                rest = &rest[fact.len()..];
            }
            None => {
                out.push(Some(c));
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::quoted_piece;

    const CRASH: &str = "Traceback (most recent call last):\n  \
        File \"/srv/app/store.py\", line 112, in fetch\n\
        psycopg.OperationalError: connection to \"db.internal\" lost: \
        server closed the connection unexpectedly";

    #[test]
    fn a_masked_crash_still_quotes_its_longest_piece() {
        let masked = "[trace] in fetch -- [host] lost: server closed the connection";
        let piece = quoted_piece(masked, CRASH, &[]);
        assert_eq!(piece.as_deref(), Some("lost: server closed the connection"));
    }

    #[test]
    fn words_of_ones_own_and_single_plain_words_are_no_piece() {
        let own = "The order service failed on its side; the call was fine. Try again later.";
        assert_eq!(quoted_piece(own, CRASH, &[]), None);
        assert_eq!(quoted_piece("It stopped unexpectedly.", CRASH, &[]), None);
        assert_eq!(quoted_piece("It lost the connection to its store.", CRASH, &[]), None);
        let three = quoted_piece("so it closed the connection", CRASH, &[]);
        assert_eq!(three.as_deref(), Some("closed the connection"));
        let code = quoted_piece("see OperationalError", CRASH, &[]);
        assert_eq!(code.as_deref(), Some("OperationalError"));
        assert_eq!(quoted_piece("Traceback (most", CRASH, &[]).as_deref(), Some("Traceback (most"));
    }

    #[test]
    fn a_fact_the_learner_names_is_cut_out_of_both_texts() {
        let raw = "ValidationError(deployment='ledger-api-v2') code=E-VAL";
        let told = "No deployment 'ledger-api-v2' exists.";
        assert_eq!(quoted_piece(told, raw, &[]).as_deref(), Some("ledger-api-v2"));
        assert_eq!(quoted_piece(told, raw, &["ledger-api-v2"]), None);
    }

    #[test]
    fn short_texts_and_unicode_are_read_by_characters() {
        assert_eq!(quoted_piece("", CRASH, &[]), None);
        assert_eq!(
            quoted_piece("Ünïcödé-Wörds-12", "raw: Ünïcödé-Wörds-12!", &[]).as_deref(),
            Some("Ünïcödé-Wörds-12")
        );
    }
}
