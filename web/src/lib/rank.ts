//! Matching documents by typed words: a query's words, and the quick switcher's ranking of
//! documents by title, path or alias. Both sides are folded (`fold.ts`: NFKC, lowercase), so a
//! word is found inside a CJK title that has no spaces, and full-width, half-width and decomposed
//! forms of the same text match. Pure: no React, no requests.
import { fold } from "./fold";

/** The words of a query, folded (NFKC, lowercased); none for blank input. */
export function words(query: string): string[] {
  return fold(query).split(/\s+/).filter(Boolean);
}

/** What ranking reads of a document (the API's `DocInfo` has it). */
export interface Rankable {
  title: string;
  path: string;
  aliases: readonly string[];
  mtime_ms: number;
}

/**
 * The quick switcher's matches: documents whose title, path or an alias hold every word, best
 * first (the title starting with the query, then holding it whole, then the rest), at most `limit`.
 */
export function rankDocs<T extends Rankable>(docs: readonly T[], query: string, limit: number): T[] {
  const want = words(query);
  const whole = want.join(" ");
  const scored: { doc: T; score: number }[] = [];
  for (const doc of docs) {
    const { title, text, aliases } = folded(doc);
    if (!want.every((w) => text.includes(w))) continue;
    const alias = aliases.some((a) => a.startsWith(whole));
    const score = title.startsWith(whole) ? 0 : title.includes(whole) ? 1 : alias ? 2 : 3;
    scored.push({ doc, score });
  }
  scored.sort((a, b) => a.score - b.score || b.doc.mtime_ms - a.doc.mtime_ms || a.doc.path.localeCompare(b.doc.path));
  return scored.slice(0, limit).map((s) => s.doc);
}

interface Folded {
  title: string;
  /** The title, path and aliases, one a line. */
  text: string;
  aliases: string[];
}

// Each document is folded once, not on every keystroke: the query's cache hands back the same objects.
const cache = new WeakMap<Rankable, Folded>();

function folded(doc: Rankable): Folded {
  let f = cache.get(doc);
  if (!f) {
    const title = fold(doc.title);
    const aliases = doc.aliases.map(fold);
    f = { title, aliases, text: [title, fold(doc.path), ...aliases].join("\n") };
    cache.set(doc, f);
  }
  return f;
}
