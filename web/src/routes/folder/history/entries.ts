//! Reading history entries for people: who made a change, a one-line summary of what it did, the
//! versions of one document it names, and which undo it offers (Undo, Restore for a deletion,
//! Redo for an undo).
import type { Schemas } from "../../../api/client";
import { insidePath } from "../../../lib/paths";
import { plural } from "../../../lib/time";

export type Entry = Schemas["EntryView"];
export type Op = Schemas["Op"];
export type Who = Schemas["Who"];

/** The paths an operation is about, root-relative. */
export function opPaths(op: Op): string[] {
  return op.op === "rename" ? [op.from, op.to] : [op.path];
}

/** A session id as shown: its first 8 characters (the whole one is the title). */
export function shortSession(session: string): string {
  return session.length > 10 ? `${session.slice(0, 8)}…` : session;
}

/** "Web UI" (the owner), "API" (an `/api` client with a scoped token), or the tool (`ragdown_edit`). */
export function whoLabel(who: Who): string {
  if (who.via === "web") return who.token ? "API" : "Web UI";
  return who.tool ?? "MCP";
}

/** A document's versions around an entry: `undefined` when the entry has no step on that path. */
export interface Versions {
  /** The hash before the change; `null` when there was no file. */
  before: string | null;
  /** The hash after it; `null` when the change removed it (or moved it away). */
  after: string | null;
}

export function versionsAt(entry: Entry, path: string): Versions | undefined {
  let found: Versions | undefined;
  for (const op of entry.ops) {
    if (op.op === "file" && op.path === path) {
      // The first step's before and the last step's after: an entry may touch a path twice.
      found = { before: found ? found.before : (op.before ?? null), after: op.after ?? null };
    } else if (op.op === "rename" && !op.dir && op.from === path) {
      found = { before: found ? found.before : (op.hash ?? null), after: null };
    } else if (op.op === "rename" && !op.dir && op.to === path) {
      found = { before: found ? found.before : null, after: op.hash ?? null };
    }
  }
  return found;
}

const VERBS: Record<string, string> = {
  write: "Wrote",
  append: "Appended to",
  edit: "Edited",
  remember: "Remembered in",
  save: "Saved",
  delete: "Deleted",
  move: "Moved",
  "create-folder": "Made the folder",
  "rename-folder": "Renamed the folder",
  "delete-folder": "Deleted the folder",
  restore: "Restored",
  undo: "Undid a change to",
};

/** One line on what the entry did: "Edited notes.md", "Moved a.md → b/a.md (links in 2 documents)". */
export function summary(entry: Entry, folder?: string): string {
  const show = (p: string) => (folder ? insidePath(folder, p) : p);
  const ops = entry.ops;
  const first = ops[0];
  if (!first) return VERBS[entry.action] ?? entry.action;
  const rename = ops.find((op) => op.op === "rename");
  if (rename && rename.op === "rename" && (entry.action === "move" || entry.action === "rename-folder")) {
    const rewritten = ops.filter((op) => op.op === "file").length;
    const links = rewritten > 0 ? ` (links in ${plural(rewritten, "document")})` : "";
    return `${VERBS[entry.action]} ${show(rename.from)} → ${show(rename.to)}${links}`;
  }
  const files = ops.filter((op) => op.op === "file");
  if (entry.action === "delete-folder" || (entry.action === "delete" && files.length > 1)) {
    const dir = ops.findLast((op) => op.op === "rmdir");
    const what = dir && dir.op === "rmdir" ? show(dir.path) : show(opPaths(first)[0] ?? "");
    return `Deleted ${what} (${plural(files.length, "file")})`;
  }
  const main = opPaths(first)[0] ?? "";
  const created = first.op === "file" && !first.before && ["write", "save", "remember"].includes(entry.action);
  const verb = created ? "Created" : (VERBS[entry.action] ?? entry.action);
  const more = ops.length > 1 ? ` and ${plural(ops.length - 1, "more step")}` : "";
  return `${verb} ${show(main)}${more}`;
}

/** What undoing the entry is called: Restore brings back what it deleted, Redo undoes an undo. */
export function undoLabel(entry: Entry): "Undo" | "Restore" | "Redo" {
  if (entry.action === "undo") return "Redo";
  if (entry.action === "delete" || entry.action === "delete-folder") return "Restore";
  return "Undo";
}

/** The entry's time as a number, for `ago`. */
export function entryTime(entry: Entry): number {
  return Date.parse(entry.at);
}
