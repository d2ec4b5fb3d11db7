//! The folder's documents as a `role="tree"`: subfolders that open and close (remembered per
//! folder for the tab's life; the selected document's directories open by themselves), arrow
//! keys, Home/End and typeahead, and drag and drop onto a subfolder (or the folder's top) to
//! move. Under "Recently changed" the same rows come as a flat list, newest first.
import { useEffect, useId, useMemo, useRef, useState, type DragEvent, type KeyboardEvent, type ReactNode } from "react";
import { Link } from "@tanstack/react-router";
import { ChevronRight, FilePlus, Folder as FolderClosed, FolderOpen } from "lucide-react";
import { clsx } from "clsx";
import type { DocInfo, Folder } from "../../../api/client";
import { ago } from "../../../lib/time";
import { AgentBadge, SupersededBadge } from "./badges";
import { insidePath } from "../../../lib/paths";
import { ancestors, buildTree, moveTarget, parentDir, recentDocs, visibleRows, type Row } from "./tree";
import { useMove } from "./useMove";

export interface TreeProps {
  folder: Folder;
  /** The documents to show (already filtered). */
  docs: readonly DocInfo[];
  /** A filter is on: every directory shows open, since only matches are listed. */
  filtering: boolean;
  recent: boolean;
  selected: string | undefined;
  tag: string | undefined;
  writable: boolean;
  onNewIn: (dir: string) => void;
}

const DRAG_TYPE = "application/x-ragdown-path";
const keyOf = (row: Row) => `${row.node.kind}:${row.node.path}`;

/** The open directories, kept in sessionStorage per folder, with the selection's ancestors added. */
function useExpanded(folder: string, selected: string | undefined) {
  const storageKey = `ragdown.tree.${folder}`;
  const [open, setOpen] = useState<ReadonlySet<string>>(() => {
    try {
      return new Set(JSON.parse(sessionStorage.getItem(storageKey) ?? "[]") as string[]);
    } catch {
      return new Set();
    }
  });
  const save = (next: Set<string>) => {
    setOpen(next);
    try {
      sessionStorage.setItem(storageKey, JSON.stringify([...next]));
    } catch {
      // storage full or off: the tree still opens, only for this page's life
    }
  };
  const [revealed, setRevealed] = useState<string | undefined>(undefined);
  if (selected !== revealed) {
    setRevealed(selected);
    const missing = selected ? ancestors(selected).filter((d) => !open.has(d)) : [];
    if (missing.length) save(new Set([...open, ...missing]));
  }
  const toggle = (dir: string, to = !open.has(dir)) => {
    if (to === open.has(dir)) return;
    const next = new Set(open);
    if (to) next.add(dir);
    else next.delete(dir);
    save(next);
  };
  return { isOpen: (dir: string) => open.has(dir), toggle };
}

