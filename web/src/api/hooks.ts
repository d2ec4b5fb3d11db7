//! TanStack Query hooks over the API's reads: one query key per resource, and the polling and retry
//! rules (status every 2 s while busy, 15 s otherwise; lists every 15 s; a 4xx is
//! never retried). The writes, and what each refetches after it, are in `mutations.ts`.
import { keepPreviousData, useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { get, type Backlinks, type Doc, type FolderList, type Resolved, type Schemas, type SearchHit, type Status } from "./client";

type DirListing = Schemas["DirListing"];
type Found = Schemas["Found"];
type TagList = Schemas["TagList"];
type Jumps = Schemas["Jumps"];

export const keys = {
  status: ["status"] as const,
  folders: ["folders"] as const,
  /** Every list of a folder's documents is under this key, so one refetch covers them all. */
  docs: (folder: string) => ["docs", folder] as const,
  /** One page of one directory of a folder's tree (`GET /api/browse`); under `docs`, so what
   * refetches the lists refetches it. */
  browse: (folder: string, dir: string, page: number) => ["docs", folder, "browse", dir, page] as const,
  /** The pages of what the list's filter, tag and sort pick (`GET /api/find`). */
  find: (folder: string, filters: FindFilters) => ["docs", folder, "find", filters] as const,
  /** A folder's tags (`GET /api/tags`). */
  tags: (folder: string) => ["docs", folder, "tags"] as const,
  /** The quick switcher's matches for what was typed (`GET /api/jump`), over every folder. */
  jump: (q: string, limit: number) => ["docs", "*", "jump", q, limit] as const,
  /** `[[` completion's offers in a folder for what was typed (`GET /api/complete`). */
  complete: (folder: string, q: string) => ["docs", folder, "complete", q] as const,
  doc: (path: string) => ["doc", path] as const,
  search: (folder: string, q: string, tag: string | undefined) => ["search", folder, q, tag ?? ""] as const,
  backlinks: (path: string) => ["backlinks", path] as const,
  resolve: (from: string, link: string) => ["resolve", from, link] as const,
  /** The bytes of a file in the docs dir (`markdown/useBlobUrl.ts`). */
  file: (path: string) => ["file", path] as const,
  queryLog: ["query-log"] as const,
  /** A document's history (`GET /api/history`). */
  history: (path: string) => ["history", path] as const,
  /** Recent changes (`GET /api/history/changes`) under these filters. */
  changes: (filters: ChangeFilters) => ["changes", filters] as const,
  /** One stored version: content-addressed, so never stale. */
  version: (hash: string) => ["version", hash] as const,
};

/** The filters of the recent changes. */
export interface ChangeFilters {
  folder: string;
  session?: string;
  tool?: string;
  path?: string;
}

/** What the list's filter asks `GET /api/find` for. */
export interface FindFilters {
  q: string;
  tag: string | undefined;
  sort: "recent" | undefined;
}

/** Documents in one page of the tree or of a filtered list: the DOM stays a few hundred rows
 * however large the folder, and each request stays small (`GET /api/docs` sends them all). */
export const PAGE = 500;

export const POLL_MS = 15_000;
const BUSY_POLL_MS = 2_000;

export function useStatus() {
  return useQuery({
    queryKey: keys.status,
    queryFn: () => get<Status>("/api/status"),
    refetchInterval: (query) => {
      const s = query.state.data;
      return !s || !s.ready || s.syncing || s.progress?.running ? BUSY_POLL_MS : POLL_MS;
    },
  });
}

/** Whether writes are allowed: the index is open and the server is not read-only. */
export function useWritable(): boolean {
  const { data } = useStatus();
  return !!data && data.ready && !data.read_only && data.role !== "reader";
}

export function useFolders() {
  return useQuery({ queryKey: keys.folders, queryFn: () => get<FolderList>("/api/folders"), refetchInterval: POLL_MS });
}

/** Page `page` of the directory `dir` (inside the folder, "" for its top): all its
 * subdirectories with their counts, and up to `PAGE` of its documents. For `useQueries`. */
export function browseQuery(folder: string, dir: string, page: number) {
  return {
    queryKey: keys.browse(folder, dir, page),
    queryFn: () => get<DirListing>("/api/browse", { folder, dir, offset: page * PAGE, limit: PAGE }),
    refetchInterval: POLL_MS,
  };
}

/** What the filter, tag and sort pick in a folder, `PAGE` documents at a time. */
export function useFind(folder: string, filters: FindFilters, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: keys.find(folder, filters),
    queryFn: ({ pageParam }) => get<Found>("/api/find", { folder, q: filters.q, tag: filters.tag, sort: filters.sort, offset: pageParam, limit: PAGE }),
    initialPageParam: 0,
    getNextPageParam: (last, pages) => {
      const shown = pages.reduce((n, p) => n + p.docs.length, 0);
      return shown < last.total && last.docs.length > 0 ? shown : undefined;
    },
    enabled,
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
  });
}

