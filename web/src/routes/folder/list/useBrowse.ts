//! The folder's tree a directory at a time (`GET /api/browse`): the top, then each open directory
//! whose parents are open too, each `PAGE` documents at a time, a further page when its "more"
//! row is clicked, and the selected document's directory grows a page at a time until it holds
//! that document (a link to the 7,000th entry of a directory shows it). Every page is a query
//! under the folder's `docs` key, so a write or a changed index refetches what is on screen. A
//! folder of 150,000 files sends what is open, not all.
import { useQueries } from "@tanstack/react-query";
import { useState } from "react";
import type { DocInfo } from "../../../api/client";
import { browseQuery, PAGE } from "../../../api/hooks";
import { insidePath } from "../../../lib/paths";
import { ancestors, parentDir, treeOfListings, type Listing } from "./tree";

export function useBrowse(folder: string, open: ReadonlySet<string>, selected: string | undefined) {
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

  // The selected document not among its directory's pages, which are all in and not all there
  // is: one page more (each render until it is found, one page in flight at a time).
  const home = selected === undefined ? undefined : listings.get(parentDir(selected));
  if (selected !== undefined && home && !home.loading && !home.failed && home.docs.length < home.total_docs && !home.docs.some((d) => insidePath(folder, d.path) === selected)) {
    const key = pageKey(parentDir(selected));
    const asked = pages.get(key) ?? 1;
    if (asked * PAGE <= home.docs.length) setPages(new Map(pages).set(key, asked + 1));
  }

  /** The "more" row of `dir` clicked: the pages that failed again, else one page more. */
  const more = (dir: string) => {
    const failed = wanted.flatMap(({ dir: d }, i) => (d === dir && results[i]!.isError ? [results[i]!] : []));
    if (failed.length > 0) failed.forEach((r) => void r.refetch());
    else setPages((now) => new Map(now).set(pageKey(dir), (now.get(pageKey(dir)) ?? 1) + 1));
  };

  return { root: treeOfListings(folder, listings), top: results[0]!, listing: listings.get(""), more };
}
