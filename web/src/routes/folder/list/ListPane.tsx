//! The folder page's list pane: the folder's header (counts, New note and Upload when writable),
//! a "Jump to…" button for the quick switcher, Filter | Search, the Tags and Sort menus (both
//! in the URL), and below them the file tree (a directory at a time, `useBrowse`), what the
//! filter, tag or "Recently changed" picks (`GET /api/find`, a page at a time), or the search hits.
import { useMemo, useState } from "react";
import { Link, useNavigate } from "@tanstack/react-router";
import { ToggleGroup } from "radix-ui";
import { ArrowDownUp, FilePlus, History, Search as SearchIcon, Tag, Upload } from "lucide-react";
import { clsx } from "clsx";
import type { Folder } from "../../../api/client";
import { useFind, useTags, useWritable } from "../../../api/hooks";
import { IconButton } from "../../../components/ui/button";
import { Menu, MenuItem, MenuSeparator } from "../../../components/ui/menu";
import { Empty, ErrorCard, Skeletons } from "../../../components/ui/states";
import { words } from "../../../lib/rank";
import { plural } from "../../../lib/time";
import { FolderIcon } from "../../../shell/Sidebar";
import { openQuickSwitcher, shortcutLabel } from "../../../shell/QuickSwitcher";
import { normalizeTag } from "./filter";
import { QueryInput, type Mode } from "./QueryInput";
import { SearchResults } from "./SearchResults";
import { Tree, type TreeProps } from "./Tree";
import { parentDir } from "./tree";
import { useBrowse } from "./useBrowse";
import { useExpanded } from "./useExpanded";

export interface ListPaneProps {
  folder: Folder;
  /** The open document, inside the folder. */
  selected: string | undefined;
  tag: string | undefined;
  sort: "recent" | undefined;
  /** Opens New note with this subfolder. */
  onNewNote: (dir: string) => void;
  onUpload: () => void;
}

type Sort = ListPaneProps["sort"];
/** A change to the list's URL state. */
type SetSearch = (patch: { tag?: string | undefined; sort?: Sort }) => void;

const menuButton =
  "inline-flex h-8 items-center gap-1.5 rounded-md border border-zinc-300 px-2.5 text-sm text-zinc-700 hover:bg-zinc-50 data-[state=open]:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:data-[state=open]:bg-zinc-800";

