//! The folder's file tree as data: built from a flat `DocInfo[]` (what a filter found: directories
//! first, then files, by name, case-insensitive and in natural order) or from the directories the
//! server listed one at a time (`GET /api/browse`, in its order, with a "more" row where a
//! directory holds more than was sent), flattened into the rows a `role="tree"` shows for the
//! directories that are open, the "Recently changed" list, and where a dragged document or
//! subfolder lands. Pure: no React, no requests.
import type { DocInfo } from "../../../api/client";
import { insidePath } from "../../../lib/paths";

export interface DocNode {
  kind: "doc";
  /** The file name. */
  name: string;
  /** The path inside the folder. */
  path: string;
  doc: DocInfo;
}

export interface DirNode {
  kind: "dir";
  name: string;
  /** The path inside the folder; "" for the folder itself. */
  path: string;
  children: TreeNode[];
  /** Documents in it and below it. */
  count: number;
}

/** The end of a directory the server sent in part: "Show more", or "Loading…" while it comes. */
export interface MoreNode {
  kind: "more";
  /** Empty: nothing to type ahead to. */
  name: "";
  /** The directory it ends (inside the folder). */
  path: string;
  /** Its documents sent so far, and in all; 0 of 0 while its first page comes. */
  shown: number;
  total: number;
  loading: boolean;
  failed: boolean;
}

export type TreeNode = DocNode | DirNode | MoreNode;

/** One visible row of the tree, with what `aria-level`, `aria-posinset` and `aria-setsize` need. */
export interface Row {
  node: TreeNode;
  /** 1 at the top. */
  level: number;
  posinset: number;
  setsize: number;
  /** The directory the row sits in ("" at the top). */
  parent: string;
}

/** Natural, case-insensitive order: "note 2" before "Note 10". */
export const compareNames = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" }).compare;

/** The directories that hold `path`, outermost first: "a/b/c.md" → ["a", "a/b"]. */
export function ancestors(path: string): string[] {
  const parts = path.split("/").slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

function order(a: TreeNode, b: TreeNode): number {
  if (a.kind !== b.kind) return a.kind === "dir" ? -1 : 1;
  return compareNames(a.name, b.name) || compareNames(a.path, b.path);
}

/** The tree of a folder's documents (paths root-relative, as the server lists them). */
export function buildTree(docs: readonly DocInfo[], folder: string): DirNode {
  const root: DirNode = { kind: "dir", name: folder, path: "", children: [], count: 0 };
  const dirs = new Map<string, DirNode>([["", root]]);
  const dirAt = (path: string): DirNode => {
    const known = dirs.get(path);
    if (known) return known;
    const slash = path.lastIndexOf("/");
    const parent = dirAt(slash < 0 ? "" : path.slice(0, slash));
    const made: DirNode = { kind: "dir", name: path.slice(slash + 1), path, children: [], count: 0 };
    parent.children.push(made);
    dirs.set(path, made);
    return made;
  };
  for (const doc of docs) {
    const path = insidePath(folder, doc.path);
    const slash = path.lastIndexOf("/");
    const dir = dirAt(slash < 0 ? "" : path.slice(0, slash));
    dir.children.push({ kind: "doc", name: path.slice(slash + 1), path, doc });
  }
  const finish = (dir: DirNode): number => {
    dir.children.sort(order);
    dir.count = dir.children.reduce((n, child) => n + (child.kind === "dir" ? finish(child) : 1), 0);
    return dir.count;
  };
  finish(root);
  return root;
}

/** One directory as `GET /api/browse` lists it, its pages joined; `undefined` while it comes. */
export interface Listing {
  dirs: readonly { name: string; path: string; count: number }[];
  docs: readonly DocInfo[];
  total_docs: number;
  /** A further page asked for has not come yet. */
  loading: boolean;
  /** A page could not be had: the "more" row offers to try again. */
  failed: boolean;
}

/**
 * The tree of the directories listed so far (by path inside the folder, "" for its top): every
 * subdirectory with the server's count, the documents sent, and a "more" row ending a directory
 * that holds more (or whose listing is on its way). A subdirectory not listed yet has no children.
 */
export function treeOfListings(folder: string, listings: ReadonlyMap<string, Listing | undefined>): DirNode {
  const fill = (dir: DirNode): DirNode => {
    const listed = listings.get(dir.path);
    if (!listings.has(dir.path)) return dir;
    if (!listed) {
      dir.children.push({ kind: "more", name: "", path: dir.path, shown: 0, total: 0, loading: true, failed: false });
      return dir;
    }
    for (const sub of listed.dirs) dir.children.push(fill({ kind: "dir", name: sub.name, path: sub.path, children: [], count: sub.count }));
    for (const doc of listed.docs) {
      const path = insidePath(folder, doc.path);
      dir.children.push({ kind: "doc", name: path.slice(path.lastIndexOf("/") + 1), path, doc });
    }
    if (listed.loading || listed.failed || listed.docs.length < listed.total_docs)
      dir.children.push({ kind: "more", name: "", path: dir.path, shown: listed.docs.length, total: listed.total_docs, loading: listed.loading, failed: listed.failed });
    return dir;
  };
  const top = listings.get("");
  const count = top ? top.dirs.reduce((n, d) => n + d.count, 0) + top.total_docs : 0;
  return fill({ kind: "dir", name: folder, path: "", children: [], count });
}

/** The rows to show: every node whose directories are all open, depth first. */
export function visibleRows(root: DirNode, isOpen: (dir: string) => boolean): Row[] {
  const rows: Row[] = [];
  const walk = (dir: DirNode, level: number) => {
    dir.children.forEach((node, i) => {
      rows.push({ node, level, posinset: i + 1, setsize: dir.children.length, parent: dir.path });
      if (node.kind === "dir" && isOpen(node.path)) walk(node, level + 1);
    });
  };
  walk(root, 1);
  return rows;
}

/** "Recently changed": the documents as a flat list, newest change first. */
export function recentDocs(docs: readonly DocInfo[]): DocInfo[] {
  return [...docs].sort((a, b) => b.mtime_ms - a.mtime_ms || compareNames(a.path, b.path));
}

/** "Recently changed" as the tree's rows: one level, newest first. */
export function recentRows(docs: readonly DocInfo[], folder: string): Row[] {
  return recentDocs(docs).map((doc, i, all): Row => {
    const path = insidePath(folder, doc.path);
    return { node: { kind: "doc", name: path.slice(path.lastIndexOf("/") + 1), path, doc }, level: 1, posinset: i + 1, setsize: all.length, parent: "" };
  });
}

/** The directory part of a path inside the folder ("" at the top). */
export function parentDir(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/**
 * Where `from` (a document or subfolder, inside the folder) goes when dropped on the directory
 * `dir`: its new path, or `null` when the drop would change nothing or put a folder inside itself.
 */
export function moveTarget(from: string, dir: string): string | null {
  if (!from || parentDir(from) === dir) return null;
  if (dir === from || dir.startsWith(`${from}/`)) return null;
  const name = from.slice(from.lastIndexOf("/") + 1);
  return dir ? `${dir}/${name}` : name;
}

/** Where `path` is after `from` moved to `to`: the same path when the move did not touch it. */
export function movedPath(path: string, from: string, to: string): string {
  if (path === from) return to;
  if (path.startsWith(`${from}/`)) return to + path.slice(from.length);
  return path;
}
