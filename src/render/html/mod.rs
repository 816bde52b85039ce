//! Pages to share: a replay (`watch --html`) and a class's results (`grade --format html`), each
//! one HTML file with nothing to fetch, drawn from the same events and reports as the cards and
//! grade's other formats. Every piece of text goes through [`esc`]; the page's only script and
//! style are its own, allowed by their hashes in a Content-Security-Policy, so nothing a learner,
//! a model or a file name brings can run. Readable without the script, which only adds controls.
//!
//! - `replay.rs`: the replay page (tickets, cards, expanders, the split, verdicts, predictions).
//! - `class.rs`: the class page (a bar per check, the files by score, what could not run).

pub(crate) mod class;
pub(crate) mod replay;

use sha2::{Digest, Sha256};

/// Text as HTML, for element content and quoted attributes alike: `& < > " '` as entities, and
/// control characters shown escaped (`\x1b`), as the cards show them.
pub(crate) fn esc(text: &str) -> String {
    let text = crate::text::inert::text(text);
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A JSON value as the cards' raw view shows it, pretty and escaped, in a `<pre>`.
pub(crate) fn json_block(value: &serde_json::Value) -> String {
    let pretty = crate::text::inert::json(serde_json::to_string_pretty(value).unwrap_or_default());
    format!("<pre>{}</pre>", esc(&pretty))
}

/// The colours, type and layout both pages share: a light and a dark scheme chosen by the
/// reader's system, a visible focus ring, and nothing wider than a phone unless there is room.
const BASE_STYLE: &str = r#"
:root{color-scheme:light dark;--bg:#fbfbfa;--fg:#1d1d1f;--dim:#5b6068;--line:#d5d7dc;--card:#fff;--code:#f1f2f4;--good:#1a7f37;--warn:#8a5a00;--bad:#c8232c;--accent:#0b57d0}
@media (prefers-color-scheme:dark){:root{--bg:#121419;--fg:#e7e8ea;--dim:#a3a8b0;--line:#363a42;--card:#1b1e24;--code:#23262d;--good:#4ac26b;--warn:#e3b341;--bad:#ff7b72;--accent:#8ab4f8}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:76rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
h3{font-size:1rem;margin:.5rem 0}
a,summary,button{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
pre,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--code);padding:.5rem .75rem;border-radius:4px;margin:.25rem 0}
code{overflow-wrap:anywhere}
summary{cursor:pointer}
button{font:inherit;background:var(--card);border:1px solid var(--line);border-radius:4px;padding:.15rem .6rem;cursor:pointer}
.dim{color:var(--dim)}
.good{color:var(--good)}.warn{color:var(--warn)}.bad{color:var(--bad)}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
"#;

/// A whole page: the policy first, then the style, the body, and the script last (the elements
/// it finds are there by then). `style` and `script` are the page's own, never data.
pub(crate) fn page(title: &str, style: &str, script: &str, body: &str) -> String {
    let style = format!("{BASE_STYLE}{style}");
    let policy = format!(
        "default-src 'none'; style-src '{}'; script-src '{}'; img-src 'none'; base-uri 'none'; form-action 'none'",
        hash(&style),
        hash(script)
    );
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n<title>{}</title>\n<style>{style}</style>\n</head>\n\
         <body>\n{body}<script>{script}</script>\n</body>\n</html>\n",
        esc(title)
    )
}

/// A CSP source for an inline element's text: `sha256-` and the base64 of its SHA-256.
fn hash(text: &str) -> String {
    format!("sha256-{}", base64(&Sha256::digest(text.as_bytes())))
}

/// Standard base64 with padding: thirty-two bytes a page, too little to bring in a crate for.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_quotes_and_control_characters() {
        assert_eq!(esc("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)&gt;");
        assert_eq!(esc("a & \"b\" 'c'"), "a &amp; &quot;b&quot; &#39;c&#39;");
        assert_eq!(esc("\x1b[2Jgone"), "\\x1b[2Jgone");
        assert_eq!(esc("two\nlines"), "two\nlines");
    }

    #[test]
    fn base64_matches_the_standard_alphabet_and_padding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        // The hash Chromium names for `console.error('boom')` when a policy blocks it.
        assert_eq!(
            hash("console.error('boom')"),
            "sha256-uYDz4BGs7DNDeD3N1bMRUcxO4CmOrR1bK7ekJ8wvZXk="
        );
    }

    #[test]
    fn the_policy_allows_exactly_the_pages_own_style_and_script() {
        let html = page("t", "p{}", "1;", "<p>x</p>");
        let style = format!("{BASE_STYLE}p{{}}");
        assert!(html.contains(&format!("style-src '{}'", hash(&style))), "{html}");
        assert!(html.contains(&format!("script-src '{}'", hash("1;"))), "{html}");
        assert!(html.contains(&format!("<style>{style}</style>")));
        assert!(html.contains("<script>1;</script>"));
        assert!(!html.contains("unsafe-inline"));
    }
}
