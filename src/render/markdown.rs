//! A small Markdown renderer for lesson text: the subset lessons are written in, nothing more.
//!
//! Headings (`#`, `##`, `###`), paragraphs wrapped to the width, `-`/`*` bullets and `1.`
//! numbered items, fenced code blocks (indented, never wrapped), inline `code` and **bold**.
//! A hand-written subset keeps the build lean and the output predictable for snapshots.

use crate::render::styles::Styles;

/// Code blocks are indented by this much, so they stand apart from the prose.
const CODE_INDENT: &str = "    ";
/// Inside a code span a space must not become a line break; this stands in for it while wrapping.
const KEEP_TOGETHER: char = '\u{a0}';

#[derive(Debug, PartialEq)]
enum Block {
    Heading(usize, String),
    Paragraph(String),
    /// One list item: its marker (`-` or `3.`), its text, and whether it continues the list of
    /// the item before it (no blank line between them).
    Item(String, String, bool),
    Code(Vec<String>),
}

/// Render Markdown to terminal text, wrapped to `width` columns.
pub fn render(markdown: &str, styles: &Styles, width: usize) -> String {
    let width = width.max(20);
    let mut out = String::new();
    let mut previous: Option<&Block> = None;
    let blocks = parse(markdown);
    for block in &blocks {
        // Items of one list sit on consecutive lines; every other block is set apart by a blank line.
        let tight = matches!(block, Block::Item(_, _, true));
        if previous.is_some() && !tight {
            out.push('\n');
        }
        match block {
            Block::Heading(level, text) => heading(&mut out, *level, text, styles),
            Block::Paragraph(text) => wrapped(&mut out, text, styles, width, "", ""),
            Block::Item(marker, text, _) => {
                let first = format!("  {marker} ");
                let rest = " ".repeat(first.chars().count());
                wrapped(&mut out, text, styles, width, &first, &rest);
            }
            Block::Code(lines) => {
                for line in lines {
                    if line.is_empty() {
                        out.push('\n');
                    } else {
                        out.push_str(CODE_INDENT);
                        out.push_str(&styles.paint(styles.code, line));
                        out.push('\n');
                    }
                }
            }
        }
        previous = Some(block);
    }
    out
}

fn heading(out: &mut String, level: usize, text: &str, styles: &Styles) {
    let shown = inline(text, styles).replace(KEEP_TOGETHER, " ");
    out.push_str(&styles.paint(styles.strong, &shown));
    out.push('\n');
    let rule = match level {
        1 => '=',
        2 => '-',
        _ => return,
    };
    let width = textwrap::core::display_width(&shown);
    out.push_str(&styles.paint(styles.dim, rule.to_string().repeat(width)));
    out.push('\n');
}

fn wrapped(out: &mut String, text: &str, styles: &Styles, width: usize, first: &str, rest: &str) {
    let styled = inline(text, styles);
    let options = textwrap::Options::new(width)
        .initial_indent(first)
        .subsequent_indent(rest)
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
        .break_words(false);
    for line in textwrap::wrap(&styled, options) {
        out.push_str(&line.replace(KEEP_TOGETHER, " "));
        out.push('\n');
    }
}

/// Style inline `code` and **bold**. Plain styles keep the backticks, so plain text still shows
/// what is code; colour replaces them. Spaces inside code become unbreakable for the wrapper.
fn inline(text: &str, styles: &Styles) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        let code_at = rest.find('`');
        let bold_at = rest.find("**");
        match (code_at, bold_at) {
            (Some(c), b) if b.is_none_or(|b| c < b) => {
                let Some(len) = rest[c + 1..].find('`') else { break };
                out.push_str(&rest[..c]);
                let code = rest[c + 1..c + 1 + len].replace(' ', &KEEP_TOGETHER.to_string());
                if styles.code.is_plain() {
                    out.push('`');
                    out.push_str(&code);
                    out.push('`');
                } else {
                    out.push_str(&styles.paint(styles.code, code));
                }
                rest = &rest[c + len + 2..];
            }
            (_, Some(b)) => {
                let Some(len) = rest[b + 2..].find("**") else { break };
                out.push_str(&rest[..b]);
                out.push_str(&styles.paint(styles.strong, &rest[b + 2..b + 2 + len]));
                rest = &rest[b + len + 4..];
            }
            _ => break,
        }
    }
    out.push_str(rest);
    out
}

