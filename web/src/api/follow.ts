//! Keeps the lists in step with the index. The folder counts and the document lists poll every
//! 15 s; `/api/status` polls every 2 s while the index is busy. When status shows that the index
//! has changed (a sync done, the counts moved), the lists are refetched at once, so a page opened
//! during the first index, or while an editor outside changes files, does not show old counts for
//! a quarter of a minute.
import { useEffect, useRef } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { Status } from "./client";
import { keys } from "./hooks";
import { refetch } from "./mutations";

/** What changes when the index does: whether it is open, the counts, the time of the last sync. */
export function indexMark(status: Status | undefined): string | undefined {
  if (!status) return undefined;
  if (!status.ready) return "loading";
  return `${status.files ?? ""}:${status.chunks ?? ""}:${status.last_sync?.at ?? ""}`;
}

/** The queries a changed index makes stale at once: the folder counts and the document lists. */
const LISTS = new Set<unknown>([keys.folders[0], keys.docs("")[0]]);

/** Refetches the folder counts and the document lists when `status` shows a changed index. */
export function useFollowIndex(status: Status | undefined): void {
  const client = useQueryClient();
  const mark = indexMark(status);
  const seen = useRef(mark);
  useEffect(() => {
    if (mark === undefined || mark === seen.current) return;
    const first = seen.current === undefined;
    seen.current = mark;
    // The lists load with the first status; only a change after it is news.
    if (first) return;
    void refetch(client, LISTS);
  }, [mark, client]);
}
