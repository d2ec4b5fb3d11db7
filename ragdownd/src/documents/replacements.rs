//! `ragdown_edit`'s passage replacements: exact passages swapped for new text, in order, all or
//! none. When a passage is not found the refusal shows the passage the agent most likely meant, so
//! it can retry without reading the document again.
//!
//! Pure text functions; the caller reads the file, checks its version and writes the result.

use std::sync::LazyLock;

use regex::Regex;

use super::{DocError, line_ending, with_line_ending};
use crate::markdown::trim_js;

/// One replacement: an exact passage of the document and the text that takes its place.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Edit {
    /// The passage to replace, character for character (line endings compared as `\n`).
    pub old_text: String,
    /// What replaces it; empty deletes the passage.
    pub new_text: String,
    /// Replace every occurrence, where otherwise the passage must occur exactly once.
    pub replace_all: bool,
}

/// Splits text into the words the nearest-passage search looks for.
static WHITESPACE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s+").expect("valid whitespace regex"));

/// `text` with each edit made in order, each on the result of the one before, and how many
/// passages were replaced. Line endings are compared as `\n`; a text whose first line ends in CRLF
/// comes back with CRLF throughout.
///
/// Refused, with nothing changed, with a 400 for an edit whose old and new text are the same (or
/// whose old text is empty), a 404 for a passage the text does not have, and a 409 for one it has
/// more than once without `replace_all`. Messages start `edit i of n: `.
pub fn apply_replacements(text: &str, edits: &[Edit]) -> Result<(String, usize), DocError> {
    let ending = line_ending(text.as_bytes());
    let mut next = text.replace("\r\n", "\n");
    let mut replaced = 0;
    for (index, edit) in edits.iter().enumerate() {
        let which = format!("edit {} of {}", index + 1, edits.len());
        let old_text = edit.old_text.replace("\r\n", "\n");
        let new_text = edit.new_text.replace("\r\n", "\n");
        if old_text == new_text {
            return Err(DocError::BadRequest(format!(
                "{which}: old_text and new_text are the same, so nothing was written"
            )));
        }
        if old_text.is_empty() {
            return Err(DocError::BadRequest(format!(
                "{which}: old_text is empty, so nothing was written"
            )));
        }

        let occurrences = next.matches(old_text.as_str()).count();
        if occurrences == 0 {
            return Err(DocError::NotFound(not_found(&which, index, &next, &old_text)));
        }
        if occurrences > 1 && !edit.replace_all {
            return Err(DocError::conflict(format!(
                "{which}: old_text is in the document {occurrences} times, so nothing was written. Add the text around the one you mean until it matches once, or pass replace_all: true"
            )));
        }
        // `str::replace` takes the new text literally: no `$&` or `$1` expansion.
        next = next.replace(old_text.as_str(), &new_text);
        replaced += occurrences;
    }
    let next = if ending == "\n" {
        next
    } else {
        with_line_ending(&next, ending)
    };
    Ok((next, replaced))
}

/// The 404 message for an edit whose passage is missing.
fn not_found(which: &str, index: usize, text: &str, old_text: &str) -> String {
    let fix = match nearest_passage(text, old_text) {
        Some(nearest) => {
            // Lines are numbered as on disk only until an earlier edit has moved them.
            let lines = if index == 0 { format!(" (lines {}-{})", nearest.start, nearest.end) } else { String::new() };
            format!("The nearest passage{lines} follows; copy old_text from it exactly:\n{}", nearest.text)
        }
        None => "It must match character for character, whitespace included: read the document again and copy the passage from it".to_owned(),
    };
    format!("{which}: old_text is not in the document, so nothing was written. {fix}")
}

/// A passage of a text and the 1-based, inclusive lines it is on.
#[derive(Debug, PartialEq, Eq)]
struct Passage {
    start: usize,
    end: usize,
    text: String,
}

/// The passage `old_text` most likely meant: the first that has its words with any whitespace
/// between them, or else the lines from the first one equal (trimmed) to `old_text`'s first line,
/// as many as `old_text` has.
fn nearest_passage(text: &str, old_text: &str) -> Option<Passage> {
    let words: Vec<String> = WHITESPACE
        .split(old_text)
        .filter(|word| !word.is_empty())
        .map(regex::escape)
        .collect();
    if words.is_empty() {
        return None;
    }
    // A pattern past the regex size limit (a huge old_text) just skips to the line rule.
    if let Some(found) = Regex::new(&words.join(r"\s+"))
        .ok()
        .and_then(|spaced| spaced.find(text))
    {
        let start = text[..found.start()].split('\n').count();
        let end = start + found.as_str().split('\n').count() - 1;
        return Some(Passage {
            start,
            end,
            text: found.as_str().to_owned(),
        });
    }

    let old_lines: Vec<&str> = trim_js(old_text).split('\n').collect();
    let first_line = trim_js(old_lines[0]);
    let lines: Vec<&str> = text.split('\n').collect();
    let first = lines.iter().position(|line| trim_js(line) == first_line)?;
    let passage = &lines[first..lines.len().min(first + old_lines.len())];
    Some(Passage {
        start: first + 1,
        end: first + passage.len(),
        text: passage.join("\n"),
    })
}

#[cfg(test)]
#[path = "replacements_props.rs"]
mod props;

#[cfg(test)]
mod tests {
    use regex::Regex;

    use super::*;
    use crate::documents::golden;
    use crate::error::ErrorKind as Kind;
    use crate::error::Kinded;

    const TEXT: &str = "# Backups\n\nNightly snapshots.\n\n## Restore\n\nRun pg_restore twice.\n";