export function ListPane({ folder, selected, tag, sort, onNewNote, onUpload }: ListPaneProps) {
  const writable = useWritable();
  const navigate = useNavigate({ from: "/f/$folder" });
  const [mode, setMode] = useState<Mode>("filter");
  const [query, setQuery] = useState("");
  const expanded = useExpanded(folder.name, selected);

  const wanted = useMemo(() => words(query), [query]);
  const filtering = wanted.length > 0 || !!tag;
  // A filter, a tag or "Recently changed" lists what the server picks; otherwise the tree.
  const picked = filtering || sort === "recent";
  const filters = useMemo(() => ({ q: wanted.join(" "), tag: tag ? normalizeTag(tag) : undefined, sort }), [wanted, tag, sort]);
  const found = useFind(folder.name, filters, mode === "filter" && picked);
  const foundDocs = useMemo(() => found.data?.pages.flatMap((p) => p.docs), [found.data]);
  const browse = useBrowse(folder.name, expanded.open, selected);
  const tags = useTags(folder.name);
  const setSearch: SetSearch = (patch) => void navigate({ search: (s) => ({ ...s, ...patch }) });

  const empty = <Empty title="No documents yet">{writable ? "Write a note or upload Markdown files to start." : "Markdown files put in this folder show up here."}</Empty>;
  const failed = (error: Error | null, retry: () => void) => (
    <div className="p-3">
      <ErrorCard error={error} onRetry={retry} />
    </div>
  );
  const tree = (source: TreeProps["source"]) => (
    <Tree folder={folder} source={source} expanded={expanded} onMore={browse.more} filtering={filtering} marked={wanted} recent={sort === "recent"} selected={selected} tag={tag} writable={writable} onNewIn={onNewNote} />
  );

  let body;
  if (mode === "search") body = <SearchResults folder={folder} query={query} tag={tag} selected={selected} sort={sort} />;
  else if (picked) {
    const total = found.data?.pages[0]?.total ?? 0;
    if (found.isPending) body = <Skeletons rows={8} label="Loading documents" />;
    else if (!foundDocs) body = failed(found.error, () => void found.refetch());
    else if (total === 0) body = folder.files === 0 ? empty : <p className="px-4 py-3 text-sm text-zinc-500 dark:text-zinc-400">Nothing in this folder matches that.</p>;
    else
      body = (
        <>
          {tree({ docs: foundDocs })}
          <ShowMore shown={foundDocs.length} total={total} loading={found.isFetchingNextPage} onMore={found.hasNextPage ? () => void found.fetchNextPage() : undefined} />
        </>
      );
  } else if (browse.top.isPending) body = <Skeletons rows={8} label="Loading documents" />;
  else if (!browse.listing || browse.listing.failed) body = failed(browse.top.error, () => void browse.top.refetch());
  else if (browse.listing.dirs.length === 0 && browse.listing.total_docs === 0) body = empty;
  else body = tree({ root: browse.root });

  return (
    <div className="flex h-full min-h-0 flex-col">
      <div className="space-y-3 px-3 pt-4 pb-3">
        <PaneHeader folder={folder} writable={writable} onNewNote={() => onNewNote(selected ? parentDir(selected) : "")} onUpload={onUpload} />
        <JumpButton />
        <div className="flex items-center gap-2">
          <ModeToggle mode={mode} onChange={setMode} />
          <div className="ml-auto flex items-center gap-1">
            <TagMenu tag={tag} tags={tags.data ?? []} setSearch={setSearch} />
            <SortMenu sort={sort} setSearch={setSearch} />
          </div>
        </div>
        <QueryInput mode={mode} query={query} onChange={setQuery} />
      </div>

      <div className="min-h-0 flex-1 overflow-y-auto border-t border-zinc-100 dark:border-zinc-800/60">{body}</div>
    </div>
  );
}

/** The folder's title, its counts and MCP state, New note and Upload when writable, and Recent changes. */
function PaneHeader({ folder, writable, onNewNote, onUpload }: { folder: Folder; writable: boolean; onNewNote: () => void; onUpload: () => void }) {
  return (
    <div className="flex items-start gap-2 px-1">
      <div className="min-w-0 flex-1">
        <h1 className="flex items-center gap-2 text-lg leading-tight font-semibold tracking-tight">
          <FolderIcon mcp={folder.mcp} className={clsx("size-4 shrink-0", folder.mcp ? "text-accent-600 dark:text-accent-500" : "text-zinc-500 dark:text-zinc-400")} />
          <span className="truncate" title={folder.name}>
            {folder.title}
          </span>
        </h1>
        <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
          {plural(folder.files, "file")} · {plural(folder.chunks, "chunk")} · {folder.mcp ? "on MCP" : "human-only"}
        </p>
      </div>
      <div className="flex shrink-0 gap-0.5">
        {writable && (
          <>
            <IconButton label="New note" onClick={onNewNote}>
              <FilePlus />
            </IconButton>
            <IconButton label="Upload Markdown files" onClick={onUpload}>
              <Upload />
            </IconButton>
          </>
        )}
        <RecentChanges folder={folder.name} />
      </div>
    </div>
  );
}

/** A link to the folder's Recent changes, looking like the icon buttons beside it. */
function RecentChanges({ folder }: { folder: string }) {
  return (
    <Link
      to="/f/$folder/changes"
      params={{ folder }}
      aria-label="Recent changes"
      title="Recent changes"
      className="inline-flex size-8 shrink-0 items-center justify-center rounded-md text-zinc-600 transition-colors hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100"
    >
      <History className="size-4" aria-hidden />
    </Link>
  );
}

/** "Jump to…": opens the quick switcher, showing its shortcut. */
function JumpButton() {
  return (
    <button
      type="button"
      onClick={openQuickSwitcher}
      className="flex h-8 w-full items-center gap-2 rounded-md bg-zinc-100 px-2.5 text-sm text-zinc-600 hover:bg-zinc-200/70 dark:bg-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-800"
    >
      <SearchIcon className="size-3.5" aria-hidden />
      <span className="flex-1 text-left">Jump to…</span>
      <kbd className="rounded border border-zinc-300 bg-white px-1.5 font-sans text-[11px] text-zinc-600 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-400">{shortcutLabel()}</kbd>
    </button>
  );
}

