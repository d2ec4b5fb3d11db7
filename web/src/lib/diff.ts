//! A line diff of two texts as rows to draw: unchanged lines near a change as context, the rest
//! folded into "N unchanged lines" gaps, each row with its line numbers on both sides. The diff
//! itself is jsdiff's (`structuredPatch`, Myers' algorithm); this only lays it out.
import { structuredPatch } from "diff";

export type DiffRow =
  | { kind: "gap"; hidden: number }
  | { kind: "same" | "add" | "del"; old: number | null; new: number | null; text: string };

export interface Diff {
  rows: DiffRow[];
  added: number;
  removed: number;
}

/** How many lines `text` has, as an editor counts them (a final newline ends a line, it starts none). */
export function lineCount(text: string): number {
  if (text === "") return 0;
  const breaks = text.split("\n").length - 1;
  return text.endsWith("\n") ? breaks : breaks + 1;
}

/** The rows that show how `before` became `after`, with `context` unchanged lines around each change. */
export function diffRows(before: string, after: string, context = 3): Diff {
  const patch = structuredPatch("before", "after", before, after, "", "", { context });
  const rows: DiffRow[] = [];
  let added = 0;
  let removed = 0;
  // The next old line not yet shown: what lies between it and a hunk's start is a gap.
  let nextOld = 1;
  for (const hunk of patch.hunks) {
    // An empty side's hunk starts at line 0.
    const start = Math.max(hunk.oldStart, 1);
    if (hunk.oldLines > 0 && start > nextOld) rows.push({ kind: "gap", hidden: start - nextOld });
    let oldLine = hunk.oldLines === 0 ? hunk.oldStart + 1 : hunk.oldStart;
    let newLine = hunk.newLines === 0 ? hunk.newStart + 1 : hunk.newStart;
    for (const line of hunk.lines) {
      const mark = line[0];
      // jsdiff keeps a CR of a CRLF line end with the line: not part of what a person reads.
      const text = line.slice(1).replace(/\r$/, "");
      if (mark === " ") rows.push({ kind: "same", old: oldLine++, new: newLine++, text });
      else if (mark === "-") {
        rows.push({ kind: "del", old: oldLine++, new: null, text });
        removed++;
      } else if (mark === "+") {
        rows.push({ kind: "add", old: null, new: newLine++, text });
        added++;
      }
      // "\ No newline at end of file" is not a line of either text.
    }
    nextOld = oldLine;
  }
  const total = lineCount(before);
  if (patch.hunks.length > 0 && total >= nextOld) rows.push({ kind: "gap", hidden: total - nextOld + 1 });
  return { rows, added, removed };
}
