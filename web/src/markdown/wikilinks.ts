//! Wikilinks: `[[Note]]`, `[[Note|shown]]`, `[[Note#Heading]]`, `[[#Heading]]` and embeds
//! (`![[Note]]`, `![[image.png|200]]`), parsed once here for the renderer (a remark plugin that
//! turns them into `wikiLink` nodes, so code spans and fenced code, which are not text nodes,
//! keep them as written) and for the outgoing-links list (`links.ts`).
//!
//! It only parses: where a wikilink points is the server's question (`GET /api/resolve`).
import type { Parent, PhrasingContent, Root, Text } from "mdast";
import { visit, SKIP } from "unist-util-visit";

/** A wikilink or embed as written. */
export interface Wikilink {
  /** The note, path or file it names; `""` for `[[#Heading]]`, a heading of this document. */
  target: string;
  /** The heading after `#`, or `null`. A block reference (`#^id`) counts as none. */
  heading: string | null;
  /** What follows `|`: the text shown, or for an image embed its size. */
  alias: string | null;
  /** Written `![[…]]`. */
  embed: boolean;
  /** An image embed's size from `|200` or `|200x100`. */
  width?: number;
  height?: number;
}

/** `[[…]]` or `![[…]]`: the inside holds no bracket and no line break (the server's rule). */
export const WIKILINK = /(!?)\[\[([^[\]\n]+)\]\]/g;

/** The inside of `[[…]]` as its parts. */
export function parseWikilink(inner: string, embed = false): Wikilink {
  const bar = inner.indexOf("|");
  // Inside a table a wikilink is written `[[Note\|shown]]`, so the `\` belongs to the `|`.
  const before = (bar < 0 ? inner : inner.slice(0, bar)).replace(/\\$/, "");
  const alias = bar < 0 ? null : inner.slice(bar + 1).trim() || null;
  const hash = before.indexOf("#");
  const target = (hash < 0 ? before : before.slice(0, hash)).trim();
  const rawHeading = hash < 0 ? "" : before.slice(hash + 1).trim();
  const heading = rawHeading === "" || rawHeading.startsWith("^") ? null : rawHeading;
  const link: Wikilink = { target, heading, alias, embed };
  const size = embed && alias ? /^(\d{1,5})(?:x(\d{1,5}))?$/.exec(alias) : null;
  if (size) {
    link.width = Number(size[1]);
    if (size[2]) link.height = Number(size[2]);
  }
  return link;
}

/** What a wikilink shows: its alias, else "Note › Heading", the heading, or the note. */
export function wikilinkLabel(link: Wikilink): string {
  if (link.alias && link.width === undefined) return link.alias;
  if (link.target && link.heading) return `${link.target} › ${link.heading}`;
  return link.heading ?? link.target;
}

/** What `GET /api/resolve` is asked for: `Note#Heading`; `null` for a heading of this document. */
export function resolveTarget(link: Wikilink): string | null {
  if (!link.target) return null;
  return link.heading ? `${link.target}#${link.heading}` : link.target;
}

/** Whether the character at `at` is escaped by an odd run of backslashes before it. */
export function escapedAt(text: string, at: number): boolean {
  let n = 0;
  for (let i = at - 1; i >= 0 && text[i] === "\\"; i--) n++;
  return n % 2 === 1;
}

/** A wikilink found in a string: where it is, and what it says. */
export interface WikilinkMatch {
  index: number;
  length: number;
  raw: string;
  link: Wikilink;
}

/**
 * The wikilinks of a string, in order. With `source` (Markdown as written) a `\[[` or `\!` is an
 * escape and not a link; without, every match counts (a text node's value, escapes already gone).
 */
