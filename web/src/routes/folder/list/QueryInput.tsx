//! The list pane's query box: what Filter filters by or Search searches for, with its × to clear
//! it. Typed through an input method, the query changes when a composition ends, not on each of
//! its keystrokes (`lib/ime.ts`), so neither the filter nor `/api/search` runs on half a word.
import { Search as SearchIcon, X } from "lucide-react";
import { clsx } from "clsx";
import { useComposedInput } from "../../../lib/ime";

/** Whether the box filters the list or searches what the notes say. */
export type Mode = "filter" | "search";

/** The box the filter or the search reads, with its × to clear it. */
export function QueryInput({ mode, query, onChange }: { mode: Mode; query: string; onChange: (query: string) => void }) {
  const box = useComposedInput(query, onChange);
  const label = mode === "filter" ? "Filter by title, path or tag" : "Search what the notes say";
  return (
    <div className="relative">
      <SearchIcon
        className={clsx("pointer-events-none absolute top-1/2 left-2.5 size-3.5 -translate-y-1/2", mode === "search" ? "text-accent-500" : "text-zinc-500 dark:text-zinc-400")}
        aria-hidden
      />
      <input
        type="search"
        value={box.text}
        onChange={(e) => box.onText(e.target.value)}
        onCompositionStart={box.onCompositionStart}
        onCompositionEnd={box.onCompositionEnd}
        placeholder={label}
        aria-label={label}
        className="h-9 w-full rounded-md border border-zinc-300 bg-white pr-8 pl-8 text-sm placeholder:text-zinc-400 focus:border-accent-500 focus:ring-2 focus:ring-accent-500/30 focus:outline-none dark:border-zinc-700 dark:bg-zinc-950 dark:placeholder:text-zinc-500 [&::-webkit-search-cancel-button]:hidden"
      />
      {box.text && (
        <button
          type="button"
          aria-label="Clear"
          onClick={() => box.onText("")}
          className="absolute top-1/2 right-1.5 inline-flex size-6 -translate-y-1/2 items-center justify-center rounded text-zinc-500 dark:text-zinc-400 hover:bg-zinc-100 dark:hover:bg-zinc-800"
        >
          <X className="size-3.5" aria-hidden />
        </button>
      )}
    </div>
  );
}
