//! Matching documents by typed words: a query's words, and the quick switcher's ranking of
//! documents by title, path or alias. Pure: no React, no requests.

/** The words of a query, lowercased; none for blank input. */
export function words(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
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
    const title = doc.title.toLowerCase();
    const text = [title, doc.path.toLowerCase(), ...doc.aliases.map((a) => a.toLowerCase())].join("\n");
    if (!want.every((w) => text.includes(w))) continue;
    const alias = doc.aliases.some((a) => a.toLowerCase().startsWith(whole));
    const score = title.startsWith(whole) ? 0 : title.includes(whole) ? 1 : alias ? 2 : 3;
    scored.push({ doc, score });
  }
  scored.sort((a, b) => a.score - b.score || b.doc.mtime_ms - a.doc.mtime_ms || a.doc.path.localeCompare(b.doc.path));
  return scored.slice(0, limit).map((s) => s.doc);
}