/// The list marker a line starts with, and the text after it.
fn list_item(line: &str) -> Option<(String, &str)> {
    let trimmed = line.trim_start();
    for bullet in ["- ", "* "] {
        if let Some(text) = trimmed.strip_prefix(bullet) {
            return Some(("-".to_string(), text.trim()));
        }
    }
    let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && trimmed[digits..].starts_with(". ") {
        return Some((trimmed[..digits + 1].to_string(), trimmed[digits + 2..].trim()));
    }
    None
}

fn heading_of(line: &str) -> Option<(usize, &str)> {
    let level = line.chars().take_while(|&c| c == '#').count();
    if (1..=6).contains(&level) && line[level..].starts_with(' ') {
        Some((level, line[level..].trim()))
    } else {
        None
    }
}

fn parse(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut lines = markdown.lines().peekable();
    let mut paragraph: Vec<&str> = Vec::new();
    // The list item still taking continuation lines, if any, and whether it continues a list.
    let mut item: Option<(String, Vec<&str>, bool)> = None;
    // The last line ended a list item, with no blank line since: a new item joins that list.
    let mut in_list = false;

    fn flush(blocks: &mut Vec<Block>, paragraph: &mut Vec<&str>, item: &mut Option<(String, Vec<&str>, bool)>) {
        if !paragraph.is_empty() {
            blocks.push(Block::Paragraph(paragraph.join(" ")));
            paragraph.clear();
        }
        if let Some((marker, text, continues)) = item.take() {
            blocks.push(Block::Item(marker, text.join(" "), continues));
        }
    }

    while let Some(line) = lines.next() {
        if line.trim_start().starts_with("```") {
            flush(&mut blocks, &mut paragraph, &mut item);
            let mut code = Vec::new();
            for inner in lines.by_ref() {
                if inner.trim_start().starts_with("```") {
                    break;
                }
                code.push(inner.trim_end().to_string());
            }
            blocks.push(Block::Code(code));
            in_list = false;
        } else if line.trim().is_empty() {
            flush(&mut blocks, &mut paragraph, &mut item);
            in_list = false;
        } else if let Some((level, text)) = heading_of(line) {
            flush(&mut blocks, &mut paragraph, &mut item);
            blocks.push(Block::Heading(level, text.to_string()));
            in_list = false;
        } else if let Some((marker, text)) = list_item(line) {
            let continues = in_list && paragraph.is_empty();
            flush(&mut blocks, &mut paragraph, &mut item);
            item = Some((marker, vec![text], continues));
            in_list = true;
        } else if let Some((_, text, _)) = item.as_mut() {
            text.push(line.trim());
        } else {
            paragraph.push(line.trim());
        }
    }
    flush(&mut blocks, &mut paragraph, &mut item);
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(markdown: &str, width: usize) -> String {
        render(markdown, &Styles::plain(), width)
    }

    #[test]
    fn paragraphs_are_joined_and_wrapped() {
        let text = plain("one two three\nfour five six seven eight", 20);
        assert_eq!(text, "one two three four\nfive six seven eight\n");
    }

    #[test]
    fn headings_are_underlined_by_level() {
        assert_eq!(plain("# Title\n\n## Part\n\n### Small", 40), "Title\n=====\n\nPart\n----\n\nSmall\n");
    }

    #[test]
    fn list_items_hang_under_their_marker() {
        let text = plain("- alpha beta gamma delta\n- two\n\n1. first item here\n   goes on", 20);
        assert_eq!(text, "  - alpha beta gamma\n    delta\n  - two\n\n  1. first item here\n     goes on\n");
    }

    #[test]
    fn code_blocks_are_indented_and_never_wrapped() {
        let long = "x".repeat(50);
        let text = plain(&format!("```python\n{long}\n\n  indented\n```"), 20);
        assert_eq!(text, format!("    {long}\n\n      indented\n"));
    }

    #[test]
    fn a_code_span_is_never_split_across_lines() {
        let text = plain("run `./workshop check refund-basics` now", 20);
        assert_eq!(text, "run\n`./workshop check refund-basics`\nnow\n");
    }

    #[test]
    fn colour_replaces_backticks_and_bold_markers() {
        let styles = Styles::colored();
        let text = render("a `b` **c**", &styles, 40);
        assert!(!text.contains('`') && !text.contains("**"), "{text:?}");
        assert!(text.contains('\u{1b}'));
        assert_eq!(plain("a **c** d", 40), "a c d\n");
    }

    #[test]
    fn an_unclosed_backtick_is_left_as_it_is() {
        assert_eq!(plain("a `b c", 40), "a `b c\n");
    }
}
