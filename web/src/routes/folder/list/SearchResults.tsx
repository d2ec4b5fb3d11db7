//! Search mode's results: `GET /api/search` 250 ms after typing stops, the old hits kept (dimmed)
//! while new ones load; each hit opens its document at its heading (the URL hash is the slug of
//! the breadcrumb's last part, so the preview scrolls there).
import { useEffect, useState } from "react";
import { Link } from "@tanstack/react-router";
import { clsx } from "clsx";
import type { Folder } from "../../../api/client";
import { useSearch } from "../../../api/hooks";
import { ErrorCard, Skeleton } from "../../../components/ui/states";
import { ago } from "../../../lib/time";
import { AgentBadge } from "./badges";
import { headingSlug, snippet } from "./filter";
import { insidePath } from "../../../lib/paths";

export const SEARCH_DEBOUNCE_MS = 250;

/** `value`, once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export interface SearchResultsProps {
  folder: Folder;
  query: string;
  tag: string | undefined;
  selected: string | undefined;
  sort: "recent" | undefined;
}

export function SearchResults({ folder, query, tag, selected, sort }: SearchResultsProps) {
  const q = useDebounced(query.trim(), SEARCH_DEBOUNCE_MS);
  const search = useSearch(folder.name, q, tag);

  if (!query.trim()) {
    return <p className="px-4 py-3 text-sm text-zinc-500 dark:text-zinc-400">Ask a question or type a few words: search reads what the notes say, not only their titles.</p>;
  }
  if (search.isError && !search.data) {
    return (
      <div className="p-3">
        <ErrorCard error={search.error} onRetry={() => void search.refetch()} />
      </div>
    );
  }
  if (!search.data) {
    return (
      <div role="status" aria-label="Searching" className="space-y-4 px-4 py-3">
        {[0, 1, 2].map((i) => (
          <div key={i} className="space-y-1.5">
            <Skeleton className="h-4 w-1/2" />
            <Skeleton className="h-3 w-1/3" />
            <Skeleton className="h-3 w-full" />
          </div>
        ))}
      </div>
    );
  }
  const stale = search.isPlaceholderData || q !== query.trim();
  if (search.data.length === 0 && !stale) return <p className="px-4 py-3 text-sm text-zinc-500 dark:text-zinc-400">Nothing in this folder matches that.</p>;
  return (
    <ul aria-label="Search results" aria-busy={stale} className={clsx("space-y-0.5 px-2 py-1 transition-opacity", stale && "opacity-60")}>
      {search.data.map((hit) => {
        const doc = insidePath(folder.name, hit.path);
        const hash = headingSlug(hit.heading);
        return (
          <li key={`${hit.path}:${hit.start_line}`}>
            <Link
              to="/f/$folder"
              params={{ folder: folder.name }}
              search={{ doc, tag, sort }}
              hash={hash}
              aria-current={doc === selected ? "page" : undefined}
              className={clsx(
                "block rounded-md px-2 py-2 text-sm outline-none focus-visible:ring-2 focus-visible:ring-accent-500",
                doc === selected ? "bg-zinc-50 ring-1 ring-zinc-200 ring-inset dark:bg-zinc-800/70 dark:ring-zinc-700" : "hover:bg-zinc-50 dark:hover:bg-zinc-800/60",
              )}
            >
              <span className="flex items-center gap-1.5">
                <span className="min-w-0 flex-1 truncate font-medium text-zinc-900 dark:text-zinc-100">{hit.title}</span>
                {hit.created_by && <AgentBadge tool={hit.created_by} />}
              </span>
              <span className="block truncate text-xs text-zinc-500 dark:text-zinc-400">{hit.heading}</span>
              <span className="mt-0.5 line-clamp-2 text-xs text-zinc-600 dark:text-zinc-400">{snippet(hit.text)}</span>
              <span className="mt-0.5 block text-[11px] text-zinc-500 dark:text-zinc-400">changed {ago(hit.mtime_ms)}</span>
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
