//! What the list shows of the server's answers: a tag as the server stores it, and what a search
//! hit shows and where it opens (a snippet of its text, the slug of its heading). Pure: no React,
//! no requests. (The filter's matching is the server's: `GET /api/find`, `tools::browse`.)
import { slug } from "github-slugger";

/** A tag as the server stores it: lowercase, no leading `#`, no trailing `/`. */
export function normalizeTag(tag: string): string {
  return tag.trim().replace(/^#+/, "").replace(/\/+$/, "").toLowerCase();
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
