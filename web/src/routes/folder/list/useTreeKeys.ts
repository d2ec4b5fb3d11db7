//! The tree's keys, as the WAI-ARIA tree view has them: Up/Down to the next row, Home/End,
//! Right to open a directory or step into it, Left to close it or step out to its parent,
//! Enter/Space to toggle (a document's link follows itself on Enter), and typeahead.
import { useRef, type KeyboardEvent } from "react";
import type { Row } from "./tree";

/** The key that names a row in the DOM (`data-key`) and in the focus state. */
export const keyOf = (row: Row) => `${row.node.kind}:${row.node.path}`;

/** How long a pause ends a typeahead word. */
const TYPEAHEAD_MS = 700;

export interface TreeKeysOptions {
  rows: readonly Row[];
  /** A filter is on: every directory shows open, and none closes. */
  filtering: boolean;
  isOpen: (dir: string) => boolean;
  toggle: (dir: string, to?: boolean) => void;
  focusRow: (row: Row | undefined) => void;
}

/** The tree's `onKeyDown`. */
export function useTreeKeys({ rows, filtering, isOpen, toggle, focusRow }: TreeKeysOptions) {
  const typed = useRef({ text: "", at: 0 });

  /** Focuses the next row whose label starts with what was typed; whether one did. */
  const typeahead = (e: KeyboardEvent, i: number): boolean => {
    const now = e.timeStamp;
    typed.current = { text: (now - typed.current.at < TYPEAHEAD_MS ? typed.current.text : "") + e.key.toLowerCase(), at: now };
    const label = (r: Row) => (r.node.kind === "doc" ? r.node.doc.title : r.node.name).toLowerCase();
    const after = [...rows.slice(i + 1), ...rows.slice(0, i + 1)];
    const hit = (typed.current.text.length > 1 ? [rows[i]!, ...after] : after).find((r) => label(r).startsWith(typed.current.text));
    if (hit) focusRow(hit);
    return !!hit;
  };

  return (e: KeyboardEvent<HTMLDivElement>) => {
    const target = e.target as HTMLElement;
    if (target.getAttribute("role") !== "treeitem") return;
    const i = rows.findIndex((r) => keyOf(r) === target.dataset.key);
    const row = rows[i];
    if (!row) return;
    const dir = row.node.kind === "dir" && !filtering ? row.node.path : undefined;
    let handled = true;
    switch (e.key) {
      case "ArrowDown":
        focusRow(rows[i + 1]);
        break;
      case "ArrowUp":
        focusRow(rows[i - 1]);
        break;
      case "Home":
        focusRow(rows[0]);
        break;
      case "End":
        focusRow(rows[rows.length - 1]);
        break;
      case "ArrowRight":
        if (dir !== undefined && !isOpen(dir)) toggle(dir, true);
        else if (row.node.kind === "dir") focusRow(rows[i + 1]?.parent === row.node.path ? rows[i + 1] : undefined);
        break;
      case "ArrowLeft":
        if (dir !== undefined && isOpen(dir)) toggle(dir, false);
        else focusRow(rows.find((r) => r.node.kind === "dir" && r.node.path === row.parent));
        break;
      case "Enter":
      case " ":
        if (dir !== undefined) toggle(dir);
        else if (e.key === " ") target.click();
        else handled = false; // a link follows itself on Enter
        break;
      default:
        handled = e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey && typeahead(e, i);
    }
    if (handled) e.preventDefault();
  };
}
