//! After a document moves or goes away, its old path's queries (the document, its backlinks, its
//! links' resolutions, its bytes) must not be refetched: they would only 404.
import type { QueryClient } from "@tanstack/react-query";

/** Whether a query key is about `path`: `["doc", path]`, `["backlinks", path]`, `["resolve", path, …]`, `["file", path]`. */
export function isOfPath(key: readonly unknown[], path: string): boolean {
  return key[1] === path && (key[0] === "doc" || key[0] === "backlinks" || key[0] === "resolve" || key[0] === "file");
}

/** Drops the old path's queries from the cache, so nothing shows or refetches them. */
export function forgetPath(client: QueryClient, path: string): void {
  client.removeQueries({ predicate: (q) => isOfPath(q.queryKey, path) });
}
