//! `[[` completion: after `[[` the editor offers the folder's documents by their shortest unique
//! names, matched on title, path and aliases by the server (`GET /api/complete`), so a folder of
//! 150,000 documents is neither loaded nor scanned in the page. The link's target ends at `|`,
//! `#` or `]]`, so past one of those nothing is offered. Accepting writes the name and the
//! closing `]]` when the link has none yet.
import { pickedCompletion, type Completion, type CompletionContext, type CompletionResult, type CompletionSource } from "@codemirror/autocomplete";
import type { EditorView } from "@codemirror/view";
import type { Schemas } from "../api/client";

/** One document as `[[` offers it: `name` is what the link writes, the shortest name that finds
 * only this document; `path` is inside the folder. */
export type WikiEntry = Schemas["LinkOffer"];

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

/** The completion source over what `offers(query)` answers for the target typed so far (the
 * server's matches, best first: `GET /api/complete`). */
export function wikiCompletions(offers: (query: string) => Promise<readonly WikiEntry[]>): CompletionSource {
  return async (context: CompletionContext): Promise<CompletionResult | null> => {
    const line = context.state.doc.lineAt(context.pos);
    const found = wikiContext(context.state.sliceDoc(line.from, context.pos));
    if (!found) return null;
    const entries = await offers(found.query);
    if (context.aborted) return null;
    const options = entries.map(
      (e): Completion => ({
        label: e.name,
        detail: e.title !== e.name ? e.title : undefined,
        info: e.path,
        type: "text",
        apply: applyName(e.name),
      }),
    );
    // The server's matching (titles and aliases count, not only the label), so CodeMirror neither
    // filters nor reuses the result: it asks again as the target grows.
    return { from: line.from + found.start, options, filter: false };
  };
}