/** Filter | Search: whether the box filters the list or searches what the notes say. */
function ModeToggle({ mode, onChange }: { mode: Mode; onChange: (mode: Mode) => void }) {
  return (
    <ToggleGroup.Root
      type="single"
      value={mode}
      onValueChange={(v) => v && onChange(v as Mode)}
      aria-label="Filter or search"
      className="inline-flex rounded-md border border-zinc-300 p-0.5 dark:border-zinc-700"
    >
      {(["filter", "search"] as const).map((m) => (
        <ToggleGroup.Item
          key={m}
          value={m}
          className="h-7 rounded px-2.5 text-sm text-zinc-600 data-[state=on]:bg-zinc-100 data-[state=on]:font-medium data-[state=on]:text-zinc-900 dark:text-zinc-400 dark:data-[state=on]:bg-zinc-800 dark:data-[state=on]:text-zinc-100"
        >
          {m === "filter" ? "Filter" : "Search"}
        </ToggleGroup.Item>
      ))}
    </ToggleGroup.Root>
  );
}

/** Below a list sent in part: how much of it is shown, and the next page. */
function ShowMore({ shown, total, loading, onMore }: { shown: number; total: number; loading: boolean; onMore: (() => void) | undefined }) {
  if (shown >= total) return null;
  return (
    <div className="flex items-center gap-2 px-4 pb-6 text-xs text-zinc-500 dark:text-zinc-400">
      <span>
        Showing {shown.toLocaleString()} of {total.toLocaleString()}
      </span>
      {onMore && (
        <button type="button" disabled={loading} onClick={onMore} className="rounded px-1.5 py-0.5 font-medium text-accent-700 hover:bg-zinc-100 disabled:opacity-60 dark:text-accent-100 dark:hover:bg-zinc-800">
          {loading ? "Loading…" : "Show more"}
        </button>
      )}
    </div>
  );
}

/** The tag filter: every tag in the folder (and the one in the URL, even if none has it now). */
function TagMenu({ tag, tags: counted, setSearch }: { tag: string | undefined; tags: readonly { tag: string; count: number }[]; setSearch: SetSearch }) {
  const tags = counted.map((t) => t.tag);
  return (
    <Menu
      align="end"
      trigger={
        <button type="button" className={clsx(menuButton, tag && "border-accent-500 text-accent-700 dark:border-accent-500 dark:text-accent-100")} aria-label={tag ? `Tag filter: #${tag}` : "Tags"}>
          <Tag className="size-3.5" aria-hidden />
          <span className="max-w-24 truncate">{tag ? `#${tag}` : "Tags"}</span>
        </button>
      }
    >
      <MenuItem onSelect={() => setSearch({ tag: undefined })} checked={!tag}>
        All tags
      </MenuItem>
      <MenuSeparator />
      {tags.length === 0 && <p className="px-2 py-1.5 text-xs text-zinc-500 dark:text-zinc-400">No tags in this folder</p>}
      {(tag && !tags.includes(normalizeTag(tag)) ? [normalizeTag(tag), ...tags] : tags).map((t) => (
        <MenuItem key={t} onSelect={() => setSearch({ tag: t })} checked={!!tag && normalizeTag(tag) === t}>
          #{t}
        </MenuItem>
      ))}
    </Menu>
  );
}

/** By path (the tree) or Recently changed (a flat list). */
function SortMenu({ sort, setSearch }: { sort: Sort; setSearch: SetSearch }) {
  return (
    <Menu
      align="end"
      trigger={
        <button type="button" className={clsx(menuButton, "px-2")} aria-label={`Sort: ${sort === "recent" ? "Recently changed" : "By path"}`} title="Sort">
          <ArrowDownUp className="size-3.5" aria-hidden />
        </button>
      }
    >
      <MenuItem onSelect={() => setSearch({ sort: undefined })} checked={sort !== "recent"}>
        By path
      </MenuItem>
      <MenuItem onSelect={() => setSearch({ sort: "recent" })} checked={sort === "recent"}>
        Recently changed
      </MenuItem>
    </Menu>
  );
}
