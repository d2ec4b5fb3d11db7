//! Links in a document besides wikilinks' own syntax: what an `href` is (external, a heading of
//! this page, or a path relative to the document), how an attachment opens (in a tab or as a
//! download), and every link a document's text makes, for the outgoing-links list.
//!
//! Code (fenced, indented, inline spans) and front matter never hold links, as in the renderer.
import { splitFrontMatter } from "./frontmatter";
import { escapedAt, matchWikilinks, parseWikilink, resolveTarget, wikilinkLabel } from "./wikilinks";

/** What an `href` (or an image `src`) written in a document means. */
export type Href =
  | { kind: "external"; url: string }
  | { kind: "anchor"; id: string }
  | { kind: "relative"; path: string; fragment: string };

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function classifyHref(href: string): Href {
  const url = href.trim();
  if (SCHEME.test(url) || url.startsWith("//")) return { kind: "external", url };
  if (url.startsWith("#")) return { kind: "anchor", id: decode(url.slice(1)) };
  const hash = url.indexOf("#");
  const beforeHash = hash < 0 ? url : url.slice(0, hash);
  const query = beforeHash.indexOf("?");
  return {
    kind: "relative",
    path: decode(query < 0 ? beforeHash : beforeHash.slice(0, query)),
    fragment: hash < 0 ? "" : decode(url.slice(hash + 1)),
  };
}

/** What `GET /api/resolve` is asked for a relative link: the path, and `#fragment` if any. */
export function relativeTarget(href: Extract<Href, { kind: "relative" }>): string {
  return href.fragment ? `${href.path}#${href.fragment}` : href.path;
}

const extension = (path: string) => /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? "";

const IMAGES = new Set(["png", "jpg", "jpeg", "gif", "webp", "svg", "avif", "bmp"]);
const MARKDOWN = new Set(["md", "markdown", "mdx"]);

export const isImage = (path: string) => IMAGES.has(extension(path));
export const isMarkdown = (path: string) => MARKDOWN.has(extension(path));

/** Types a browser shows in a tab without running anything, by extension. */
const VIEWABLE: Record<string, string> = {
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  bmp: "image/bmp",
  ico: "image/x-icon",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  opus: "audio/ogg",
  m4a: "audio/mp4",
  aac: "audio/aac",
  flac: "audio/flac",
  weba: "audio/webm",
  mp4: "video/mp4",
  m4v: "video/mp4",
  webm: "video/webm",
  ogv: "video/ogg",
  mov: "video/quicktime",
};

/** Text of any kind opens as plain text, so nothing in it (XML, scripts) can run. */
const TEXT = new Set(
  "txt text log csv tsv json jsonl ndjson yaml yml toml ini cfg conf env xml sh bash zsh py rb js mjs cjs ts tsx jsx rs go java kt c h cpp hpp cs swift sql diff patch org rst tex adoc"
    .split(" "),
);

/**
 * How an attachment opens: in a new tab (PDFs, images, audio, video, text), with the type it is
 * shown as, or as a download (SVG and HTML, which could run script in this origin, and anything
 * unknown).
 */
export function attachmentAction(path: string): { open: true; type: string } | { open: false } {
  const ext = extension(path);
  const viewable = VIEWABLE[ext];
  if (viewable) return { open: true, type: viewable };
  if (TEXT.has(ext) || MARKDOWN.has(ext)) return { open: true, type: "text/plain;charset=utf-8" };
  return { open: false };
}

/** A link a document makes to something in its folder. */
export interface FoundLink {
  kind: "wiki" | "markdown";
  embed: boolean;
  /** What `GET /api/resolve` is asked. */
  target: string;
  /** What the link shows (or the target, when it shows nothing). */
  label: string;
  /** 1-based, counting the front matter, as the server counts lines. */
  line: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)/;
const MD_LINK = /(!?)\[((?:[^[\]\n]|\[[^[\]\n]*\])*)\]\(\s*(<[^>\n]*>|[^\s()]+(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)/g;

/** A line with its inline code spans blanked (same length), so links inside them are not found. */
export function maskCodeSpans(line: string): string {
  let out = "";
  let i = 0;
  while (i < line.length) {
    if (line[i] !== "`" || escapedAt(line, i)) {
      out += line[i];
      i++;
      continue;
    }
    let run = 0;
    while (line[i + run] === "`") run++;
    const fence = "`".repeat(run);
    let close = line.indexOf(fence, i + run);
    while (close >= 0 && line[close + run] === "`") {
      let next = close;
      while (line[next] === "`") next++;
      close = line.indexOf(fence, next);
    }
    if (close < 0) {
      out += fence;
      i += run;
      continue;
    }
    out += " ".repeat(close + run - i);
    i = close + run;
  }
  return out;
}

/** Every wikilink and relative Markdown link of a document, in order, outside code. */
export function findLinks(text: string): FoundLink[] {
  const { body, bodyStart } = splitFrontMatter(text);
  const out: FoundLink[] = [];
  let fence: string | null = null;
  let prevBlank = true;
  let inList = false;
  let inIndented = false;
  body.split("\n").forEach((line, i) => {
    const lineNo = bodyStart + i + 1;
    const opening = FENCE.exec(line);
    if (fence) {
      const closes = opening && opening[1]![0] === fence[0] && opening[1]!.length >= fence.length && line.trim() === opening[1];
      if (closes) fence = null;
      return;
    }
    if (opening) {
      fence = opening[1]!;
      return;
    }
    const blank = line.trim() === "";
    const indented = /^( {4}|\t)/.test(line);
    if (!blank && !indented) inList = LIST_ITEM.test(line);
    inIndented = indented && !inList && (prevBlank || inIndented);
    prevBlank = blank;
    if (inIndented || blank) return;
    const masked = maskCodeSpans(line);
    const found: { at: number; link: FoundLink }[] = [];
    const wiki = matchWikilinks(masked, true);
    for (const m of wiki) {
      // Found in the masked line, read from the line itself: a code span inside is part of it.
      const parsed = parseWikilink(line.slice(m.index + (m.link.embed ? 3 : 2), m.index + m.length - 2), m.link.embed);
      const target = resolveTarget(parsed);
      if (!target) continue;
      found.push({ at: m.index, link: { kind: "wiki", embed: parsed.embed, target, label: wikilinkLabel(parsed), line: lineNo } });
    }
    for (const m of masked.matchAll(MD_LINK)) {
      if (escapedAt(masked, m.index + m[1]!.length)) continue;
      if (wiki.some((w) => m.index >= w.index && m.index < w.index + w.length)) continue;
      const destination = m[3]!.replace(/^<|>$/g, "");
      const href = classifyHref(destination);
      if (href.kind !== "relative" || !href.path || href.path.startsWith("/")) continue;
      const label = line.slice(m.index + m[1]!.length + 1, m.index + m[1]!.length + 1 + m[2]!.length).trim();
      const link: FoundLink = { kind: "markdown", embed: m[1] === "!", target: relativeTarget(href), label: label || href.path, line: lineNo };
      found.push({ at: m.index, link });
    }
    out.push(...found.sort((a, b) => a.at - b.at).map((f) => f.link));
  });
  return out;
}
