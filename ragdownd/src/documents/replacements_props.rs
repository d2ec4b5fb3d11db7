//! Property tests of `ragdown_edit`'s passage replacements: no input panics, a passage found
//! once is swapped for exactly its new text, and a passage not found refuses the whole edit.

use proptest::prelude::*;
use proptest::sample::{Index, select};

use super::*;
use crate::markdown::chunker::props::{any_text, markdown};

/// Short passages, some of them likely to occur in generated Markdown and some not.
fn passage() -> impl Strategy<Value = String> {
    prop_oneof![
        select(
            &[
                "#", "[[", "Note", "\n", "\r\n", "word", "ü", "🦀", "---", "- ", "  ", "$&", "$1"
            ][..]
        )
        .prop_map(str::to_owned),
        "[a-c\n ü]{0,6}",
        any::<String>(),
    ]
}

/// How many times `needle` occurs in `haystack`, overlapping occurrences counted apart.
fn occurrences(haystack: &str, needle: &str) -> usize {
    haystack
        .char_indices()
        .filter(|(at, _)| haystack[*at..].starts_with(needle))
        .count()
}

proptest! {
    // Cases whose passage occurs more than once are thrown away, hence the rejects allowed.
    #![proptest_config(ProptestConfig { cases: 512, max_global_rejects: 8192, ..ProptestConfig::default() })]

    /// No text and no list of edits panics, and a success counts at least one replacement per
    /// edit.
    #[test]
    fn never_panics(
        text in any_text(),
        edits in prop::collection::vec((passage(), passage(), any::<bool>()), 0..4),
    ) {
        let edits: Vec<Edit> = edits
            .into_iter()
            .map(|(old_text, new_text, replace_all)| Edit { old_text, new_text, replace_all })
            .collect();
        if let Ok((_, replaced)) = apply_replacements(&text, &edits) {
            prop_assert!(replaced >= edits.len());
        }
    }

    /// One edit whose passage (cut from the text itself) occurs exactly once replaces just that
    /// occurrence: the result is the text around it with the new text in between.
    #[test]
    fn a_passage_found_once_is_replaced(
        text in markdown(),
        start in any::<Index>(),
        len in 1..60usize,
        new_text in passage(),
    ) {
        // Compared as `\n`, as the function compares; the CRLF variant is the next property.
        let text = text.replace('\r', "");
        let bounds: Vec<usize> = text.char_indices().map(|(at, _)| at).chain([text.len()]).collect();
        let from = start.index(bounds.len());
        let to = bounds[(from + len).min(bounds.len() - 1)];
        let from = bounds[from];
        let old_text = &text[from..to];
        let new_text = new_text.replace('\r', "");
        prop_assume!(!old_text.is_empty() && old_text != new_text && occurrences(&text, old_text) == 1);

        let edit = Edit { old_text: old_text.to_owned(), new_text: new_text.clone(), replace_all: false };
        let expected = format!("{}{new_text}{}", &text[..from], &text[to..]);
        prop_assert_eq!(apply_replacements(&text, &[edit]).ok(), Some((expected, 1)));
    }

    /// A text whose lines end in CRLF keeps CRLF, the new text's lines included, and the passage
    /// matches with `\n` for its line endings.
    #[test]
    fn crlf_text_is_matched_as_lf_and_keeps_crlf(
        lines in prop::collection::vec("[a-c ü#]{0,12}", 2..8),
        which in any::<Index>(),
        new_text in "[x\n]{1,6}",
    ) {
        let lf = lines.join("\n");
        let old_text = &lines[which.index(lines.len())];
        prop_assume!(!old_text.is_empty() && occurrences(&lf, old_text) == 1 && *old_text != new_text);
        let edit = Edit { old_text: old_text.clone(), new_text: new_text.clone(), replace_all: false };
        let expected = lf.replacen(old_text.as_str(), &new_text, 1).replace('\n', "\r\n");
        prop_assert_eq!(
            apply_replacements(&lf.replace('\n', "\r\n"), &[edit]).ok(),
            Some((expected, 1))
        );
    }

    /// A passage the text does not have refuses the edit with a 404, and no text comes back.
    #[test]
    fn a_missing_passage_is_refused(
        text in any_text(),
        old_text in passage(),
        new_text in passage(),
        replace_all in any::<bool>(),
    ) {
        let missing = old_text.replace("\r\n", "\n");
        prop_assume!(!missing.is_empty() && missing != new_text.replace("\r\n", "\n"));
        prop_assume!(!text.replace("\r\n", "\n").contains(&missing));
        let edit = Edit { old_text, new_text, replace_all };
        let result = apply_replacements(&text, &[edit]);
        prop_assert!(matches!(result, Err(DocError::NotFound(_))), "{:?}", result);
    }
}