    fn edit(old_text: &str, new_text: &str) -> Edit {
        Edit {
            old_text: old_text.into(),
            new_text: new_text.into(),
            replace_all: false,
        }
    }

    fn refusal(text: &str, edits: &[Edit]) -> (Kind, String) {
        let err = apply_replacements(text, edits).unwrap_err();
        (err.kind(), err.to_string())
    }

    #[test]
    fn swaps_one_passage_and_leaves_the_rest() {
        assert_eq!(
            apply_replacements(TEXT, &[edit("twice", "once")]).unwrap(),
            (
                "# Backups\n\nNightly snapshots.\n\n## Restore\n\nRun pg_restore once.\n".to_owned(),
                1
            )
        );
    }

    #[test]
    fn makes_each_edit_on_the_result_of_the_one_before() {
        let edits = [
            edit("Nightly", "Hourly"),
            edit("Hourly snapshots.", "Hourly snapshots, kept a week."),
            edit("\n## Restore\n\nRun pg_restore twice.\n", ""),
        ];
        assert_eq!(
            apply_replacements(TEXT, &edits).unwrap(),
            ("# Backups\n\nHourly snapshots, kept a week.\n".to_owned(), 3)
        );
    }

    #[test]
    fn refuses_missing_repeated_and_unchanged_passages() {
        let (status, message) = refusal(TEXT, &[edit("thrice", "once")]);
        assert_eq!(status, Kind::NotFound);
        assert_eq!(
            message,
            "edit 1 of 1: old_text is not in the document, so nothing was written. It must match character for character, whitespace included: read the document again and copy the passage from it"
        );
        // Whitespace counts: a passage matches exactly or not at all.
        assert_eq!(refusal(TEXT, &[edit("Nightly  snapshots", "x")]).0, Kind::NotFound);
        assert_eq!(
            refusal(TEXT, &[edit("twice", "once"), edit("s", "z")]),
            (
                Kind::Conflict,
                "edit 2 of 2: old_text is in the document 6 times, so nothing was written. Add the text around the one you mean until it matches once, or pass replace_all: true".to_owned()
            )
        );
        assert_eq!(
            refusal(TEXT, &[edit("twice", "twice")]),
            (
                Kind::Invalid,
                "edit 1 of 1: old_text and new_text are the same, so nothing was written".to_owned()
            )
        );
        assert_eq!(
            refusal(TEXT, &[edit("", "x")]),
            (
                Kind::Invalid,
                "edit 1 of 1: old_text is empty, so nothing was written".to_owned()
            )
        );
    }

    #[test]
    fn the_first_failing_edit_is_named_and_nothing_applies() {
        let after = "# Backups\n\nHourly snapshots.\n\n## Restore\n\nRun pg_restore once.\n\nThen vacuum.";
        let message = refusal(after, &[edit("Hourly", "Daily"), edit("Run pg_restore twice.", "x")]).1;
        assert!(
            Regex::new(golden("edit_partial_error_regex").as_str().unwrap())
                .unwrap()
                .is_match(&message)
        );
    }

    #[test]
    fn shows_the_passage_a_missing_one_most_likely_meant() {
        let message = refusal(TEXT, &[edit("Nightly  snapshots.\n\n\n## Restore", "x")]).1;
        assert!(
            message.ends_with(
                "The nearest passage (lines 3-5) follows; copy old_text from it exactly:\nNightly snapshots.\n\n## Restore"
            ),
            "{message}"
        );
        // What follows its first line is out of date: the lines there now are what it is shown.
        let message = refusal(TEXT, &[edit("## Restore\n\nRun pg_restore (once).", "x")]).1;
        assert!(
            message
                .ends_with("(lines 5-7) follows; copy old_text from it exactly:\n## Restore\n\nRun pg_restore twice.")
        );
        // After an earlier edit the lines are no longer the file's, so none are named.
        let message = refusal(TEXT, &[edit("# Backups\n\n", ""), edit("Nightly  snapshots.", "x")]).1;
        assert!(message.ends_with("The nearest passage follows; copy old_text from it exactly:\nNightly snapshots."));

        let after = "# Backups\n\nHourly snapshots.\n\n## Restore\n\nRun pg_restore once.\n\nThen vacuum.";
        let message = refusal(after, &[edit("Hourly  snapshots.", "Daily snapshots.")]).1;
        let golden = Regex::new(&format!("(?s){}", golden("edit_nearest_regex").as_str().unwrap())).unwrap();
        assert!(golden.is_match(&message), "{message}");
    }

    #[test]
    fn replaces_every_occurrence_when_asked_taking_the_new_text_literally() {
        let all = Edit {
            old_text: "a.b".into(),
            new_text: "$& $1".into(),
            replace_all: true,
        };
        assert_eq!(
            apply_replacements("a.b a.b", &[all]).unwrap(),
            ("$& $1 $& $1".to_owned(), 2)
        );
    }

    #[test]
    fn matches_across_crlf_and_keeps_it() {
        let (text, replaced) = apply_replacements("One\r\nTwo\r\nThree\r\n", &[edit("One\nTwo", "1\n2")]).unwrap();
        assert_eq!((text.as_str(), replaced), ("1\r\n2\r\nThree\r\n", 1));
        let (text, _) =
            apply_replacements("# A\r\n\r\nfirst\r\nsecond\r\n", &[edit("first\r\nsecond", "one\ntwo")]).unwrap();
        assert_eq!(text, "# A\r\n\r\none\r\ntwo\r\n");
    }
}
