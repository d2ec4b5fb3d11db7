//! Pipe tables as the embedder and the full-text index read them: one short sentence per cell
//! that names the cell's row and column.
//!
//! A sentence embedder reads `| Replicas | 4 | 6 |` under a header row it has long forgotten, and
//! BM25 sees a column's name once however many rows it heads. So in the text that is embedded and
//! indexed (never in the text stored, shown or returned), every GFM table is read out cell by
//! cell, the first column being the row's label:
//!
//! ```text
//! | Setting      | Staging | Production |        Staging Replicas: 4. Production Replicas: 6.
//! |--------------|---------|------------|   ->   Staging Memory limit: 512Mi. Production Memory limit: 2Gi.
//! | Replicas     | 4       | 6          |
//! | Memory limit | 512Mi   | 2Gi        |
//! ```
//!
//! The question "what is the staging memory limit" then meets its three words in one sentence.
//! On the runbook benchmark this took minilm's top-1 on table questions from 43% to 60% (and
//! overall from 81.9% to 84.3%); a row-per-sentence form (`Setting: Replicas; Staging: 4; ...`)
//! changed nothing (`bench/results/README.md`). A one-column table reads `Header: cell.` per row.
//!
//! Tables are found by pulldown-cmark's GFM parser, so escaped pipes, inline code and tables inside
//! lists are read as Markdown reads them, and a pipe in a code block is left alone. What is not a
//! table comes through byte for byte.

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// The text with each pipe table replaced by one `Column Row: cell.` sentence per body cell.
pub fn linearize_tables(text: &str) -> Cow<'_, str> {
    if !text.contains('|') {
        return Cow::Borrowed(text);
    }
    let tables = find_tables(text);
    if tables.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (range, table) in tables {
        out.push_str(&text[at..range.start]);
        out.push_str(&table.sentences());
        at = range.end;
        // The table's range ends after its last row's newline; keep the line break it had.
        if text[..at].ends_with('\n') {
            out.push('\n');
        }
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// A parsed table: header cells and body rows, each cell as plain text.
#[derive(Debug, Default)]
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// One line per body row, one sentence per cell after the row's label; a table with no body
    /// keeps its header as one line.
    fn sentences(&self) -> String {
        if self.rows.is_empty() {
            return format!("{}.", self.header.join("; "));
        }
        let lines: Vec<String> = self
            .rows
            .iter()
            .map(|row| {
                let label = row.first().map(String::as_str).unwrap_or_default();
                let pairs: Vec<String> = row
                    .iter()
                    .enumerate()
                    .skip(1)
                    .filter(|(_, cell)| !cell.is_empty())
                    .map(|(i, cell)| match self.header.get(i).filter(|h| !h.is_empty()) {
                        Some(name) => format!("{name} {label}: {cell}"),
                        None => format!("{label}: {cell}"),
                    })
                    .collect();
                if pairs.is_empty() {
                    // A one-column table, or a row with nothing but its label.
                    return match self.header.first().filter(|h| !h.is_empty()) {
                        Some(name) => format!("{name}: {label}."),
                        None => format!("{label}."),
                    };
                }
                format!("{}.", pairs.join(". "))
            })
            .collect();
        lines.join("\n")
    }
}

/// Every top-level table's byte range in `text` and its cells, in order.
fn find_tables(text: &str) -> Vec<(Range<usize>, Table)> {
    let mut found = Vec::new();
    let mut current: Option<(usize, Table)> = None;
    let mut row: Vec<String> = Vec::new();
    let mut cell: Option<String> = None;
    for (event, range) in Parser::new_ext(text, Options::ENABLE_TABLES).into_offset_iter() {
        match event {
            Event::Start(Tag::Table(_)) => current = Some((range.start, Table::default())),
            Event::End(TagEnd::Table) => {
                if let Some((start, table)) = current.take() {
                    found.push((start..range.end, table));
                }
            }
            Event::Start(Tag::TableHead | Tag::TableRow) => row.clear(),
            Event::End(TagEnd::TableHead) => {
                if let Some((_, table)) = current.as_mut() {
                    table.header = std::mem::take(&mut row);
                }
            }
            Event::End(TagEnd::TableRow) => {
                if let Some((_, table)) = current.as_mut() {
                    table.rows.push(std::mem::take(&mut row));
                }
            }
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                let text = cell.take().unwrap_or_default();
                row.push(text.split_whitespace().collect::<Vec<_>>().join(" "));
            }
            Event::Text(t) | Event::Code(t) | Event::InlineHtml(t) | Event::Html(t) => {
                if let Some(cell) = cell.as_mut() {
                    cell.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(cell) = cell.as_mut() {
                    cell.push(' ');
                }
            }
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cell_names_its_column_and_row() {
        let text = "Settings per environment.\n\n| Setting | Staging | Production |\n|---|---|---|\n| Replicas | 4 | 6 |\n| DB instance class | `db.m5.large` | **db.m7g.xlarge** |\n\nAfter.";
        assert_eq!(
            linearize_tables(text),
            "Settings per environment.\n\nStaging Replicas: 4. Production Replicas: 6.\n\
             Staging DB instance class: db.m5.large. Production DB instance class: db.m7g.xlarge.\n\nAfter."
        );
    }

    #[test]
    fn text_without_a_table_is_untouched() {
        let text = "a | b is not a table\n\n```\n| x | y |\n|---|---|\n| 1 | 2 |\n```\n";
        assert!(matches!(linearize_tables(text), Cow::Borrowed(_)));
        assert!(matches!(linearize_tables("no pipes"), Cow::Borrowed(_)));
    }

    #[test]
    fn escaped_pipes_empty_cells_and_missing_headers() {
        // GFM drops cells past the header's count; an empty header leaves the row label alone.
        let text = "| a | | c |\n|---|---|---|\n| x \\| y | 2 | |\n| 1 | 2 | 3 | 4 |";
        assert_eq!(linearize_tables(text), "x | y: 2.\n1: 2. c 1: 3.");
    }

    #[test]
    fn one_column_tables_and_label_only_rows_keep_their_label() {
        assert_eq!(linearize_tables("| Name |\n|---|\n| api |\n"), "Name: api.\n");
        assert_eq!(linearize_tables("| | b |\n|---|---|\n| x | |\n"), "x.\n");
    }

    #[test]
    fn a_header_only_table_keeps_its_header() {
        assert_eq!(linearize_tables("| a | b |\n|---|---|\n"), "a; b.\n");
    }

    #[test]
    fn a_table_inside_a_list_item_is_read_out_too() {
        let text = "- item\n\n  | k | v |\n  |---|---|\n  | a | 1 |\n";
        assert!(linearize_tables(text).contains("v a: 1."));
    }
}
