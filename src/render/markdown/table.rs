//! A Markdown table laid out for a width: aligned columns, their cells wrapped when the table is
//! wider than the text, or one record per row when even that cannot fit.

use pulldown_cmark::Alignment;
use textwrap::core::display_width;

use super::{strip_ansi, wrap, Layout};

/// Between two table columns.
const GAP: &str = "  ";
/// A table column is not squeezed below this (or its widest cell, if narrower): a column of a
/// few letters a line is harder to read than one record per row.
const MIN_COLUMN: usize = 12;

#[derive(Debug, Default)]
pub(super) struct Table {
    pub(super) aligns: Vec<Alignment>,
    pub(super) head: Vec<String>,
    pub(super) rows: Vec<Vec<String>>,
}

impl Layout<'_> {
    /// Aligned columns, their cells wrapped when the table is wider than the text; a record per
    /// row when even that cannot fit.
    pub(super) fn table(&self, table: &Table, width: usize) -> Vec<String> {
        let columns = table.rows.iter().map(Vec::len).chain([table.head.len()]).max().unwrap_or(0);
        if columns == 0 {
            return Vec::new();
        }
        let cell =
            |row: &[String], c: usize| row.get(c).map(String::as_str).unwrap_or("").to_string();
        let all: Vec<Vec<String>> = std::iter::once(&table.head)
            .chain(&table.rows)
            .map(|row| (0..columns).map(|c| cell(row, c)).collect())
            .collect();
        let Some(widths) = fitted_widths(&all, columns, width) else {
            return self.records(&all, width);
        };
        let wrapped: Vec<Vec<Vec<String>>> = all
            .iter()
            .map(|row| (0..columns).map(|c| wrap(&row[c], widths[c].max(1), "", "")).collect())
            .collect();
        // A column as wide as its widest line once wrapped, which may be less than it was given.
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                wrapped
                    .iter()
                    .flat_map(|row| row[c].iter().map(|l| display_width(l)))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut lines = self.aligned(table, &widths, &wrapped[0], true);
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        lines.push(self.styles.paint(self.styles.dim, rule.join(GAP)));
        let body: Vec<Vec<String>> =
            wrapped[1..].iter().map(|row| self.aligned(table, &widths, row, false)).collect();
        // Rows that take several lines are set apart, so a reader sees where each one ends.
        let apart = body.iter().any(|row| row.len() > 1);
        for (i, row) in body.into_iter().enumerate() {
            if apart && i > 0 {
                lines.push(String::new());
            }
            lines.extend(row);
        }
        lines
    }

    /// One row's lines: each column's cell lines padded to its width, as the column is aligned.
    fn aligned(
        &self,
        table: &Table,
        widths: &[usize],
        cells: &[Vec<String>],
        strong: bool,
    ) -> Vec<String> {
        let height = cells.iter().map(Vec::len).max().unwrap_or(1).max(1);
        (0..height)
            .map(|n| {
                let parts: Vec<String> = (0..widths.len())
                    .map(|c| {
                        let text = cells[c].get(n).map(String::as_str).unwrap_or("");
                        let padded = pad(
                            text,
                            widths[c],
                            table.aligns.get(c).copied().unwrap_or(Alignment::None),
                        );
                        if strong {
                            self.styles.paint(self.styles.strong, padded)
                        } else {
                            padded
                        }
                    })
                    .collect();
                parts.join(GAP)
            })
            .collect()
    }

    /// A table too wide for the text: each row as "heading: cell" lines, rows set apart.
    fn records(&self, all: &[Vec<String>], width: usize) -> Vec<String> {
        let (head, rows) = all.split_first().map(|(h, r)| (h.as_slice(), r)).unwrap_or((&[], &[]));
        let mut lines = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            if i > 0 {
                lines.push(String::new());
            }
            for (c, text) in row.iter().enumerate() {
                let label = head.get(c).map(|h| strip_ansi(h)).unwrap_or_default();
                let line = if label.trim().is_empty() {
                    text.clone()
                } else {
                    format!("{}: {text}", self.styles.paint(self.styles.strong, label.trim()))
                };
                lines.extend(wrap(&line, width, "", "  "));
            }
        }
        lines
    }
}

/// The columns' widths to wrap the cells to, so the table fits `width`; `None` when even the
/// narrowest readable columns cannot.
fn fitted_widths(all: &[Vec<String>], columns: usize, width: usize) -> Option<Vec<usize>> {
    let natural: Vec<usize> = (0..columns)
        .map(|c| all.iter().map(|row| display_width(&row[c])).max().unwrap_or(0))
        .collect();
    let floor: Vec<usize> = (0..columns)
        .map(|c| {
            let word =
                all.iter().flat_map(|row| row[c].split(' ').map(display_width)).max().unwrap_or(0);
            word.max(natural[c].min(MIN_COLUMN)).max(1)
        })
        .collect();
    let gaps = GAP.len() * (columns - 1);
    if floor.iter().sum::<usize>() + gaps > width {
        return None;
    }
    // Narrow the widest column that can still give, one column at a time, until it fits.
    let mut widths = natural;
    while widths.iter().sum::<usize>() + gaps > width {
        let Some(c) = (0..columns).filter(|&c| widths[c] > floor[c]).max_by_key(|&c| widths[c])
        else {
            break;
        };
        widths[c] -= 1;
    }
    Some(widths)
}

/// A cell's text padded to its column's width, as the column is aligned.
fn pad(text: &str, width: usize, align: Alignment) -> String {
    let room = width.saturating_sub(display_width(text));
    match align {
        Alignment::Right => format!("{}{text}", " ".repeat(room)),
        Alignment::Center => {
            format!("{}{text}{}", " ".repeat(room / 2), " ".repeat(room - room / 2))
        }
        Alignment::Left | Alignment::None => format!("{text}{}", " ".repeat(room)),
    }
}
