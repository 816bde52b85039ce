//! Lesson text for the terminal. pulldown-cmark parses the Markdown (CommonMark, with GitHub's
//! tables); this module lays the blocks out for a width and a styles value: headings underlined
//! by level, paragraphs wrapped, lists hanging under their markers, block quotes behind `>`,
//! code blocks indented and never wrapped, links as their text then the address, tables in
//! aligned columns (or, when they cannot fit, one record per row).

use owo_colors::Style;
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use textwrap::core::display_width;

use crate::render::styles::Styles;

mod table;

use table::Table;

/// Code blocks are indented by this much, so they stand apart from the prose.
const CODE_INDENT: &str = "    ";
/// Inside a code span a space must not become a line break; this stands in for it while wrapping.
const KEEP_TOGETHER: char = '\u{a0}';
/// Narrower than this, text inside a list or a quote is wrapped to this anyway.
const MIN_INNER: usize = 10;

/// A block of the document, its inline text already styled.
#[derive(Debug)]
enum Block {
    Heading(HeadingLevel, String),
    /// Inline text; a `\n` is a hard line break.
    Paragraph(String),
    /// Shown as written: a code block, or a block of HTML.
    Code(Vec<String>),
    List {
        start: Option<u64>,
        loose: bool,
        items: Vec<Vec<Block>>,
    },
    Quote(Vec<Block>),
    Table(Table),
    Rule,
}

/// Render Markdown to terminal text, wrapped to `width` columns. What the author wrote can hold
/// characters that would act on the terminal (an escape sequence, one that reorders text): they
/// are shown escaped, code blocks included, before any styling of ours is added.
pub(crate) fn render(markdown: &str, styles: &Styles, width: usize) -> String {
    let markdown = markdown.replace("\r\n", "\n");
    let blocks = BlockReader::new(styles).read(&crate::text::inert::text(&markdown));
    let lines = Layout { styles }.blocks(&blocks, width.max(20), false, 0);
    let mut out = String::new();
    for line in lines {
        out.push_str(line.trim_end_matches(' '));
        out.push('\n');
    }
    out
}

/// A container still open while the events stream in; it collects the blocks inside it.
enum Open {
    Quote(Vec<Block>),
    List { start: Option<u64>, loose: bool, items: Vec<Vec<Block>> },
    Item(Vec<Block>),
}

/// Turns pulldown-cmark's events into blocks.
struct BlockReader<'s> {
    styles: &'s Styles,
    done: Vec<Block>,
    open: Vec<Open>,
    /// The inline text being gathered: a paragraph, a heading, a table cell, a tight item's text.
    text: String,
    /// The styles of the open inline spans (strong, emphasis), innermost last.
    spans: Vec<Style>,
    /// Each open link's address, and where its text starts in `text`.
    links: Vec<(String, usize)>,
    /// Inside a code or HTML block: its text so far.
    code: Option<String>,
    table: Option<Table>,
    row: Vec<String>,
}

