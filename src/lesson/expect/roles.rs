//! In which role a text names a fact: the rule behind `names ... as`, the expectation a check
//! uses to ask that a message says the pods restarted are restarted (and not the pods left),
//! or that the value to use is offered for use. Naming is not enough: a message with its lists
//! swapped names every pod.
//!
//! The lesson declares the words of each role (`[[wording]]`); the runner knows none. A name's
//! role at a place is read from the role words that stand nearest it in its clause (see
//! `said`), so "checkout-1, checkout-2 restarted, checkout-3 not" and "Not restarted:
//! checkout-3" both read as a lesson's authors would.

use serde::Deserialize;

/// Rival roles a message can give the facts it names, each by the words that say it
/// (`[[wording]]` in a manifest).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Wording {
    pub(crate) id: String,
    /// Words that join names into one list, besides commas ("and", "or").
    #[serde(default)]
    pub(crate) joins: Vec<String>,
    /// Words that end the part of a clause a list takes its role from, as a comma does ("but").
    #[serde(default)]
    pub(crate) breaks: Vec<String>,
    /// The roles, in order: where words of two stand together ("not restarted"), the first
    /// listed names the role.
    pub(crate) roles: Vec<WordedRole>,
}

/// One role, by the words (or phrases) that give a name that role.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WordedRole {
    pub(crate) id: String,
    pub(crate) words: Vec<String>,
}

impl Wording {
    /// Every problem with the declaration, in words, for the manifest's loader.
    pub(crate) fn problems(&self) -> Vec<String> {
        let at = format!("wording {}", self.id);
        let mut out = Vec::new();
        if self.roles.len() < 2 {
            out.push(format!("{at}: give at least two roles: a role is read against its rivals"));
        }
        for (i, role) in self.roles.iter().enumerate() {
            if self.roles[..i].iter().any(|r| r.id == role.id) {
                out.push(format!("{at}: the role '{}' is declared twice", role.id));
            }
            if role.words.iter().all(|w| tokens(w).is_empty()) {
                let why = "has no words: give the words that say it";
                out.push(format!("{at}: role '{}' {why}", role.id));
            }
        }
        out
    }

    pub(crate) fn has(&self, role: &str) -> bool {
        self.roles.iter().any(|r| r.id == role)
    }
}

/// One place a text names a name: which of the names, in which role (`None`: no role's words
/// stand beside it), and the part of its clause its role was read in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Said {
    pub name: usize,
    pub role: Option<String>,
    pub clause: String,
}

/// Quotes a name may stand in.
const QUOTES: &str = "\"'`‘’“”";

/// A span of the text, in bytes.
type ByteSpan = (usize, usize);

/// A role's words found in the text: where, and the role's position in the wording.
#[derive(Debug, Clone, Copy)]
struct Phrase {
    span: ByteSpan,
    role: usize,
}

/// Every place `text` names one of `names` (whole, not inside a longer word), with its role.
///
/// The text is cut into clauses at a sentence's end, a `;` or a line break. In a clause, names
/// that follow one another with only commas, quotes and the wording's `joins` between them are
/// one list, and a list takes the role of the role words nearest it on either side, up to a
/// comma, one of the wording's `breaks` or another list; words of roles that stand together,
/// with only spaces between, are read together, the first role listed winning. With words on
/// both sides, the words before it win when only spaces, quotes or a colon stand between ("use x
/// instead of y"; "Restarted: a and b not c"), else the words after it ("a and b were
/// restarted, c was not").
pub(crate) fn said(text: &str, names: &[&str], wording: &Wording) -> Vec<Said> {
    let mut out = Vec::new();
    for (start, end) in clauses(text) {
        let clause = &text[start..end];
        let lists = lists(clause, &occurrences(clause, names), &wording.joins);
        let phrases = phrases(clause, wording, &lists);
        for (i, list) in lists.iter().enumerate() {
            let low = i.checked_sub(1).map_or(0, |p| lists[p].span.1);
            let high = lists.get(i + 1).map_or(clause.len(), |n| n.span.0);
            let low = clause[low..list.span.0].rfind(',').map_or(low, |c| low + c + 1);
            let high = clause[list.span.1..high].find(',').map_or(high, |c| list.span.1 + c);
            let breaks = |from: usize, to: usize| {
                let found = words(&clause[from..to]).into_iter();
                let breaking = |w: &String| wording.breaks.iter().any(|b| b.to_lowercase() == *w);
                found.filter(move |(_, w)| breaking(w)).map(|(s, _)| s)
            };
            let low = breaks(low, list.span.0).next_back().map_or(low, |(_, end)| low + end);
            let first = breaks(list.span.1, high).next();
            let high = first.map_or(high, |(start, _)| list.span.1 + start);
            let label = label(clause, &phrases, list.span, (low, high));
            let role = label.map(|(_, role)| wording.roles[role].id.clone());
            for &name in &list.names {
                let part = clause[low..high].trim().to_string();
                out.push(Said { name, role: role.clone(), clause: part });
            }
        }
    }
    out
}