/** Every tag of a folder's documents, with how many carry each. */
export function useTags(folder: string) {
  return useQuery({ queryKey: keys.tags(folder), queryFn: async () => (await get<TagList>("/api/tags", { folder })).tags, refetchInterval: POLL_MS });
}

/** `[[` completion's source of offers in a folder: asks the server for what was typed (answers
 * kept 10 s, so typing back over a target asks nothing again). */
export function useLinkOffers(folder: string): (q: string) => Promise<Schemas["LinkOffer"][]> {
  const client = useQueryClient();
  return useCallback(
    (q: string) =>
      client.fetchQuery({
        queryKey: keys.complete(folder, q),
        queryFn: async () => (await get<Schemas["LinkOffers"]>("/api/complete", { folder, q, limit: 50 })).offers,
        staleTime: 10_000,
      }),
    [client, folder],
  );
}

/** The quick switcher's documents for what was typed, best first, ranked by the server over
 * every folder (with nothing typed, the most recently changed). */
export function useJump(q: string, limit: number) {
  return useQuery({
    queryKey: keys.jump(q, limit),
    queryFn: async () => (await get<Jumps>("/api/jump", { q, limit })).docs,
    placeholderData: keepPreviousData,
  });
}

export function useDoc(path: string | undefined) {
  return useQuery({
    queryKey: keys.doc(path ?? ""),
    queryFn: () => get<Doc>("/api/doc", { path }),
    enabled: !!path,
    refetchInterval: POLL_MS,
  });
}

export function useSearch(folder: string, q: string, tag: string | undefined) {
  return useQuery({
    queryKey: keys.search(folder, q, tag),
    queryFn: async () => (await get<{ hits: SearchHit[] }>("/api/search", { folder, q, tag, top_k: 20 })).hits,
    enabled: q.trim().length > 0,
    placeholderData: keepPreviousData,
  });
}

export function useBacklinks(path: string | undefined) {
  return useQuery({
    queryKey: keys.backlinks(path ?? ""),
    queryFn: () => get<Backlinks>("/api/backlinks", { path }),
    enabled: !!path,
    refetchInterval: POLL_MS,
  });
}

/** Where `link`, written in the document `from`, points; `null` when nothing matches (404). */
export function resolveQuery(from: string, link: string) {
  return {
    queryKey: keys.resolve(from, link),
    queryFn: async (): Promise<Resolved | null> => {
      try {
        return await get<Resolved>("/api/resolve", { from, link });
      } catch (e) {
        if (e instanceof Error && "status" in e && (e as { status: number }).status === 404) return null;
        throw e;
      }
    },
    staleTime: 30_000,
  };
}

export function useResolve(from: string, link: string) {
  return useQuery(resolveQuery(from, link));
}

/** A document's history, newest first, with the hash of the file on disk now. */
export function useDocHistory(path: string) {
  return useQuery({ queryKey: keys.history(path), queryFn: () => get<Schemas["DocHistory"]>("/api/history", { path }), refetchInterval: POLL_MS });
}

/** The recent changes in a folder, newest first, and the agent sessions among them. */
export function useChanges(filters: ChangeFilters) {
  return useQuery({
    queryKey: keys.changes(filters),
    queryFn: () => get<Schemas["Changes"]>("/api/history/changes", { ...filters }),
    refetchInterval: POLL_MS,
    placeholderData: keepPreviousData,
  });
}

/** One stored version's content (`null` text for a binary file); `undefined` hash, no query. */
export function useVersion(hash: string | null | undefined) {
  return useQuery({
    queryKey: keys.version(hash ?? ""),
    queryFn: () => get<Schemas["Version"]>("/api/history/version", { hash }),
    enabled: !!hash,
    staleTime: Infinity,
  });
}

/** Reads again every query on screen, e.g. after "Discard mine" drops edits for the disk's text. */
/** The query log summed up (`GET /api/query-log`). Its shape is not in the OpenAPI description
 * (the server sends it as free JSON), so the caller names the type it reads. */
export function useQueryLog<T>() {
  return useQuery({ queryKey: keys.queryLog, queryFn: () => get<T>("/api/query-log"), refetchInterval: POLL_MS });
}

export function useRefreshAll() {
  const client = useQueryClient();
  return useCallback(() => client.invalidateQueries(), [client]);
}
