//! Chinese, Japanese and Korean text: which characters are CJK letters (and how many a text
//! holds), the bigrams the full-text
//! index and its queries use for them, where a CJK sentence ends, and how much a prompt holds.
//!
//! CJK text has no spaces between words (Korean has spaces, but glues particles to its words:
//! `데이터베이스를`), so anything here that splits on spaces or looks for word boundaries needs
//! these rules instead. Pure functions of characters: no dictionary (jieba and lindera need one on
//! disk, and nothing may be downloaded at run time), no index, no I/O.

use unicode_normalization::UnicodeNormalization;

/// Whether `c` is a letter of a CJK script: Han ideographs (with `々`, `〆`, `〇`), Hiragana,
/// Katakana (full- and half-width, with the prolonged sound mark `ー`/`ｰ` and the half-width voicing
/// marks), and Hangul (syllables and jamo). CJK punctuation (`、。「」・`) is not.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3005..=0x3007            // 々 〆 〇
        | 0x3041..=0x309F          // Hiragana (with ゝゞ and the combining voicing marks)
        | 0x30A1..=0x30FA          // Katakana letters
        | 0x30FC..=0x30FF          // ー ヽ ヾ ヿ
        | 0x31F0..=0x31FF          // Katakana phonetic extensions
        | 0x3400..=0x4DBF          // Han extension A
        | 0x4E00..=0x9FFF          // Han
        | 0xF900..=0xFAFF          // Han compatibility ideographs
        | 0xFF66..=0xFF9F          // half-width Katakana, ｰ and the voicing marks
        | 0x1100..=0x11FF          // Hangul jamo
        | 0x3131..=0x318E          // Hangul compatibility jamo
        | 0xA960..=0xA97F          // Hangul jamo extended A
        | 0xAC00..=0xD7A3          // Hangul syllables
        | 0xD7B0..=0xD7FF          // Hangul jamo extended B
        | 0x20000..=0x3FFFF // Han extensions B onwards, compatibility supplement
    )
}

/// Whether `text` holds any CJK letter.
pub fn has_cjk(text: &str) -> bool {
    text.chars().any(is_cjk)
}

/// How many of a text's letters are CJK.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mix {
    /// CJK letters ([`is_cjk`]).
    pub cjk: u64,
    /// Letters of any script, CJK included (digits, punctuation and spaces are not).
    pub letters: u64,
}

impl Mix {
    /// The mix of `text`.
    pub fn of(text: &str) -> Self {
        let mut mix = Mix::default();
        for c in text.chars().filter(|c| c.is_alphabetic()) {
            mix.letters += 1;
            mix.cjk += u64::from(is_cjk(c));
        }
        mix
    }

    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: Mix) {
        self.cjk += other.cjk;
        self.letters += other.letters;
    }

    /// The CJK share of the letters, 0 to 1 (0 with no letters).
    pub fn share(&self) -> f64 {
        if self.letters == 0 {
            0.0
        } else {
            self.cjk as f64 / self.letters as f64
        }
    }
}

/// `text` with every run of CJK letters replaced by its overlapping bigrams, space-separated and
/// set off from what surrounds it by a space (`使用pg_restore恢复数据库` → `使用 pg_restore 恢复 复数
/// 数据 据库 `); a run of one letter stays as it is. Everything else is left exactly as it was, so
/// text without CJK letters comes back unchanged. Each run is NFKC-normalised first, so
/// half-width Katakana (`ﾊﾞｯｸｱｯﾌﾟ`) and decomposed Hangul (as macOS file systems write it) give
/// the same bigrams as their usual forms.
///
/// This is the Elasticsearch `cjk` analyzer's rule (the `cjk_width` and `cjk_bigram` filters): a
/// word of two to four letters inside a sentence is then one to three bigrams that a query for it
/// holds too, without a dictionary.
pub fn bigrams(text: &str) -> String {
    if !has_cjk(text) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() * 2);
    let mut run = String::new();
    // Whether the last character out is the space that set off a run; a space after the run in
    // the text is then not written twice.
    let mut spaced = false;
    let flush = |run: &mut String, out: &mut String, spaced: &mut bool| {
        if run.is_empty() {
            return;
        }
        let letters: Vec<char> = run.nfkc().collect();
        run.clear();
        if !out.is_empty() && !out.ends_with(char::is_whitespace) {
            out.push(' ');
        }
        if letters.len() == 1 {
            out.push(letters[0]);
        } else {
            for (i, pair) in letters.windows(2).enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.extend(pair);
            }
        }
        out.push(' ');
        *spaced = true;
    };
    for c in text.chars() {
        if is_cjk(c) {
            run.push(c);
        } else {
            flush(&mut run, &mut out, &mut spaced);
            if !(c == ' ' && spaced) {
                out.push(c);
            }
            spaced = false;
        }
    }
    flush(&mut run, &mut out, &mut spaced);
    out
}

