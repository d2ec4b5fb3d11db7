//! The folder's documents as a `role="tree"`: subfolders that open and close (`useExpanded`),
//! arrow keys, Home/End and typeahead (`useTreeKeys`), and drag and drop onto a subfolder (or the
//! folder's top) to move (`useTreeDrop`). Under "Recently changed" the same rows come as a flat
//! list, newest first. A directory the server sent in part ends in a "Show more" row.
import { useEffect, useId, useMemo, useRef, useState, type CSSProperties, type DragEvent, type ReactNode } from "react";
import { Link } from "@tanstack/react-router";
import { ChevronRight, FilePlus, Folder as FolderClosed, FolderOpen, MoreHorizontal } from "lucide-react";
import { clsx } from "clsx";
import type { DocInfo, Folder } from "../../../api/client";
import { PAGE } from "../../../api/hooks";
import { Highlight } from "../../../components/Highlight";
import { ago, plural } from "../../../lib/time";
import { AgentBadge, SupersededBadge } from "./badges";
import { buildTree, parentDir, recentRows, visibleRows, type DirNode, type DocNode, type MoreNode, type Row } from "./tree";
import type { Expanded } from "./useExpanded";
import { keyOf, useTreeKeys } from "./useTreeKeys";
import { useTreeDrop } from "./useTreeDrop";

export interface TreeProps {
  folder: Folder;
  /** What to show: the directories listed so far (`useBrowse`), or documents a filter found. */
  source: { root: DirNode } | { docs: readonly DocInfo[] };
  /** The open directories (`useExpanded`). */
  expanded: Expanded;
  /** A "more" row clicked: the next page of that directory. */
  onMore: (dir: string) => void;
  /** A filter is on: every directory shows open, since only matches are listed. */
  filtering: boolean;
  /** The filter's words (folded, `words()`), marked in the titles and file names. */
  marked: readonly string[];
  recent: boolean;
  selected: string | undefined;
  tag: string | undefined;
  writable: boolean;
  onNewIn: (dir: string) => void;
}

/** What every row carries: its place in the tree, the roving tabindex, and dragging. */
interface RowProps {
  "data-key": string;
  role: "treeitem";
  "aria-level": number;
  "aria-posinset": number;
  "aria-setsize": number;
  tabIndex: number;
  onFocus: () => void;
  draggable: boolean;
  onDragStart: (e: DragEvent) => void;
  onDragEnd: () => void;
  style: CSSProperties;
}

/** The drop handlers a row takes (none when read-only). */
type DropProps = ReturnType<ReturnType<typeof useTreeDrop>["dropOn"]> | Record<string, never>;

const rowClass = "group flex w-full min-w-0 items-center gap-1.5 rounded-md py-1 pr-1 text-sm outline-none focus-visible:ring-2 focus-visible:ring-accent-500";

/** The rows shown: the tree with its open directories, or the flat recent list. */
function useRows(source: TreeProps["source"], folder: string, recent: boolean, isOpen: (dir: string) => boolean): Row[] {
  const docs = "docs" in source ? source.docs : undefined;
  const built = useMemo(() => docs && buildTree(docs, folder), [docs, folder]);
  const flat = useMemo(() => (recent && docs ? recentRows(docs, folder) : undefined), [recent, docs, folder]);
  return flat ?? visibleRows(built ?? (source as { root: DirNode }).root, isOpen);
}

