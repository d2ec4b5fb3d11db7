//! Provenance: the `created_by:` and `session:` lines that say an agent wrote a document, and in
//! which conversation. A claim the writer makes in the file, not proof; the index reads it back for
//! `written_by` filters and listings.
//!
//! Pure text functions. A document that already names its creator is never given a second one.

use super::{json_quote, line_ending};
use crate::markdown::{read_document_meta, split_frontmatter};

/// `text` with `created_by: <created_by>` (and `session: "<session>"`, when one is given and not
/// empty) at the end of its front matter, or in a new front matter block when it has none. A text
/// whose front matter already has a `created_by:` line is returned as it is: the claim it carries
/// is the writer's own. Line endings follow the text's first line.
pub fn stamp_provenance(text: &str, created_by: &str, session: Option<&str>) -> String {
    let mut stamp = vec![format!("created_by: {created_by}")];
    if let Some(session) = session.filter(|session| !session.is_empty()) {
        stamp.push(format!("session: {}", json_quote(session)));
    }
    let newline = line_ending(text.as_bytes());
    let lines: Vec<&str> = text
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    let Some(front) = split_frontmatter(&lines) else {
        let stamp = stamp.join(newline);
        return format!("---{newline}{stamp}{newline}---{newline}{text}");
    };
    // The closing `---` line.
    let end = front.body_start - 1;
    if lines[1..end].iter().any(|line| line.starts_with("created_by:")) {
        return text.to_owned();
    }
    let stamped: Vec<&str> = lines[..end]
        .iter()
        .copied()
        .chain(stamp.iter().map(String::as_str))
        .chain(lines[end..].iter().copied())
        .collect();
    stamped.join(newline)
}

/// The text that replaces `previous`, keeping `previous`'s provenance: when `previous` says an
/// agent created it, `text` is stamped with that `created_by` and `session` (unless it names its own
/// creator). A user's document, with no `created_by`, is never stamped.
pub fn keep_provenance(previous: &str, text: &str) -> String {
    let meta = read_document_meta("", previous);
    if meta.created_by.is_empty() {
        return text.to_owned();
    }
    stamp_provenance(text, &meta.created_by, Some(&meta.session))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::golden;

    #[test]
    fn a_new_document_gets_a_front_matter_block() {
        assert_eq!(
            stamp_provenance("# Plain\n\nText.", "ragdown_write", Some("s9")),
            golden("write_created_file_with_session").as_str().unwrap()
        );
        assert_eq!(
            stamp_provenance("x", "ragdown_write", None),
            "---\ncreated_by: ragdown_write\n---\nx"
        );
        assert_eq!(
            stamp_provenance("x", "ragdown_write", Some("")),
            "---\ncreated_by: ragdown_write\n---\nx"
        );
        assert_eq!(
            stamp_provenance("a\r\nb", "ragdown_write", Some("s")),
            "---\r\ncreated_by: ragdown_write\r\nsession: \"s\"\r\n---\r\na\r\nb"
        );
    }

    #[test]
    fn existing_front_matter_gets_the_stamp_before_its_end() {
        assert_eq!(
            stamp_provenance("---\ntitle: T\n---\nbody\n", "ragdown_write", Some("a \"b\"")),
            "---\ntitle: T\ncreated_by: ragdown_write\nsession: \"a \\\"b\\\"\"\n---\nbody\n"
        );
        assert_eq!(
            stamp_provenance("---\r\ntitle: T\r\n...\r\nbody", "ragdown_write", None),
            "---\r\ntitle: T\r\ncreated_by: ragdown_write\r\n...\r\nbody"
        );
        // A `---` with no end is not front matter: the text gets a block of its own.
        assert_eq!(
            stamp_provenance("---\nno end", "w", None),
            "---\ncreated_by: w\n---\n---\nno end"
        );
    }

    #[test]
    fn an_existing_claim_is_kept() {
        let text = "---\ncreated_by: ragdown_remember\nsession: \"s1\"\n---\nbody";
        assert_eq!(stamp_provenance(text, "ragdown_write", Some("s2")), text);
    }

    #[test]
    fn a_replacement_keeps_the_agents_provenance_and_never_stamps_a_users_document() {
        let agent = "---\ncreated_by: ragdown_remember\nsession: \"s1\"\n---\nold";
        assert_eq!(
            keep_provenance(agent, "# New\n"),
            "---\ncreated_by: ragdown_remember\nsession: \"s1\"\n---\n# New\n"
        );
        assert_eq!(keep_provenance("---\ntitle: Mine\n---\nold", "# New\n"), "# New\n");
        assert_eq!(keep_provenance("old", "# New\n"), "# New\n");
    }
}
