//! `[[` completion: after `[[` the editor offers the folder's documents by their shortest unique
//! names (see `names.ts`), matched on name, title, path and aliases. The link's target ends at
//! `|`, `#` or `]]`, so past one of those nothing is offered. Accepting writes the name and the
//! closing `]]` when the link has none yet.
import { pickedCompletion, type Completion, type CompletionContext, type CompletionResult, type CompletionSource } from "@codemirror/autocomplete";
import type { EditorView } from "@codemirror/view";
import type { DocInfo } from "../api/client";
import { fold } from "../lib/fold";
import { shortestNames } from "./names";

/** One document as `[[` offers it. */
export interface WikiEntry {
  /** What the link writes: the shortest name that finds only this document. */
  name: string;
  title: string;
  /** The path inside the folder. */
  path: string;
  aliases: readonly string[];
}

/** The folder's documents as completion entries (`docs` carry root-relative paths). */
export function wikiEntries(docs: readonly DocInfo[], folder: string): WikiEntry[] {
  const prefix = `${folder}/`;
  const inside = docs.map((d) => (d.path.startsWith(prefix) ? d.path.slice(prefix.length) : d.path));
  const names = shortestNames(inside);
  return docs.map((d, i) => {
    const path = inside[i]!;
    return { name: names.get(path) ?? path, title: d.title, path, aliases: d.aliases };
  });
}

/** An open `[[` ending the text before the cursor, with nothing after it that ends the target. */
const OPEN_LINK = /\[\[([^[\]|#\n]*)$/;

/**
 * Where the target being typed starts, as an offset into `before` (the line up to the cursor),
 * and what has been typed of it; `null` when the cursor is not in a link's target.
 */
export function wikiContext(before: string): { start: number; query: string } | null {
  const m = OPEN_LINK.exec(before);
  if (!m) return null;
  const query = m[1]!;
  return { start: before.length - query.length, query };
}

/**
 * What accepting must do about the closing brackets, given the rest of the line after the
 * target: step over a `]]` right there, leave them alone when the link closes further on
 * (`|shown]]`, `#Heading]]`), or add them.
 */
export function closing(after: string): "skip" | "keep" | "add" {
  if (after.startsWith("]]")) return "skip";
  const close = after.indexOf("]]");
  const open = after.indexOf("[[");
  return close >= 0 && (open < 0 || close < open) ? "keep" : "add";
}

/**
 * The entries that match `query`, best first: every word of it must appear, folded as the
 * filter folds (`lib/fold.ts`: case, full-width and half-width forms, NFC/NFKC), in
 * the name, the title, the path or an alias. Names and titles that start with the query come
 * first, then aliases that do, then the rest; shorter names break ties. With nothing typed yet,
 * all of them, by name.
 */
export function matchEntries(query: string, entries: readonly WikiEntry[]): WikiEntry[] {
  const q = fold(query.trim());
  const words = q.split(/\s+/).filter(Boolean);
  const rank = (e: WikiEntry) => {
    const name = fold(e.name);
    const title = fold(e.title);
    if (name.startsWith(q) || title.startsWith(q)) return 0;
    if (e.aliases.some((a) => fold(a).startsWith(q))) return 1;
    return 2;
  };
  return entries
    .filter((e) => {
      const haystack = fold([e.name, e.title, e.path, ...e.aliases].join("\n"));
      return words.every((w) => haystack.includes(w));
    })
    .map((e) => ({ e, r: rank(e) }))
    .sort((a, b) => a.r - b.r || (q ? a.e.name.length - b.e.name.length : 0) || a.e.name.localeCompare(b.e.name))
    .map(({ e }) => e);
}

/** Writes `name` over `from..to` and places the cursor after the link's closing brackets. */
function applyName(name: string) {
  return (view: EditorView, completion: Completion, from: number, to: number) => {
    const line = view.state.doc.lineAt(to);
    const how = closing(view.state.sliceDoc(to, line.to));
    const insert = how === "add" ? `${name}]]` : name;
    const cursor = from + name.length + (how === "keep" ? 0 : 2);
    view.dispatch({
      changes: { from, to, insert },
      selection: { anchor: cursor },
      scrollIntoView: true,
      userEvent: "input.complete",
      annotations: pickedCompletion.of(completion),
    });
  };
}

/** The completion source over the entries `entries()` returns when asked (they change over time). */
export function wikiCompletions(entries: () => readonly WikiEntry[]): CompletionSource {
  return (context: CompletionContext): CompletionResult | null => {
    const line = context.state.doc.lineAt(context.pos);
    const found = wikiContext(context.state.sliceDoc(line.from, context.pos));
    if (!found) return null;
    const options = matchEntries(found.query, entries()).map(
      (e): Completion => ({
        label: e.name,
        detail: e.title !== e.name ? e.title : undefined,
        info: e.path,
        type: "text",
        apply: applyName(e.name),
      }),
    );
    // Our own matching (titles and aliases count, not only the label), so CodeMirror neither
    // filters nor reuses the result: it asks again as the target grows.
    return { from: line.from + found.start, options, filter: false };
  };
}