export function Tree({ folder, docs, filtering, recent, selected, tag, writable, onNewIn }: TreeProps) {
  const { isOpen, toggle } = useExpanded(folder.name, selected);
  const move = useMove(folder, selected);
  const [focusKey, setFocusKey] = useState<string | undefined>(undefined);
  const [dragging, setDragging] = useState<string | undefined>(undefined);
  const [dropDir, setDropDir] = useState<string | undefined>(undefined);
  const typed = useRef({ text: "", at: 0 });
  const treeRef = useRef<HTMLDivElement>(null);
  const ids = useId();

  const root = useMemo(() => buildTree(docs, folder.name), [docs, folder.name]);
  const flat = useMemo(
    () =>
      recent
        ? recentDocs(docs).map((doc, i, all): Row => {
            const path = insidePath(folder.name, doc.path);
            return { node: { kind: "doc", name: path.slice(path.lastIndexOf("/") + 1), path, doc }, level: 1, posinset: i + 1, setsize: all.length, parent: "" };
          })
        : undefined,
    [recent, docs, folder.name],
  );
  const rows: Row[] = flat ?? visibleRows(root, (dir) => filtering || isOpen(dir));
  const selectedKey = selected === undefined ? undefined : `doc:${selected}`;
  const tabKey = rows.some((r) => keyOf(r) === focusKey) ? focusKey : rows.some((r) => keyOf(r) === selectedKey) ? selectedKey : rows[0] && keyOf(rows[0]);

  // The selected row comes into view when the selection changes (a link, the switcher, a move).
  useEffect(() => {
    if (selected !== undefined) treeRef.current?.querySelector(`[data-key="${CSS.escape(`doc:${selected}`)}"]`)?.scrollIntoView({ block: "nearest" });
  }, [selected]);

  const focusRow = (row: Row | undefined) => {
    if (!row) return;
    setFocusKey(keyOf(row));
    treeRef.current?.querySelector<HTMLElement>(`[data-key="${CSS.escape(keyOf(row))}"]`)?.focus();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
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
        handled = false;
        if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
          const now = e.timeStamp;
          typed.current = { text: (now - typed.current.at < 700 ? typed.current.text : "") + e.key.toLowerCase(), at: now };
          const label = (r: Row) => (r.node.kind === "doc" ? r.node.doc.title : r.node.name).toLowerCase();
          const after = [...rows.slice(i + 1), ...rows.slice(0, i + 1)];
          const hit = (typed.current.text.length > 1 ? [row, ...after] : after).find((r) => label(r).startsWith(typed.current.text));
          if (hit) focusRow(hit);
          handled = !!hit;
        }
    }
    if (handled) e.preventDefault();
  };

  const dragStart = (path: string) => (e: DragEvent) => {
    e.dataTransfer.setData(DRAG_TYPE, path);
    e.dataTransfer.effectAllowed = "move";
    setDragging(path);
  };
  // A row takes the events over it whether or not it accepts the drop, so a drop on the dragged
  // file's own directory is refused rather than falling through to the folder's top.
  const dropOn = (dir: string) => ({
    onDragOver: (e: DragEvent) => {
      if (!dragging) return;
      e.stopPropagation();
      if (moveTarget(dragging, dir) === null) {
        setDropDir(undefined);
        return;
      }
      e.preventDefault();
      e.dataTransfer.dropEffect = "move";
      setDropDir(dir);
    },
    onDrop: (e: DragEvent) => {
      const from = e.dataTransfer.getData(DRAG_TYPE) || dragging;
      e.preventDefault();
      e.stopPropagation();
      setDropDir(undefined);
      setDragging(undefined);
      if (from && moveTarget(from, dir) !== null) void move(from, dir);
    },
  });
  const dragEnd = () => {
    setDragging(undefined);
    setDropDir(undefined);
  };

  return (
    <div
      ref={treeRef}
      role="tree"
      aria-label={`Documents in ${folder.title}`}
      onKeyDown={onKeyDown}
      {...dropOn("")}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDropDir(undefined);
      }}
      className={clsx("min-h-full px-2 pt-1 pb-6", dropDir === "" && "rounded-md bg-accent-50 ring-2 ring-accent-500/40 ring-inset dark:bg-accent-500/10")}
    >
      {rows.map((row, i) => {
        const key = keyOf(row);
        const common = {
          "data-key": key,
          role: "treeitem" as const,
          "aria-level": row.level,
          "aria-posinset": row.posinset,
          "aria-setsize": row.setsize,
          tabIndex: key === tabKey ? 0 : -1,
          onFocus: () => setFocusKey(key),
          draggable: writable,
          onDragStart: dragStart(row.node.path),
          onDragEnd: dragEnd,
          style: { paddingLeft: `${(row.level - 1) * 0.875 + 0.5}rem` },
        };
        const rowClass = "group flex w-full min-w-0 items-center gap-1.5 rounded-md py-1 pr-1 text-sm outline-none focus-visible:ring-2 focus-visible:ring-accent-500";
        if (row.node.kind === "dir") {
          const dir = row.node.path;
          const open = filtering || isOpen(dir);
          const Icon = open ? FolderOpen : FolderClosed;
          return (
            <div
              key={key}
              {...common}
              {...(writable ? dropOn(dir) : {})}
              aria-expanded={open}
              aria-labelledby={`${ids}-${i}-name ${ids}-${i}-count`}
              onClick={() => !filtering && toggle(dir)}
              className={clsx(rowClass, "cursor-default text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800/60", dropDir === dir && "bg-accent-100 ring-2 ring-accent-500/50 dark:bg-accent-500/20")}
            >
              <ChevronRight className={clsx("size-3.5 shrink-0 text-zinc-500 dark:text-zinc-400 transition-transform", open && "rotate-90")} aria-hidden />
              <Icon className="size-4 shrink-0 text-zinc-500 dark:text-zinc-400" aria-hidden />
              <span id={`${ids}-${i}-name`} className="min-w-0 flex-1 truncate font-medium">
                {row.node.name}
              </span>{" "}
              <span id={`${ids}-${i}-count`} className="text-xs text-zinc-500 tabular-nums group-focus-within:hidden group-hover:hidden dark:text-zinc-400">
                {row.node.count}
                <span className="sr-only"> documents</span>
              </span>
              {writable && (
                <button
                  type="button"
                  tabIndex={key === tabKey ? 0 : -1}
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
        const { doc, path, name } = row.node;
        const isSelected = path === selected;
        const stem = name.replace(/\.(md|markdown|mdx)$/i, "");
        const dir = parentDir(path);
        return (
          <Link
            key={key}
            {...common}
            {...(writable ? dropOn(parentDir(path)) : {})}
            to="/f/$folder"
            params={{ folder: folder.name }}
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
            <Label title={doc.title} detail={recent ? (dir ? `${dir}/${name}` : name) : stem !== doc.title ? name : undefined}>
              {recent && <span className="shrink-0 text-xs text-zinc-500 group-aria-[current=page]:text-zinc-600 dark:text-zinc-400 dark:group-aria-[current=page]:text-zinc-300">{ago(doc.mtime_ms)}</span>}
              {doc.created_by && <AgentBadge tool={doc.created_by} />}
              {doc.superseded_by.length > 0 && <SupersededBadge by={doc.superseded_by} />}
            </Label>
          </Link>
        );
      })}
    </div>
  );
}

function Label({ title, detail, children }: { title: string; detail: string | undefined; children: ReactNode }) {
  return (
    <span className="flex min-w-0 flex-1 items-center gap-1.5">
      <span className="min-w-0 flex-1 truncate">
        <span>{title}</span>
        {detail && <span className="ml-1.5 text-xs text-zinc-500 group-aria-[current=page]:text-zinc-600 dark:text-zinc-400 dark:group-aria-[current=page]:text-zinc-300">{detail}</span>}
      </span>
      {children}
    </span>
  );
}