export function Tree({ folder, source, expanded, onMore, filtering, marked, recent, selected, tag, writable, onNewIn }: TreeProps) {
  const { isOpen, toggle } = expanded;
  const drop = useTreeDrop(folder, selected);
  const [focusKey, setFocusKey] = useState<string | undefined>(undefined);
  const treeRef = useRef<HTMLDivElement>(null);
  const ids = useId();

  const rows = useRows(source, folder.name, recent, (dir) => filtering || isOpen(dir));
  const selectedKey = selected === undefined ? undefined : `doc:${selected}`;
  const selectedShown = rows.some((r) => keyOf(r) === selectedKey);
  const tabKey = rows.some((r) => keyOf(r) === focusKey) ? focusKey : selectedShown ? selectedKey : rows[0] && keyOf(rows[0]);

  // The selected row comes into view when the selection changes (a link, the switcher, a move),
  // or when its row arrives (its directory's page came after the selection).
  useEffect(() => {
    if (selected !== undefined && selectedShown) treeRef.current?.querySelector(`[data-key="${CSS.escape(`doc:${selected}`)}"]`)?.scrollIntoView({ block: "nearest" });
  }, [selected, selectedShown]);

  const focusRow = (row: Row | undefined) => {
    if (!row) return;
    setFocusKey(keyOf(row));
    treeRef.current?.querySelector<HTMLElement>(`[data-key="${CSS.escape(keyOf(row))}"]`)?.focus();
  };
  const onKeyDown = useTreeKeys({ rows, filtering, isOpen, toggle, focusRow });

  const rowProps = (row: Row): RowProps => {
    const key = keyOf(row);
    return {
      "data-key": key,
      role: "treeitem",
      "aria-level": row.level,
      "aria-posinset": row.posinset,
      "aria-setsize": row.setsize,
      tabIndex: key === tabKey ? 0 : -1,
      onFocus: () => setFocusKey(key),
      draggable: writable && row.node.kind !== "more",
      onDragStart: drop.dragStart(row.node.path),
      onDragEnd: drop.dragEnd,
      style: { paddingLeft: `${(row.level - 1) * 0.875 + 0.5}rem` },
    };
  };
  const dropProps = (dir: string): DropProps => (writable ? drop.dropOn(dir) : {});

  return (
    <div
      ref={treeRef}
      role="tree"
      aria-label={`Documents in ${folder.title}`}
      onKeyDown={onKeyDown}
      {...drop.dropOn("")}
      onDragLeave={drop.leave}
      className={clsx("min-h-full px-2 pt-1 pb-6", drop.dropDir === "" && "rounded-md bg-accent-50 ring-2 ring-accent-500/40 ring-inset dark:bg-accent-500/10")}
    >
      {rows.map((row, i) =>
        row.node.kind === "more" ? (
          <MoreRow key={keyOf(row)} node={row.node} row={rowProps(row)} onMore={onMore} />
        ) : row.node.kind === "dir" ? (
          <DirRow
            key={keyOf(row)}
            node={row.node}
            row={rowProps(row)}
            drop={dropProps(row.node.path)}
            open={filtering || isOpen(row.node.path)}
            dropping={drop.dropDir === row.node.path}
            labelId={`${ids}-${i}`}
            onToggle={() => !filtering && toggle(row.node.path)}
            onNewIn={writable ? onNewIn : undefined}
          />
        ) : (
          <DocRow key={keyOf(row)} node={row.node} row={rowProps(row)} drop={dropProps(parentDir(row.node.path))} folder={folder.name} selected={selected} tag={tag} recent={recent} marked={marked} />
        ),
      )}
    </div>
  );
}

/** The end of a directory sent in part: shows the next page, or says it is coming. */
function MoreRow({ node, row, onMore }: { node: MoreNode; row: RowProps; onMore: (dir: string) => void }) {
  const label = node.failed
    ? "Could not list the rest · Try again"
    : node.loading
      ? "Loading…"
      : `Show ${plural(Math.min(PAGE, node.total - node.shown), "more document")} (${node.shown.toLocaleString()} of ${node.total.toLocaleString()})`;
  return (
    <button
      type="button"
      {...row}
      aria-disabled={node.loading && !node.failed}
      onClick={() => !node.loading && onMore(node.path)}
      className={clsx(rowClass, "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-400 dark:hover:bg-zinc-800/60", node.failed && "text-red-700 dark:text-red-400")}
    >
      <MoreHorizontal className="size-3.5 shrink-0" aria-hidden />
      <span className="min-w-0 flex-1 truncate text-left">{label}</span>
    </button>
  );
}

interface DirRowProps {
  node: DirNode;
  row: RowProps;
  drop: DropProps;
  open: boolean;
  /** A drag is over it and would land in it. */
  dropping: boolean;
  /** The prefix of the ids its name and count take, which label it. */
  labelId: string;
  onToggle: () => void;
  /** "New document in …", when writable. */
  onNewIn: ((dir: string) => void) | undefined;
}

