//! The folder's tree a directory at a time (`GET /api/browse`): the top, then each open directory
//! whose parents are open too, each `PAGE` documents at a time, a further page when its "more"
//! row is clicked. Every page is a query under the folder's `docs` key, so a write or a changed
//! index refetches what is on screen. A folder of 150,000 files sends what is open, not all.
import { useQueries } from "@tanstack/react-query";
import { useState } from "react";
import type { DocInfo } from "../../../api/client";
import { browseQuery } from "../../../api/hooks";
import { ancestors, treeOfListings, type Listing } from "./tree";

export function useBrowse(folder: string, open: ReadonlySet<string>) {
  // Pages asked for per directory, by folder and directory (one page unless more were asked).
  const [pages, setPages] = useState<ReadonlyMap<string, number>>(new Map());
  const pageKey = (dir: string) => `${folder}\n${dir}`;
  const dirs = ["", ...[...open].filter((dir) => dir && ancestors(`${dir}/-`).every((d) => open.has(d)))];
  const wanted = dirs.flatMap((dir) => Array.from({ length: pages.get(pageKey(dir)) ?? 1 }, (_, page) => ({ dir, page })));
  const results = useQueries({ queries: wanted.map(({ dir, page }) => browseQuery(folder, dir, page)) });

  // Each directory's pages joined, in order: its first page makes it, a later one adds to it.
  const listings = new Map<string, (Listing & { docs: DocInfo[] }) | undefined>();
  wanted.forEach(({ dir, page }, i) => {
    const { data, isError } = results[i]!;
    if (page === 0) {
      listings.set(dir, data ? { dirs: data.dirs, docs: [...data.docs], total_docs: data.total_docs, loading: false, failed: false } : isError ? { dirs: [], docs: [], total_docs: 0, loading: false, failed: true } : undefined);
      return;
    }
    const listed = listings.get(dir);
    if (!listed) return;
    if (data) listed.docs.push(...data.docs);
    else if (isError) listed.failed = true;
    else listed.loading = true;
  });

  /** The "more" row of `dir` clicked: the pages that failed again, else one page more. */
  const more = (dir: string) => {
    const failed = wanted.flatMap(({ dir: d }, i) => (d === dir && results[i]!.isError ? [results[i]!] : []));
    if (failed.length > 0) failed.forEach((r) => void r.refetch());
    else setPages((now) => new Map(now).set(pageKey(dir), (now.get(pageKey(dir)) ?? 1) + 1));
  };

  return { root: treeOfListings(folder, listings), top: results[0]!, listing: listings.get(""), more };
}