impl<'s> BlockReader<'s> {
    fn new(styles: &'s Styles) -> BlockReader<'s> {
        BlockReader {
            styles,
            done: Vec::new(),
            open: Vec::new(),
            text: String::new(),
            spans: Vec::new(),
            links: Vec::new(),
            code: None,
            table: None,
            row: Vec::new(),
        }
    }

    fn read(mut self, markdown: &str) -> Vec<Block> {
        for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
            match event {
                Event::Start(tag) => self.start(tag),
                Event::End(tag) => self.end(tag),
                Event::Text(text) => match self.code.as_mut() {
                    Some(code) => code.push_str(&text),
                    None => self.text.push_str(&self.painted(&text)),
                },
                Event::Html(html) => match self.code.as_mut() {
                    Some(code) => code.push_str(&html),
                    None => self.text.push_str(&html),
                },
                Event::Code(code) => self.code_span(&code),
                Event::InlineHtml(html) | Event::InlineMath(html) | Event::DisplayMath(html) => {
                    self.text.push_str(&html);
                }
                Event::FootnoteReference(label) => self.text.push_str(&format!("[{label}]")),
                Event::SoftBreak => self.text.push(' '),
                Event::HardBreak => self.text.push('\n'),
                Event::Rule => {
                    self.flush();
                    self.push(Block::Rule);
                }
                Event::TaskListMarker(done) => {
                    self.text.push_str(if done { "[x] " } else { "[ ] " })
                }
            }
        }
        self.flush();
        self.done
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Strong => self.spans.push(self.styles.strong),
            Tag::Emphasis => self.spans.push(self.styles.emphasis),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.links.push((dest_url.to_string(), self.text.len()));
            }
            Tag::TableCell => self.text.clear(),
            Tag::TableHead | Tag::TableRow => self.row.clear(),
            // Every other tag opens a block: text gathered before it (a tight item's) is a paragraph.
            _ => {
                self.flush();
                match tag {
                    Tag::CodeBlock(_) | Tag::HtmlBlock => self.code = Some(String::new()),
                    Tag::BlockQuote(_) => self.open.push(Open::Quote(Vec::new())),
                    Tag::List(start) => {
                        self.open.push(Open::List { start, loose: false, items: Vec::new() })
                    }
                    Tag::Item => self.open.push(Open::Item(Vec::new())),
                    Tag::Table(aligns) => self.table = Some(Table { aligns, ..Table::default() }),
                    _ => {}
                }
            }
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Strong | TagEnd::Emphasis => {
                self.spans.pop();
            }
            TagEnd::Link | TagEnd::Image => self.link_end(),
            TagEnd::Paragraph => {
                // Only a loose list wraps its items' text in paragraphs.
                if let [.., Open::List { loose, .. }, Open::Item(_)] = self.open.as_mut_slice() {
                    *loose = true;
                }
                self.flush();
            }
            TagEnd::Heading(level) => {
                let text = std::mem::take(&mut self.text);
                self.push(Block::Heading(level, text));
            }
            TagEnd::CodeBlock | TagEnd::HtmlBlock => {
                let code = self.code.take().unwrap_or_default();
                self.push(Block::Code(code.lines().map(|l| l.trim_end().to_string()).collect()));
            }
            TagEnd::TableCell => self.row.push(std::mem::take(&mut self.text)),
            TagEnd::TableHead => {
                if let Some(table) = self.table.as_mut() {
                    table.head = std::mem::take(&mut self.row);
                }
            }
            TagEnd::TableRow => {
                if let Some(table) = self.table.as_mut() {
                    table.rows.push(std::mem::take(&mut self.row));
                }
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.push(Block::Table(table));
                }
            }
            TagEnd::Item => {
                self.flush();
                if let Some(Open::Item(blocks)) = self.open.pop() {
                    if let Some(Open::List { items, .. }) = self.open.last_mut() {
                        items.push(blocks);
                    }
                }
            }
            TagEnd::List(_) => {
                self.flush();
                if let Some(Open::List { start, loose, items }) = self.open.pop() {
                    self.push(Block::List { start, loose, items });
                }
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                if let Some(Open::Quote(blocks)) = self.open.pop() {
                    self.push(Block::Quote(blocks));
                }
            }
            _ => {}
        }
    }

    /// A finished block goes into the innermost open container.
    fn push(&mut self, block: Block) {
        match self.open.last_mut() {
            Some(Open::Quote(blocks) | Open::Item(blocks)) => blocks.push(block),
            // A list holds items, never a bare block; pulldown-cmark never sends one there.
            Some(Open::List { .. }) => {}
            None => self.done.push(block),
        }
    }

    /// The inline text gathered so far, as a paragraph.
    fn flush(&mut self) {
        let text = std::mem::take(&mut self.text);
        if !text.trim().is_empty() {
            self.push(Block::Paragraph(text.trim().to_string()));
        }
    }

    /// Text in the styles of the spans it is inside. Each piece carries all of them, so the end
    /// of an inner span (a reset) does not end the outer one.
    fn painted(&self, text: &str) -> String {
        self.spans
            .iter()
            .rev()
            .fold(text.to_string(), |shown, style| self.styles.paint(*style, shown))
    }

    /// Plain styles keep the backticks, so plain text still shows what is code; colour replaces
    /// them. Spaces inside code become unbreakable for the wrapper.
    fn code_span(&mut self, code: &str) {
        let code = code.replace(' ', &KEEP_TOGETHER.to_string());
        let shown = if self.styles.code.is_plain() {
            format!("`{code}`")
        } else {
            self.styles.paint(self.styles.code, code)
        };
        self.text.push_str(&self.painted(&shown));
    }

    /// After a link's text, its address in brackets, unless the text is the address.
    fn link_end(&mut self) {
        let Some((url, from)) = self.links.pop() else { return };
        let text = strip_ansi(&self.text[from.min(self.text.len())..]);
        let bare = url.strip_prefix("mailto:").unwrap_or(&url);
        if url.is_empty() || text == url || text == bare {
            return;
        }
        let shown = self.styles.paint(self.styles.dim, &url);
        if text.trim().is_empty() {
            self.text.push_str(&shown);
        } else {
            self.text.push_str(&format!(" ({shown})"));
        }
    }
}

/// Text without its ANSI colour codes, to compare what a reader sees.
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // A CSI sequence: ESC [ parameters, ended by a letter.
            for inner in chars.by_ref() {
                if inner.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out.replace(KEEP_TOGETHER, " ")
}

/// Lays blocks out in lines of a width.
struct Layout<'s> {
    styles: &'s Styles,
}