/** A subfolder: opens and closes on click, takes drops, and offers a new document in it. */
function DirRow({ node, row, drop, open, dropping, labelId, onToggle, onNewIn }: DirRowProps) {
  const dir = node.path;
  const Icon = open ? FolderOpen : FolderClosed;
  return (
    <div
      {...row}
      {...drop}
      aria-expanded={open}
      aria-labelledby={`${labelId}-name ${labelId}-count`}
      onClick={onToggle}
      className={clsx(rowClass, "cursor-default text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800/60", dropping && "bg-accent-100 ring-2 ring-accent-500/50 dark:bg-accent-500/20")}
    >
      <ChevronRight className={clsx("size-3.5 shrink-0 text-zinc-500 dark:text-zinc-400 transition-transform", open && "rotate-90")} aria-hidden />
      <Icon className="size-4 shrink-0 text-zinc-500 dark:text-zinc-400" aria-hidden />
      <span id={`${labelId}-name`} className="min-w-0 flex-1 truncate font-medium">
        {node.name}
      </span>{" "}
      <span id={`${labelId}-count`} className="text-xs text-zinc-500 tabular-nums group-focus-within:hidden group-hover:hidden dark:text-zinc-400">
        {node.count}
        <span className="sr-only"> documents</span>
      </span>
      {onNewIn && (
        <button
          type="button"
          tabIndex={row.tabIndex}
          aria-label={`New document in ${dir}`}
          title={`New document in ${dir}`}
          onClick={(e) => {
            e.stopPropagation();
            onNewIn(dir);
          }}
          onKeyDown={(e) => e.stopPropagation()}
          className="hidden size-6 shrink-0 items-center justify-center rounded text-zinc-500 dark:text-zinc-400 group-focus-within:inline-flex group-hover:inline-flex hover:bg-zinc-200 dark:hover:bg-zinc-700"
        >
          <FilePlus className="size-3.5" aria-hidden />
        </button>
      )}
    </div>
  );
}

interface DocRowProps {
  node: DocNode;
  row: RowProps;
  drop: DropProps;
  folder: string;
  selected: string | undefined;
  tag: string | undefined;
  recent: boolean;
  marked: readonly string[];
}

/** A document: a link that opens it (keeping the tag and sort), with its badges. */
function DocRow({ node, row, drop, folder, selected, tag, recent, marked }: DocRowProps) {
  const { doc, path, name } = node;
  const isSelected = path === selected;
  const stem = name.replace(/\.(md|markdown|mdx)$/i, "");
  const dir = parentDir(path);
  return (
    <Link
      {...row}
      {...drop}
      to="/f/$folder"
      params={{ folder }}
      search={{ doc: path, tag, sort: recent ? "recent" : undefined }}
      activeOptions={{ exact: true }}
      aria-selected={isSelected}
      aria-current={isSelected ? "page" : undefined}
      className={clsx(
        rowClass,
        isSelected ? "bg-zinc-200/80 text-zinc-950 dark:bg-zinc-800 dark:text-white" : "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800/60",
      )}
    >
      <span className={clsx("size-3.5 shrink-0", recent && "hidden")} aria-hidden />
      <Label title={doc.title} detail={recent ? (dir ? `${dir}/${name}` : name) : stem !== doc.title ? name : undefined} marked={marked}>
        {recent && <span className="shrink-0 text-xs text-zinc-500 group-hover:text-zinc-600 group-aria-[current=page]:text-zinc-600 dark:text-zinc-400 dark:group-hover:text-zinc-300 dark:group-aria-[current=page]:text-zinc-300">{ago(doc.mtime_ms)}</span>}
        {doc.created_by && <AgentBadge tool={doc.created_by} />}
        {doc.superseded_by.length > 0 && <SupersededBadge by={doc.superseded_by} />}
      </Label>
    </Link>
  );
}

function Label({ title, detail, marked, children }: { title: string; detail: string | undefined; marked: readonly string[]; children: ReactNode }) {
  return (
    <span className="flex min-w-0 flex-1 items-center gap-1.5">
      <span className="min-w-0 flex-1 truncate">
        <span>
          <Highlight text={title} words={marked} />
        </span>
        {detail && (
          <span className="ml-1.5 text-xs text-zinc-500 group-hover:text-zinc-600 group-aria-[current=page]:text-zinc-600 dark:text-zinc-400 dark:group-hover:text-zinc-300 dark:group-aria-[current=page]:text-zinc-300">
            <Highlight text={detail} words={marked} />
          </span>
        )}
      </span>
      {children}
    </span>
  );
}