/// The clauses of a text: cut at `.`, `!` or `?` before a space or the end, at `;` and at line
/// breaks.
fn clauses(text: &str) -> Vec<ByteSpan> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let end = match c {
            ';' | '\n' => true,
            '.' | '!' | '?' => next.is_none_or(char::is_whitespace),
            _ => false,
        };
        if end {
            out.push((start, i));
            start = i + c.len_utf8();
        }
    }
    out.push((start, text.len()));
    out
}

/// A character a name or a word may not touch: it would make them part of a longer one.
fn inside_word(c: char) -> bool {
    c.is_alphanumeric() || c == '-' || c == '_'
}

/// Where each name stands whole in the clause, in order: (span, which name).
fn occurrences(clause: &str, names: &[&str]) -> Vec<(ByteSpan, usize)> {
    let mut found: Vec<(ByteSpan, usize)> = Vec::new();
    for (n, name) in names.iter().enumerate().filter(|(_, name)| !name.is_empty()) {
        for (at, _) in clause.match_indices(name) {
            let end = at + name.len();
            let before = clause[..at].chars().next_back().is_some_and(inside_word);
            let after = clause[end..].chars().next().is_some_and(inside_word);
            let taken = found.iter().any(|((s, e), _)| at < *e && *s < end);
            if !before && !after && !taken {
                found.push(((at, end), n));
            }
        }
    }
    found.sort_by_key(|(span, _)| span.0);
    found
}

/// Names standing together: their span and which names they are.
struct List {
    span: ByteSpan,
    names: Vec<usize>,
}

/// The clause's names grouped into lists: those with only commas, quotes, signs that join
/// (`&`, `/`) and the wording's `joins` between them.
fn lists(clause: &str, found: &[(ByteSpan, usize)], joins: &[String]) -> Vec<List> {
    let joining = |gap: &str| {
        let signs = gap.chars().all(|c| c.is_alphanumeric() || c.is_whitespace() || joins_names(c));
        signs && words(gap).iter().all(|(_, w)| joins.iter().any(|j| j.to_lowercase() == *w))
    };
    let mut out: Vec<List> = Vec::new();
    for &(span, name) in found {
        match out.last_mut() {
            Some(list) if joining(&clause[list.span.1..span.0]) => {
                list.span.1 = span.1;
                list.names.push(name);
            }
            _ => out.push(List { span, names: vec![name] }),
        }
    }
    out
}

/// A sign that may stand between the names of one list.
fn joins_names(c: char) -> bool {
    ",&/\\".contains(c) || QUOTES.contains(c)
}

