//! Matching in the browser: the list's Filter (every word, folded as `lib/fold.ts` folds it, so
//! ignoring case and width, in the title, path, aliases, tags or description), the tag filter as the server applies it (a tag or any tag
//! under it), and what a search hit shows and where it opens (a snippet of its text, the slug
//! of its heading). Pure: no React, no requests. (The quick switcher's ranking is `lib/rank.ts`.)
import { slug } from "github-slugger";
import type { DocInfo } from "../../../api/client";
import { fold } from "../../../lib/fold";

function haystack(doc: DocInfo, path: string): string {
  return fold([doc.title, path, ...doc.aliases, ...doc.tags.map((t) => `#${t}`), doc.description ?? ""].join("\n"));
}

/** Whether every word (as `words()` folds it) appears in the document's title, `path`, aliases, tags or description. */
export function matchesFilter(doc: DocInfo, path: string, query: readonly string[]): boolean {
  if (query.length === 0) return true;
  const text = haystack(doc, path);
  return query.every((word) => text.includes(word));
}

/** A tag as the server stores it: lowercase, no leading `#`, no trailing `/`. */
export function normalizeTag(tag: string): string {
  return tag.trim().replace(/^#+/, "").replace(/\/+$/, "").toLowerCase();
}

/** Whether the tags hold `tag` or a tag under it (`deploy` holds `deploy/argo`), as search filters. */
export function hasTag(tags: readonly string[], tag: string): boolean {
  const want = normalizeTag(tag);
  return !want || tags.some((t) => t === want || t.startsWith(`${want}/`));
}

/** Every tag in the documents, once each, in order. */
export function folderTags(docs: readonly DocInfo[]): string[] {
  return [...new Set(docs.flatMap((d) => d.tags))].sort((a, b) => a.localeCompare(b));
}

/**
 * The URL hash that opens a search hit at its heading: the slug of the breadcrumb's last part
 * ("Kafka operations › Consumer lag" → "consumer-lag"). A hit at the top of its document, whose
 * breadcrumb is only the title, has none.
 */
export function headingSlug(breadcrumb: string): string | undefined {
  const parts = breadcrumb.split(" › ");
  if (parts.length < 2) return undefined;
  const last = parts[parts.length - 1]!.trim();
  return last ? slug(last) || undefined : undefined;
}

/**
 * A hit's text as a line of prose: no heading lines, fences or table rules, table cells as
 * "a · b", links and wikilinks as their text, no code or emphasis marks, the whitespace collapsed.
 */
export function snippet(text: string): string {
  return text
    .split("\n")
    .filter((line) => !/^\s{0,3}(#{1,6}\s|```|~~~)/.test(line) && !/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line))
    .map((line) => (/^\s*\|.*\|\s*$/.test(line) ? line.trim().slice(1, -1).split("|").map((cell) => cell.trim()).join(" · ") : line))
    .join(" ")
    .replace(/!?\[\[([^\]|]*)\|([^\]]*)\]\]/g, "$2")
    .replace(/!?\[\[([^\]]*)\]\]/g, "$1")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/(\*\*|__|`)/g, "")
    .replace(/\s+/g, " ")
    .trim();
}
