//! Text folded for matching what a person types against titles, paths and aliases, so that forms
//! which read the same match: NFKC (full-width Latin and digits to ASCII, half-width katakana to
//! full-width, compatibility forms such as ㍿ to what they stand for, and decomposed text such as
//! macOS's NFD file names composed), then lowercased. Also where typed words fall in a text, in
//! that text's own UTF-16 offsets and on whole characters, for highlighting. Pure: no React.
//!
//! Folding changes lengths (`ﾊﾞ` is one `バ`, `㍿` is four characters), so offsets in the folded
//! text are not offsets in the original: `matchRanges` folds one grapheme at a time and maps back.

/** `text` as it is compared: NFKC, lowercased. */
export function fold(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

const segmenter = typeof Intl !== "undefined" && "Segmenter" in Intl ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : undefined;

/** `text`'s user-perceived characters (a base and its marks, an emoji sequence), or its code points. */
function graphemes(text: string): string[] {
  return segmenter ? Array.from(segmenter.segment(text), (s) => s.segment) : Array.from(text);
}

/** A `[start, end)` range of UTF-16 offsets. */
export type Range = readonly [number, number];

/**
 * Where any of `words` (already folded, as `words()` gives them) occurs in `text`, as ranges of
 * `text` itself: sorted, merged, and never cutting a character (a surrogate pair, an emoji
 * sequence, a letter and its combining marks) in two.
 */
export function matchRanges(text: string, words: readonly string[]): Range[] {
  const wanted = words.filter(Boolean);
  if (wanted.length === 0 || !text) return [];
  // The folded text, and for each of its UTF-16 units the original range it came from.
  let folded = "";
  const from: Range[] = [];
  let at = 0;
  for (const g of graphemes(text)) {
    const f = fold(g);
    folded += f;
    for (let i = 0; i < f.length; i++) from.push([at, at + g.length]);
    at += g.length;
  }
  const hits: [number, number][] = [];
  for (const w of wanted) {
    for (let i = folded.indexOf(w); i >= 0; i = folded.indexOf(w, i + 1)) hits.push([from[i]![0], from[i + w.length - 1]![1]]);
  }
  hits.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const [s, e] of hits) {
    const last = merged[merged.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return merged;
}
