//! Text from the learner's code, a lesson or a file name, made harmless to a terminal. It can
//! hold escape sequences (`\x1b[2J` clears the screen, `\x1b[?1049h` switches to the alternate
//! screen, `\x1b]0;…\x07` sets the window title, `\x1b]52;…` writes the clipboard), control
//! characters (`\r`, bells) and the invisible characters that reorder text (U+202E shows what
//! follows right to left, so `txt.exe` can read as `exe.txt`). Written as they are, they would act
//! on the terminal instead of being read; shown with the escapes Python's `repr` uses, they are
//! read. The check report, the cards, the player, lesson text, paths and Python literals
//! (`pyrepr`) all escape with [`escape`].

use std::borrow::Cow;

/// The characters that change the order text is shown in (Unicode's bidirectional controls):
/// marks, embeddings, overrides and isolates.
fn reorders(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Characters that show nothing yet change what is read: zero-width spaces and joiners, the
/// word joiner and invisible operators, the byte order mark, Unicode's tags (which can spell
/// hidden text) and the line and paragraph separators (a line break to some readers only).
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200b}'..='\u{200d}' | '\u{2028}' | '\u{2029}' | '\u{2060}'..='\u{2064}' | '\u{feff}'
            | '\u{e0000}'..='\u{e007f}'
    )
}

/// Whether a character is shown escaped: a control character, one that reorders text or one
/// that shows nothing.
fn acts(c: char) -> bool {
    c.is_control() || reorders(c) || invisible(c)
}

/// A control character as Python writes it in a string literal (`\n`, `\t`, `\r`, `\x1b`,
/// `\x9b`), any other that acts as `\u202e` (`\U000e0041` beyond the 16-bit range); `None`
/// for any other character.
pub(crate) fn escape(c: char) -> Option<String> {
    if !acts(c) {
        return None;
    }
    Some(match c {
        '\n' => "\\n".into(),
        '\t' => "\\t".into(),
        '\r' => "\\r".into(),
        c if c.is_control() => format!("\\x{:02x}", u32::from(c)),
        c if u32::from(c) > 0xffff => format!("\\U{:08x}", u32::from(c)),
        c => format!("\\u{:04x}", u32::from(c)),
    })
}

/// A path as a message shows it: every character that would act on the terminal escaped, each
/// byte that is not UTF-8 as `\xNN`, and a backslash doubled, so two different names never
/// print the same.
pub(crate) fn path(path: &std::path::Path) -> String {
    one_line(&name(path)).into_owned()
}

/// A path as JSON carries it (and `grade` names a submission): its characters themselves, for
/// whatever writes it out to escape, each byte that is not UTF-8 as `\xNN` and a backslash
/// doubled, so two different names never read the same.
pub(crate) fn name(path: &std::path::Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

/// The text with every control character but line breaks and tabs shown escaped.
pub(crate) fn text(text: &str) -> Cow<'_, str> {
    let keep = |c: char| c == '\n' || c == '\t' || !acts(c);
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
    if !text.chars().any(acts) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(|c| escape(c).unwrap_or_else(|| c.to_string())).collect())
}

/// JSON text with the characters serde leaves raw that act (DEL and the C1 range, such as the
/// one-byte CSI `\u{9b}`, bidi controls, invisible ones) written as `\u` escapes, a pair of
/// them beyond the 16-bit range, as JSON spells those. They occur only inside strings, where the
/// escape means the same character, so the JSON still reads back to the same value.
pub(crate) fn json(text: String) -> String {
    if !text.chars().any(raw_in_json) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if raw_in_json(c) {
            for unit in c.encode_utf16(&mut [0; 2]) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Characters serde_json writes raw that would act on a terminal: DEL and C1 (it escapes the
/// control characters below 0x20), and those that reorder text or show nothing.
fn raw_in_json(c: char) -> bool {
    (c.is_control() && u32::from(c) >= 0x7f) || reorders(c) || invisible(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_control_characters_are_shown_not_sent() {
        let printed =
            "\x1b[2J\x1b[?1049h\x1b[?25l\x1b]0;owned\x07half\rdone\ttab\nnext\u{9b}31m\x7f";
        assert_eq!(
            text(printed),
            "\\x1b[2J\\x1b[?1049h\\x1b[?25l\\x1b]0;owned\\x07half\\rdone\ttab\nnext\\x9b31m\\x7f"
        );
        assert!(matches!(text("plain ünïcode\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn characters_that_reorder_text_are_shown_escaped_everywhere() {
        let name = "invoice\u{202e}txt.exe\u{2066}x\u{200f}";
        assert_eq!(text(name), "invoice\\u202etxt.exe\\u2066x\\u200f");
        assert_eq!(one_line(name), "invoice\\u202etxt.exe\\u2066x\\u200f");
        let written = json(serde_json::to_string(&serde_json::json!(name)).unwrap());
        assert!(!written.chars().any(reorders), "{written}");
        assert_eq!(serde_json::from_str::<String>(&written).unwrap(), name);
        assert!(matches!(text("plain \u{05d0}\u{05d1} Hebrew letters"), Cow::Borrowed(_)));
    }

    #[test]
    fn characters_that_show_nothing_are_shown_escaped_and_json_reads_them_back() {
        let hidden = "a\u{200b}b\u{feff}c\u{e0041}\u{e007f}d\u{2028}e\u{2029}";
        assert_eq!(one_line(hidden), "a\\u200bb\\ufeffc\\U000e0041\\U000e007fd\\u2028e\\u2029");
        let written = json(serde_json::to_string(&serde_json::json!(hidden)).unwrap());
        assert!(written.contains("\\udb40\\udc41"), "{written}");
        assert!(written.is_ascii(), "{written}");
        assert_eq!(serde_json::from_str::<String>(&written).unwrap(), hidden);
    }

    #[test]
    fn a_path_shows_every_name_apart_and_none_acts_on_the_terminal() {
        use std::os::unix::ffi::OsStrExt;
        let of = |bytes: &[u8]| path(std::path::Path::new(std::ffi::OsStr::from_bytes(bytes)));
        assert_eq!(of(b"work/a\x1b]52;c;b3du\x07.py"), "work/a\\x1b]52;c;b3du\\x07.py");
        assert_eq!(of("r\u{202e}yp.txt".as_bytes()), "r\\u202eyp.txt");
        // Two names that are not UTF-8, and one that spells the first one's escape: three names.
        let shown = [
            of(b"class/\xff/errors.py"),
            of(b"class/\xfe/errors.py"),
            of(b"class/\\xff/errors.py"),
        ];
        assert_eq!(
            shown,
            ["class/\\xff/errors.py", "class/\\xfe/errors.py", "class/\\\\xff/errors.py"]
        );
        assert_eq!(of("plain/ünïcode.py".as_bytes()), "plain/ünïcode.py");
    }

    #[test]
    fn json_keeps_its_value_and_loses_its_raw_controls() {
        let value = serde_json::json!({"printed": "a\x1b[2Jb\u{9b}c\x7f"});
        let written = json(serde_json::to_string(&value).unwrap());
        assert!(written.chars().all(|c| !c.is_control()), "{written}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&written).unwrap(), value);
    }
}