/// Whether `c` ends a sentence without needing a space after it: the ideographic full stop and
/// the full-width and half-width forms of `.`, `!`, `?` and `;` (`。．｡！？；`). A full-width `；`
/// ends a clause that stands as a sentence in CJK prose, so it counts; the ideographic comma `、`
/// and `，` do not.
pub fn ends_sentence(c: char) -> bool {
    matches!(c, '。' | '．' | '｡' | '！' | '？' | '；')
}

/// What a prompt holds, in characters' worth: each CJK letter counts [`CJK_LETTER_WEIGHT`], any
/// other character 1. An English word averages five or six characters and a Chinese one two
/// letters, so `怎么恢复备份？` (6 letters and a mark) weighs 13, as much as `restore backups`
/// nearly, while a prompt without CJK letters weighs exactly its length in characters.
pub fn weight(text: &str) -> usize {
    text.chars()
        .map(|c| if is_cjk(c) { CJK_LETTER_WEIGHT } else { 1 })
        .sum()
}

/// Whether a match ending (or starting) with `edge` is cut off from the text by `neighbour`, as a
/// whole word must be: true unless `neighbour` is a letter, digit or `_` that continues the word.
/// CJK text has no spaces, so a CJK letter on either side never continues a word:
/// `数据库备份` stands whole in `怎么做数据库备份？`, and `Bluejay` in `Bluejay的部署`. Between
/// other characters this is the usual rule.
pub fn is_word_boundary(edge: char, neighbour: Option<char>) -> bool {
    neighbour.is_none_or(|n| !(n.is_alphanumeric() || n == '_') || is_cjk(n) || is_cjk(edge))
}

/// How many characters' worth one CJK letter is, in [`weight`].
pub const CJK_LETTER_WEIGHT: usize = 2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cjk_letters_are_told_from_punctuation_and_latin() {
        for c in ['数', '備', 'ひ', 'カ', 'ー', 'ｶ', 'ｰ', 'ﾞ', '한', '々', '𠀋'] {
            assert!(is_cjk(c), "{c}");
        }
        for c in ['a', 'é', '1', '_', '。', '、', '・', '「', '！', '？', ' ', '\u{3000}'] {
            assert!(!is_cjk(c), "{c:?}");
        }
    }

    #[test]
    fn runs_become_overlapping_bigrams_and_the_rest_is_kept() {
        assert_eq!(bigrams("数据库备份"), "数据 据库 库备 备份 ");
        assert_eq!(
            bigrams("使用pg_restore恢复数据库"),
            "使用 pg_restore 恢复 复数 数据 据库 "
        );
        assert_eq!(bigrams("库"), "库 ");
        assert_eq!(bigrams("a 库 b"), "a 库 b");
        assert_eq!(bigrams("再起動する。"), "再起 起動 動す する 。");
        assert_eq!(bigrams("데이터베이스를 복원"), "데이 이터 터베 베이 이스 스를 복원 ");
        assert_eq!(bigrams("db.m5.large的配置"), "db.m5.large 的配 配置 ");
        let english = "Restore `pg_restore` from db.m5.large, then  run it.\n\nDone";
        assert_eq!(bigrams(english), english, "text without CJK letters is untouched");
    }

    #[test]
    fn width_and_composition_do_not_change_the_bigrams() {
        assert_eq!(bigrams("ﾊﾞｯｸｱｯﾌﾟ"), bigrams("バックアップ"));
        let decomposed: String = "백업".nfd().collect();
        assert_ne!(decomposed, "백업");
        assert_eq!(bigrams(&decomposed), bigrams("백업"));
    }

    #[test]
    fn cjk_letters_end_words_on_either_side() {
        assert!(is_word_boundary('数', Some('做')));
        assert!(is_word_boundary('y', Some('的')));
        assert!(is_word_boundary('数', Some('a')));
        assert!(!is_word_boundary('y', Some('s')));
        assert!(!is_word_boundary('.', Some('x')));
        assert!(is_word_boundary('y', Some(' ')));
        assert!(is_word_boundary('y', None));
    }

    #[test]
    fn cjk_letters_are_counted_apart_from_other_letters() {
        assert_eq!(Mix::of("数据库备份"), Mix { cjk: 5, letters: 5 });
        assert_eq!(Mix::of("バックアップ復元"), Mix { cjk: 8, letters: 8 });
        assert_eq!(Mix::of("백업 절차"), Mix { cjk: 4, letters: 4 });
        assert_eq!(
            Mix::of("ﾊﾞｯｸｱｯﾌﾟ"),
            Mix { cjk: 8, letters: 8 },
            "half-width katakana, voicing marks apart"
        );
        // Digits, punctuation and spaces are not letters; Latin, Greek and Cyrillic are not CJK.
        assert_eq!(Mix::of("pg_restore 2024, αβ, привет。！"), Mix { cjk: 0, letters: 17 });
        assert_eq!(Mix::of("").share(), 0.0);
    }

    #[test]
    fn cjk_letters_weigh_two_characters() {
        assert_eq!(weight("restore backups"), 15);
        assert_eq!(weight("怎么恢复备份？"), 13);
        assert_eq!(weight("バックアップ復元"), 16);
    }
}