/// The words of a text, lower case, with their spans: letters and digits, and an apostrophe
/// inside a word ("don't").
fn words(text: &str) -> Vec<(ByteSpan, String)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let word_char = |c: char| c.is_alphanumeric() || c == '\'' || c == '’';
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        match (start, word_char(c)) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                let word = text[s..i].trim_matches(['\'', '’']);
                if !word.is_empty() {
                    out.push(((s, i), word.to_lowercase()));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// A phrase's words, lower case.
fn tokens(phrase: &str) -> Vec<String> {
    words(phrase).into_iter().map(|(_, w)| w).collect()
}

/// The role words of the clause, longest phrase first where two could start at one word, none
/// inside a list.
fn phrases(clause: &str, wording: &Wording, lists: &[List]) -> Vec<Phrase> {
    let mut known: Vec<(Vec<String>, usize)> = Vec::new();
    for (role, r) in wording.roles.iter().enumerate() {
        known.extend(r.words.iter().map(|w| (tokens(w), role)).filter(|(t, _)| !t.is_empty()));
    }
    known.sort_by_key(|(t, _)| std::cmp::Reverse(t.len()));
    let found = words(clause);
    let mut out = Vec::new();
    let mut i = 0;
    while i < found.len() {
        let matched = known.iter().find(|(phrase, _)| {
            let Some(run) = found.get(i..i + phrase.len()) else { return false };
            let same = run.iter().zip(phrase).all(|((_, w), p)| w == p);
            // One phrase: its words with only spaces between them.
            same && run.windows(2).all(|pair| clause[pair[0].0 .1..pair[1].0 .0].trim().is_empty())
        });
        match matched {
            Some((phrase, role)) => {
                let span = (found[i].0 .0, found[i + phrase.len() - 1].0 .1);
                if !lists.iter().any(|l| span.0 < l.span.1 && l.span.0 < span.1) {
                    out.push(Phrase { span, role: *role });
                }
                i += phrase.len();
            }
            None => i += 1,
        }
    }
    out
}

/// Whether a gap between a list and its role words joins them closely: nothing but spaces,
/// quotes, brackets, a colon or a dash.
fn close(gap: &str) -> bool {
    gap.chars().all(|c| c.is_whitespace() || QUOTES.contains(c) || "\\()[]:-–—=".contains(c))
}

/// The role words a list takes, within `bounds`: their span and the role they say.
fn label(
    clause: &str,
    phrases: &[Phrase],
    list: ByteSpan,
    bounds: ByteSpan,
) -> Option<(ByteSpan, usize)> {
    let inside = |p: &&Phrase| p.span.0 >= bounds.0 && p.span.1 <= bounds.1;
    let near = phrases.iter().filter(inside);
    let before: Vec<&Phrase> = near.clone().filter(|p| p.span.1 <= list.0).collect();
    let after: Vec<&Phrase> = near.filter(|p| p.span.0 >= list.1).collect();
    // The nearest words on each side, with the words standing next to them.
    let run = |side: &[&Phrase], nearest_last: bool| -> Option<(ByteSpan, usize)> {
        let mut run: Vec<&Phrase> = Vec::new();
        let ordered: Box<dyn Iterator<Item = &&Phrase>> =
            if nearest_last { Box::new(side.iter().rev()) } else { Box::new(side.iter()) };
        for p in ordered {
            let joined = run.last().is_none_or(|q: &&Phrase| {
                let gap = if nearest_last { (p.span.1, q.span.0) } else { (q.span.1, p.span.0) };
                clause[gap.0..gap.1].trim().is_empty()
            });
            if !joined {
                break;
            }
            run.push(p);
        }
        let span = (run.iter().map(|p| p.span.0).min()?, run.iter().map(|p| p.span.1).max()?);
        Some((span, run.iter().map(|p| p.role).min()?))
    };
    match (run(&before, true), run(&after, false)) {
        (Some(b), Some(a)) => Some(if close(&clause[b.0 .1..list.0]) { b } else { a }),
        (b, a) => b.or(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pods() -> Wording {
        toml::from_str(
            r#"
id = "restart"
joins = ["and", "or"]
breaks = ["but"]
roles = [
  { id = "left", words = ["not", "never", "still", "left", "old version"] },
  { id = "done", words = ["restarted", "done", "already"] },
]
"#,
        )
        .unwrap()
    }

    /// Each name's roles in the text, in order, as "name=role".
    fn roles(text: &str, names: &[&str]) -> Vec<String> {
        let said = said(text, names, &pods());
        let role = |s: &Said| s.role.clone().unwrap_or_else(|| "-".into());
        said.iter().map(|s| format!("{}={}", names[s.name], role(s))).collect()
    }

    #[test]
    fn a_list_takes_the_role_words_beside_it_before_or_after() {
        let pods = ["a-1", "a-2", "a-3"];
        for text in [
            "The restart stopped part way: a-1, a-2 restarted, a-3 not.",
            "a-1 and a-2 were restarted but a-3 was not.",
            "a-1 and a-2 were restarted, a-3 was not.",
            "Restarted a-1 and a-2 but not a-3.",
            "The restart is done for a-1 and a-2 but not for a-3.",
            "Restarted: a-1 and a-2 not a-3.",
            "Already restarted: a-1, a-2. Still on the old version: a-3.",
            "Restarted: a-1, a-2; not restarted: a-3",
            "a-3 has not been restarted; a-1 and a-2 are done.",
        ] {
            let mut got = roles(text, &pods);
            got.sort();
            assert_eq!(got, ["a-1=done", "a-2=done", "a-3=left"], "{text}");
        }
    }

    #[test]
    fn swapped_lists_and_words_standing_together_are_read_as_written() {
        let pods = ["a-1", "a-2", "a-3"];
        assert_eq!(
            roles("Already restarted: a-3. Still on the old version: a-1, a-2.", &pods),
            ["a-3=done", "a-1=left", "a-2=left"]
        );
        // "Never restarted" holds words of both roles: the first role listed names it.
        assert_eq!(roles("Never restarted: a-3", &pods), ["a-3=left"]);
        assert_eq!(roles("The pods are a-1 and a-3.", &pods), ["a-1=-", "a-3=-"]);
    }

    #[test]
    fn a_name_inside_a_longer_word_is_not_named() {
        assert_eq!(roles("Not a-10, restarted a-1x.", &["a-1"]), Vec::<String>::new());
        let said = said("Never use \"payments\".", &["payment", "payments"], &pods());
        assert_eq!(said.len(), 1);
        assert_eq!((said[0].name, said[0].role.as_deref()), (1, Some("left")));
        assert_eq!(said[0].clause, "Never use \"payments\"");
    }

    #[test]
    fn a_wording_needs_rival_roles_each_with_words() {
        let mut w = pods();
        assert!(w.problems().is_empty());
        w.roles[1].words = vec![" ".into()];
        w.roles.push(w.roles[0].clone());
        let problems = w.problems().join("\n");
        assert!(problems.contains("role 'done' has no words"), "{problems}");
        assert!(problems.contains("the role 'left' is declared twice"), "{problems}");
        w.roles.truncate(1);
        assert!(w.problems()[0].contains("at least two roles"));
    }
}
