//! A graded file's line on stdout: JSON lines, Exercism's results, or a CSV row.

use crate::checks::{Report, Status};
use crate::cli::GradeFormat;
use crate::lesson::Lesson;

/// One line of output for a report; the CSV header comes before the first. Values are shortened
/// as `check --format json` shortens them, and control characters never go out raw.
pub(crate) fn line(report: &Report, lesson: &Lesson, format: GradeFormat, first: bool) -> String {
    match format {
        GradeFormat::Jsonl => {
            let json = serde_json::to_string(&crate::render::check::shortened(report))
                .unwrap_or_else(|e| format!("{{\"status\": \"error\", \"message\": \"{e}\"}}"));
            format!("{}\n", crate::text::inert::json(json))
        }
        GradeFormat::Exercism => {
            let value = crate::render::exercism::results_value(report, |id| {
                lesson.check(id).and_then(|c| c.task)
            });
            let json = serde_json::to_string(&value).unwrap_or_else(|e| {
                format!("{{\"version\": 3, \"status\": \"error\", \"message\": \"{e}\"}}")
            });
            format!("{}\n", crate::text::inert::json(json))
        }
        // The page needs every report, so it is written once all are in.
        GradeFormat::Html => String::new(),
        GradeFormat::Csv => {
            let mut out = String::new();
            if first {
                let mut header: Vec<String> =
                    ["file", "status", "passed", "total"].map(String::from).to_vec();
                header.extend(report.checks.iter().map(|c| c.id.clone()));
                out.push_str(&csv_row(&header));
            }
            let mut row = vec![
                report.file.clone(),
                status_word(report.status).to_string(),
                report.passed.to_string(),
                report.total.to_string(),
            ];
            row.extend(report.checks.iter().map(|c| status_word(c.status).to_string()));
            out.push_str(&csv_row(&row));
            out
        }
    }
}

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Pass => "pass",
        Status::Fail => "fail",
        Status::Error => "error",
        Status::NotRun => "not_run",
    }
}

/// A CSV row as RFC 4180 has it: a field with a comma or a quote is quoted, and its quotes
/// doubled. Control characters are escaped, and a cell that a spreadsheet would take for a
/// formula (starting with `=`, `+`, `-` or `@`) gets a leading `'`, as OWASP advises against
/// CSV injection. Short enough that a crate would weigh more than it saves.
fn csv_row(fields: &[String]) -> String {
    let cells: Vec<String> = fields
        .iter()
        .map(|f| {
            let mut cell = crate::text::inert::one_line(f).into_owned();
            if cell.starts_with(['=', '+', '-', '@']) {
                cell.insert(0, '\'');
            }
            if cell.contains([',', '"']) {
                format!("\"{}\"", cell.replace('"', "\"\""))
            } else {
                cell
            }
        })
        .collect();
    format!("{}\r\n", cells.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let row =
            csv_row(&["a,b".into(), "say \"hi\"".into(), "two\nlines".into(), "plain".into()]);
        assert_eq!(row, "\"a,b\",\"say \"\"hi\"\"\",two\\nlines,plain\r\n");
    }

    #[test]
    fn csv_cells_that_a_spreadsheet_would_run_are_neutralised() {
        let row = csv_row(&[
            "=HYPERLINK(\"x\")".into(),
            "+1".into(),
            "-2".into(),
            "@SUM(A1)".into(),
            "\tx".into(),
            "a=b".into(),
        ]);
        assert_eq!(row, "\"'=HYPERLINK(\"\"x\"\")\",'+1,'-2,'@SUM(A1),\\tx,a=b\r\n");
        assert_eq!(csv_row(&["a\x1b[2Jb\rc".into()]), "a\\x1b[2Jb\\rc\r\n");
    }
}
