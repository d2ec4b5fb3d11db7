//! `ragdown_write`'s append: new text added at the end of a document, or at the end of the section
//! under a heading, leaving everything else as it was. A pure text function; the caller reads the
//! file and writes the result against the version it read.

use super::{DocError, line_ending, with_line_ending};
use crate::markdown::trim_js;
// The section rules must be the ones `ragdown_read_doc` narrows a `Note#Heading` link with.
use crate::markdown::links::heading_range;

/// `text` with `addition` (trailing whitespace trimmed) after the last non-blank line of the whole
/// text, or of the section under `heading` (matched as `ragdown_read_doc` matches an anchor), with
/// one blank line before it and one line break after it. A blank `heading` means the whole text.
/// The result keeps the line ending of `text`'s first line.
///
/// `shown` is the document's path for the 404 when there is no such heading.
pub fn append_text(text: &str, addition: &str, heading: Option<&str>, shown: &str) -> Result<String, DocError> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    let added: Vec<&str> = addition
        .trim_end()
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();

    // `start` is the 0-based line after the heading; `end` the 0-based line the section stops
    // before. The heading line itself is never passed over when blank lines are dropped.
    let (start, end) = match heading.filter(|heading| !heading.is_empty()) {
        None => (0, lines.len()),
        Some(heading) => heading_range(&lines, heading)
            .ok_or_else(|| DocError::NotFound(format!("no heading \"{heading}\" in {shown}")))?,
    };
    let mut last = end;
    while last > start && trim_js(lines[last - 1]).is_empty() {
        last -= 1;
    }

    let mut next: Vec<&str> = Vec::with_capacity(lines.len() + added.len() + 2);
    next.extend(&lines[..last]);
    if last > 0 {
        next.push("");
    }
    next.extend(&added);
    next.push("");
    next.extend(&lines[end..]);
    Ok(with_line_ending(&next.join("\n"), line_ending(text.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::golden;
    use crate::error::ErrorKind as Kind;
    use crate::error::Kinded;

    const BACKUPS: &str = include_str!("../../tests/data/ops-backups.md");

    #[test]
    fn appends_under_a_heading_then_at_the_end() {
        // Restore is nested in Backups, so the Backups section ends at the end of the file.
        let once = append_text(BACKUPS, "Check the checksum first.", Some("Backups"), "ops/backups.md").unwrap();
        let twice = append_text(&once, "## Offsite\n\nS3, weekly.", None, "ops/backups.md").unwrap();
        assert_eq!(twice, golden("append_under_heading_result").as_str().unwrap());
    }

    #[test]
    fn appends_between_sections_keeping_the_next_heading() {
        let case = golden("append_between_sections");
        let before = case["before"].as_str().unwrap();
        let args = &case["args"];
        let after = append_text(before, args["text"].as_str().unwrap(), args["heading"].as_str(), "a.md").unwrap();
        assert_eq!(after, case["after"].as_str().unwrap());
    }

    #[test]
    fn an_empty_document_or_section_gets_no_leading_blank_line_beyond_one() {
        assert_eq!(append_text("", "first\n\n", None, "a.md").unwrap(), "first\n");
        assert_eq!(append_text("# A\n", "x", Some("A"), "a.md").unwrap(), "# A\n\nx\n");
        assert_eq!(
            append_text("# A\n## B\n", "x", Some("A#B"), "a.md").unwrap(),
            "# A\n## B\n\nx\n"
        );
        // A blank heading is the whole document.
        assert_eq!(append_text("a\n\n\n", "b", Some(""), "a.md").unwrap(), "a\n\nb\n");
    }

    #[test]
    fn a_crlf_document_stays_crlf() {
        assert_eq!(
            append_text("# A\r\n\r\nx\r\n# B\r\n", "y\nz", Some("a"), "a.md").unwrap(),
            "# A\r\n\r\nx\r\n\r\ny\r\nz\r\n\r\n# B\r\n"
        );
    }

    #[test]
    fn a_missing_heading_is_a_404_naming_the_path() {
        let err = append_text(BACKUPS, "x", Some("Nope"), "ops/backups.md").unwrap_err();
        assert_eq!(
            (err.kind(), err.to_string().as_str()),
            (Kind::NotFound, "no heading \"Nope\" in ops/backups.md")
        );
    }
}