impl Layout<'_> {
    /// Blocks one after another: set apart by a blank line, or (in a tight list item) not.
    /// `depth` counts the lists around them.
    fn blocks(&self, blocks: &[Block], width: usize, tight: bool, depth: usize) -> Vec<String> {
        let mut lines = Vec::new();
        for (i, block) in blocks.iter().enumerate() {
            if i > 0 && !tight {
                lines.push(String::new());
            }
            lines.extend(self.block(block, width, depth));
        }
        lines
    }

    fn block(&self, block: &Block, width: usize, depth: usize) -> Vec<String> {
        match block {
            Block::Heading(level, text) => self.heading(*level, text, width),
            Block::Paragraph(text) => {
                text.split('\n').flat_map(|line| wrap(line, width, "", "")).collect()
            }
            Block::Code(code) => code
                .iter()
                .map(|line| {
                    if line.is_empty() {
                        String::new()
                    } else {
                        format!("{CODE_INDENT}{}", self.styles.paint(self.styles.code, line))
                    }
                })
                .collect(),
            Block::List { start, loose, items } => self.list(*start, *loose, items, width, depth),
            Block::Quote(blocks) => {
                let bar = self.styles.paint(self.styles.dim, ">");
                let inner =
                    self.blocks(blocks, width.saturating_sub(2).max(MIN_INNER), false, depth);
                inner
                    .into_iter()
                    .map(|l| if l.is_empty() { bar.clone() } else { format!("{bar} {l}") })
                    .collect()
            }
            Block::Table(table) => self.table(table, width),
            Block::Rule => vec![self.styles.paint(self.styles.dim, "-".repeat(width))],
        }
    }

    fn heading(&self, level: HeadingLevel, text: &str, width: usize) -> Vec<String> {
        let lines = wrap(text, width, "", "");
        let longest = lines.iter().map(|l| display_width(l)).max().unwrap_or(0);
        let mut out: Vec<String> =
            lines.iter().map(|l| self.styles.paint(self.styles.strong, l)).collect();
        let rule = match level {
            HeadingLevel::H1 => '=',
            HeadingLevel::H2 => '-',
            _ => return out,
        };
        out.push(self.styles.paint(self.styles.dim, rule.to_string().repeat(longest)));
        out
    }

    /// Items hang under their markers (`-`, or numbers right-aligned); a list at the top is
    /// indented by two, a nested one starts under its parent's text.
    fn list(
        &self,
        start: Option<u64>,
        loose: bool,
        items: &[Vec<Block>],
        width: usize,
        depth: usize,
    ) -> Vec<String> {
        let markers: Vec<String> = match start {
            Some(first) => {
                (0..items.len()).map(|i| format!("{}.", first.saturating_add(i as u64))).collect()
            }
            None => vec!["-".to_string(); items.len()],
        };
        let widest = markers.iter().map(String::len).max().unwrap_or(1);
        let lead = if depth == 0 { "  " } else { "" };
        let mut lines = Vec::new();
        for (i, (marker, blocks)) in markers.iter().zip(items).enumerate() {
            if i > 0 && loose {
                lines.push(String::new());
            }
            let first = format!("{lead}{marker:>widest$} ");
            let rest = " ".repeat(first.len());
            let inner = self.blocks(
                blocks,
                width.saturating_sub(first.len()).max(MIN_INNER),
                !loose,
                depth + 1,
            );
            for (n, line) in inner.into_iter().enumerate() {
                lines.push(match (n, line.is_empty()) {
                    (0, _) => format!("{first}{line}"),
                    (_, true) => line,
                    (_, false) => format!("{rest}{line}"),
                });
            }
        }
        lines
    }
}

