//! The words a diff changes, one line per change: what a learner's run adds, drops or
//! replaces against the closest recorded request.

/// The words a diff changes, one line per change: a changed tool message is one escaped string
/// on a long JSON line, and the few words that differ are easy to miss in it.
pub(crate) fn word_changes(diff: &str) -> Vec<String> {
    const MOST: usize = 3;
    let mut removed: Vec<&str> = Vec::new();
    let mut added: Vec<&str> = Vec::new();
    let mut changes = Vec::new();
    let flush = |removed: &mut Vec<&str>, added: &mut Vec<&str>, changes: &mut Vec<String>| {
        for (old, new) in removed.iter().zip(added.iter()) {
            changes.extend(line_changes(old, new));
        }
        for old in removed.iter().skip(added.len()) {
            changes.extend(line_changes(old, ""));
        }
        for new in added.iter().skip(removed.len()) {
            changes.extend(line_changes("", new));
        }
        removed.clear();
        added.clear();
    };
    for line in diff.lines() {
        if line.starts_with("---") || line.starts_with("+++") {
            continue;
        }
        match line.as_bytes().first() {
            Some(b'-') if added.is_empty() => removed.push(&line[1..]),
            Some(b'+') => added.push(&line[1..]),
            _ => {
                flush(&mut removed, &mut added, &mut changes);
                if let Some(gone) = line.strip_prefix('-') {
                    removed.push(gone);
                }
            }
        }
    }
    flush(&mut removed, &mut added, &mut changes);
    // Past a few changes the runs went different ways, and the diff above says it better.
    if changes.len() > MOST {
        changes.clear();
    }
    changes
}

/// What one changed line adds, drops or replaces, word by word.
fn line_changes(old: &str, new: &str) -> Vec<String> {
    use similar::{ChangeTag, TextDiff};
    let (old, new) = (tokens(old), tokens(new));
    let diff = TextDiff::configure().diff_slices(&old, &new);
    let all: Vec<(ChangeTag, &str)> =
        diff.iter_all_changes().map(|c| (c.tag(), c.value())).collect();
    // Runs of changed tokens; one unchanged token between two changes joins them.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (i, (tag, _)) in all.iter().enumerate() {
        if *tag == ChangeTag::Equal {
            continue;
        }
        match runs.last_mut() {
            Some((_, end)) if i <= *end + 1 => *end = i + 1,
            _ => runs.push((i, i + 1)),
        }
    }
    let mut changes = Vec::new();
    for (start, end) in runs {
        let (mut gone, mut came) = (String::new(), String::new());
        for (tag, text) in &all[start..end] {
            if *tag != ChangeTag::Insert {
                gone.push_str(text);
            }
            if *tag != ChangeTag::Delete {
                came.push_str(text);
            }
        }
        // Quotes or commas alone say little: show the unchanged words on either side too.
        if !format!("{gone}{came}").chars().any(char::is_alphanumeric) {
            let side = |i: Option<usize>| i.and_then(|i| all.get(i)).map_or("", |(_, text)| *text);
            let (before, after) = (side(start.checked_sub(1)), side(Some(end)));
            gone = format!("{before}{gone}{after}");
            came = format!("{before}{came}{after}");
        }
        let (gone, came) = (tidy(&gone), tidy(&came));
        changes.push(match (gone.is_empty(), came.is_empty()) {
            (true, true) => continue,
            (true, false) => format!("your run adds `{came}`"),
            (false, true) => format!("your run drops `{gone}`"),
            (false, false) => format!("your run has `{came}` where the recording has `{gone}`"),
        });
    }
    changes
}

/// A changed fragment as the learner reads it: quotes unescaped, the commas and the odd quote the
/// diff cut from the JSON around it dropped, a key's opening quote put back.
fn tidy(words: &str) -> String {
    let edges = |c: char| c == ',' || c.is_whitespace();
    let mut text = words.replace("\\\"", "\"").trim_matches(edges).to_string();
    // `"a":1,"` ends with the opening quote of the next key.
    if let Some(cut) = text.strip_suffix(",\"") {
        text = cut.trim_matches(edges).to_string();
    }
    // `a":1` is a key that lost its opening quote to the words around it.
    let key_without_quote = text.find('"').is_some_and(|at| text[at + 1..].starts_with(':'));
    if text.starts_with(char::is_alphanumeric) && key_without_quote {
        text.insert(0, '"');
    }
    text
}

/// Words (runs of letters and digits) and single other characters.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            start.get_or_insert(i);
            continue;
        }
        if let Some(from) = start.take() {
            out.push(&text[from..i]);
        }
        out.push(&text[i..i + c.len_utf8()]);
    }
    if let Some(from) = start {
        out.push(&text[from..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::word_changes;

    fn diff(old: &str, new: &str) -> String {
        similar::TextDiff::from_lines(old, new)
            .unified_diff()
            .header("recorded", "yours")
            .to_string()
    }

    const RECORDED: &str = "{\n  \"content\": \"{\\\"error\\\":{\\\"errorCategory\\\":\\\"business\\\",\\\"isRetryable\\\":false,\\\"message\\\":\\\"Too old.\\\"},\\\"isError\\\":true}\",\n  \"is_error\": true\n}\n";

    #[test]
    fn names_the_words_a_changed_message_adds() {
        let mine = RECORDED.replace("Too old.", "Sorry. Too old.");
        assert_eq!(word_changes(&diff(RECORDED, &mine)), ["your run adds `Sorry.`"]);
    }

    #[test]
    fn names_a_renamed_key_and_a_value_of_another_type() {
        let renamed = RECORDED.replace(
            "\\\"isRetryable\\\":false,\\\"message\\\":\\\"Too old.\\\"",
            "\\\"message\\\":\\\"Too old.\\\",\\\"retryable\\\":false",
        );
        assert_eq!(
            word_changes(&diff(RECORDED, &renamed)),
            ["your run drops `\"isRetryable\":false`", "your run adds `\"retryable\":false`"]
        );
        let quoted = RECORDED.replace("\\\"isError\\\":true", "\\\"isError\\\":\\\"true\\\"");
        assert_eq!(
            word_changes(&diff(RECORDED, &quoted)),
            ["your run has `\"true\"` where the recording has `true`"]
        );
    }

    #[test]
    fn names_a_line_the_run_drops() {
        let mine = RECORDED.replace(",\n  \"is_error\": true", "");
        let changes = word_changes(&diff(RECORDED, &mine));
        assert!(
            changes.contains(&"your run drops `\"is_error\": true`".to_string()),
            "{changes:?}"
        );
    }

    #[test]
    fn says_nothing_in_short_when_the_runs_went_different_ways() {
        let mine = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3,\n  \"d\": 4\n}\n";
        let theirs = "{\n  \"a\": 5,\n  \"b\": 6,\n  \"c\": 7,\n  \"d\": 8\n}\n";
        assert!(word_changes(&diff(theirs, mine)).is_empty());
    }
}
