//! Text from the learner's code, made harmless to a terminal. What their code prints or raises
//! can hold escape sequences (`\x1b[2J` clears the screen, `\x1b[?1049h` switches to the
//! alternate screen, `\x1b]0;…\x07` sets the window title) and control characters (`\r`, bells).
//! Written as they are, they would act on the learner's terminal instead of being read; shown
//! with the escapes Python's `repr` uses, they are read. The check report, the cards, the
//! player and Python literals (`pyrepr`) all escape with [`escape`].

use std::borrow::Cow;

/// A control character as Python writes it in a string literal (`\n`, `\t`, `\r`, `\x1b`,
/// `\x9b`); `None` for any other character.
pub(crate) fn escape(c: char) -> Option<String> {
    if !c.is_control() {
        return None;
    }
    Some(match c {
        '\n' => "\\n".into(),
        '\t' => "\\t".into(),
        '\r' => "\\r".into(),
        c => format!("\\x{:02x}", u32::from(c)),
    })
}

/// The text with every control character but line breaks and tabs shown escaped.
pub(crate) fn text(text: &str) -> Cow<'_, str> {
    let keep = |c: char| c == '\n' || c == '\t' || !c.is_control();
    if text.chars().all(keep) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match escape(c) {
            Some(e) if !keep(c) => out.push_str(&e),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The text on one line: every control character, line breaks and tabs too, shown escaped, so
/// none acts on a terminal or splits a line (a CSV row, a one-line header).
pub(crate) fn one_line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(|c| escape(c).unwrap_or_else(|| c.to_string())).collect())
}

/// JSON text with the control characters serde leaves raw (DEL and the C1 range, such as the
/// one-byte CSI `\u{9b}`) written as `\u` escapes. They occur only inside strings, where the
/// escape means the same character, so the JSON still reads back to the same value.
pub(crate) fn json(text: String) -> String {
    if !text.chars().any(raw_in_json) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if raw_in_json(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Control characters serde_json writes raw: DEL and C1 (it escapes those below 0x20).
fn raw_in_json(c: char) -> bool {
    c.is_control() && u32::from(c) >= 0x7f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_control_characters_are_shown_not_sent() {
        let printed = "\x1b[2J\x1b[?1049h\x1b[?25l\x1b]0;owned\x07half\rdone\ttab\nnext\u{9b}31m\x7f";
        assert_eq!(
            text(printed),
            "\\x1b[2J\\x1b[?1049h\\x1b[?25l\\x1b]0;owned\\x07half\\rdone\ttab\nnext\\x9b31m\\x7f"
        );
        assert!(matches!(text("plain ünïcode\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_keeps_its_value_and_loses_its_raw_controls() {
        let value = serde_json::json!({"printed": "a\x1b[2Jb\u{9b}c\x7f"});
        let written = json(serde_json::to_string(&value).unwrap());
        assert!(written.chars().all(|c| !c.is_control()), "{written}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&written).unwrap(), value);
    }
}