/// Wrap styled text to a width; code spans stay whole.
fn wrap(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let options = textwrap::Options::new(width)
        .initial_indent(first)
        .subsequent_indent(rest)
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
        .break_words(false);
    textwrap::wrap(text, options).into_iter().map(|line| line.replace(KEEP_TOGETHER, " ")).collect()
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
        assert_eq!(
            plain("# Title\n\n## Part\n\n### Small", 40),
            "Title\n=====\n\nPart\n----\n\nSmall\n"
        );
    }

    #[test]
    fn list_items_hang_under_their_marker() {
        let text = plain("- alpha beta gamma delta\n- two\n\n1. first item here\n   goes on", 20);
        assert_eq!(
            text,
            "  - alpha beta gamma\n    delta\n  - two\n\n  1. first item here\n     goes on\n"
        );
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
    fn colour_replaces_backticks_and_emphasis_markers() {
        let styles = Styles::colored();
        let text = render("a `b` **c** *d* _e_", &styles, 40);
        assert!(
            !text.contains('`')
                && !text.contains("**")
                && !text.contains('*')
                && !text.contains('_'),
            "{text:?}"
        );
        assert!(text.contains('\u{1b}'));
        assert_eq!(plain("a **c** *d* d", 40), "a c d d\n");
    }

    #[test]
    fn an_inner_span_does_not_end_the_outer_one() {
        let text = render("**bold *both* still**", &Styles::colored(), 40);
        // After the italic span's reset, "still" is painted bold again.
        assert!(text.contains("\u{1b}[1m still"), "{text:?}");
    }

    #[test]
    fn an_unclosed_backtick_is_left_as_it_is() {
        assert_eq!(plain("a `b c", 40), "a `b c\n");
    }

    #[test]
    fn links_show_their_text_then_the_address() {
        assert_eq!(
            plain("see [the spec](https://example.org/spec) now", 80),
            "see the spec (https://example.org/spec) now\n"
        );
        assert_eq!(plain("<https://example.org>", 80), "https://example.org\n");
        assert_eq!(plain("[](https://example.org/x)", 80), "https://example.org/x\n");
    }

    #[test]
    fn nested_lists_start_under_their_parents_text() {
        let text = plain("1. one\n   - inner a\n   - inner b\n2. two\n\n- top\n  1. first\n", 40);
        assert_eq!(
            text,
            "  1. one\n     - inner a\n     - inner b\n  2. two\n\n  - top\n    1. first\n"
        );
    }

    #[test]
    fn numbers_of_a_long_list_line_up() {
        let items: String = (1..=10).map(|n| format!("{n}. item\n")).collect();
        let text = plain(&items, 40);
        assert!(text.starts_with("   1. item\n"), "{text}");
        assert!(text.ends_with("  10. item\n"), "{text}");
        assert_eq!(plain("3. c\n4. d", 40), "  3. c\n  4. d\n");
    }

    #[test]
    fn a_loose_list_keeps_blank_lines_between_its_items() {
        assert_eq!(plain("- a\n\n- b\n\n  more of b", 40), "  - a\n\n  - b\n\n    more of b\n");
    }

    #[test]
    fn block_quotes_sit_behind_a_bar_and_wrap_inside_it() {
        let text = plain("> one two three four five\n>\n> - a list", 16);
        assert_eq!(text, "> one two three\n> four five\n>\n>   - a list\n");
    }

    #[test]
    fn a_table_lines_up_its_columns_with_their_alignment() {
        let text =
            plain("| id | n | where |\n|:---|--:|:-----:|\n| a | 1 | here |\n| bbb | 22 | x |", 40);
        assert_eq!(text, "id    n  where\n---  --  -----\na     1  here\nbbb  22    x\n");
    }

    #[test]
    fn a_wide_table_wraps_its_cells_and_sets_rows_apart() {
        let md = "| id | what |\n|---|---|\n| a | one two three four five six |\n| b | seven |";
        let text = plain(md, 20);
        assert_eq!(
            text,
            "id  what\n--  -------------\na   one two three\n    four five six\n\nb   seven\n"
        );
        assert!(text.lines().all(|l| l.chars().count() <= 20), "{text}");
        // No column is squeezed below twelve (or its widest cell): then it is one record per row.
        let md = "| id | what |\n|---|---|\n| abcdefghij | one two three four five six |";
        assert_eq!(plain(md, 20), "id: abcdefghij\nwhat: one two three\n  four five six\n");
    }

    #[test]
    fn a_table_that_cannot_fit_becomes_one_record_per_row() {
        let md = "| ticket | outcome |\n|---|---|\n| `old-order` | window-closed-after-thirty-days |\n| b | c |";
        let text = plain(md, 24);
        assert_eq!(text, "ticket: `old-order`\noutcome:\n  window-closed-after-thirty-days\n\nticket: b\noutcome: c\n");
    }

    #[test]
    fn colour_does_not_move_what_a_reader_sees() {
        // No code spans: plain keeps their backticks where colour paints them instead.
        let md = "# T\n\n| **a** | b c |\n|---|--:|\n| *x* and more words here | [y](https://e.org) |\n\n> - **q** r\n\n1. [s](t) *u*";
        for width in [20, 30, 80] {
            let coloured = render(md, &Styles::colored(), width);
            assert!(coloured.contains('\u{1b}'));
            let seen: String =
                coloured.lines().map(|l| strip_ansi(l).trim_end().to_string() + "\n").collect();
            assert_eq!(seen, plain(md, width), "{coloured}");
        }
    }

    #[test]
    fn hard_breaks_and_rules_are_kept() {
        assert_eq!(
            plain("one  \ntwo\n\n---\n\nthree", 20),
            format!("one\ntwo\n\n{}\n\nthree\n", "-".repeat(20))
        );
    }
}