export function matchWikilinks(text: string, source = false): WikilinkMatch[] {
  const out: WikilinkMatch[] = [];
  for (const m of text.matchAll(WIKILINK)) {
    let raw = m[0];
    let index = m.index;
    const inner = m[2]!;
    if (source && escapedAt(text, index)) {
      // `\![[x]]` is a wikilink after a literal `!`; `\[[x]]` is no link at all.
      if (m[1] !== "!") continue;
      raw = raw.slice(1);
      index += 1;
    }
    if (!inner.trim()) continue;
    out.push({ index, length: raw.length, raw, link: parseWikilink(inner, raw.startsWith("!")) });
  }
  return out;
}

/** The mdast node a wikilink becomes; remark-rehype makes it an `<a data-wiki="…">`. */
export interface WikiLinkNode extends Parent {
  type: "wikiLink";
  link: Wikilink;
  children: PhrasingContent[];
}

declare module "mdast" {
  interface PhrasingContentMap {
    wikiLink: WikiLinkNode;
  }
  interface RootContentMap {
    wikiLink: WikiLinkNode;
  }
}

/** What a transformer is handed beside the tree: the Markdown as written. */
interface Source {
  value?: unknown;
}

/** Normalises a wikilink's inside for comparing a text node's value with its source. */
const comparable = (raw: string) => raw.replace(/\\\|/g, "|").replace(/^!/, "");

/**
 * The matches in a text node that are links in the source too: a `\[[Note]]` arrives in the value
 * as `[[Note]]`, so when the node's source differs from its value (escapes, character
 * references), each match must also be an unescaped wikilink there, in the same order.
 */
function trustedMatches(node: Text, file: Source | undefined): WikilinkMatch[] {
  const matches = matchWikilinks(node.value);
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  const source = typeof file?.value === "string" && start !== undefined && end !== undefined ? file.value.slice(start, end) : null;
  if (!matches.length || source === null || source === node.value) return matches;
  const written = matchWikilinks(source, true);
  const expected = written.map((m) => comparable(m.raw));
  const kept: WikilinkMatch[] = [];
  let next = 0;
  for (const match of matches) {
    const at = expected.indexOf(comparable(match.raw), next);
    if (at < 0) continue;
    next = at + 1;
    // `\![[x]]` arrives as `![[x]]`: a link after a literal `!`, not an embed.
    if (written[at]!.link.embed === match.link.embed) kept.push(match);
    else kept.push({ index: match.index + 1, length: match.length - 1, raw: match.raw.slice(1), link: parseWikilink(match.raw.slice(3, -2)) });
  }
  return kept;
}

function toNode(match: WikilinkMatch): WikiLinkNode {
  return {
    type: "wikiLink",
    link: match.link,
    children: [{ type: "text", value: wikilinkLabel(match.link) }],
    data: { hName: "a", hProperties: { dataWiki: JSON.stringify(match.link) } },
  };
}

/** The remark plugin: wikilinks and embeds in text (never in code, or inside a link) become nodes. */
export function remarkWikilinks() {
  return (tree: Root, file?: Source) => {
    visit(tree, "text", (node: Text, index, parent) => {
      if (!parent || index === undefined || parent.type === "link" || parent.type === "linkReference") return;
      const matches = trustedMatches(node, file);
      if (!matches.length) return;
      const parts: PhrasingContent[] = [];
      let at = 0;
      for (const match of matches) {
        if (match.index > at) parts.push({ type: "text", value: node.value.slice(at, match.index) });
        parts.push(toNode(match));
        at = match.index + match.length;
      }
      if (at < node.value.length) parts.push({ type: "text", value: node.value.slice(at) });
      (parent.children as PhrasingContent[]).splice(index, 1, ...parts);
      return [SKIP, index + parts.length];
    });
  };
}

/** The wikilink an `<a>` rendered from a `wikiLink` node carries, if it is one. */
export function wikilinkOf(properties: Record<string, unknown> | undefined): Wikilink | null {
  const raw = properties?.dataWiki;
  if (typeof raw !== "string") return null;
  try {
    return JSON.parse(raw) as Wikilink;
  } catch {
    return null;
  }
}
