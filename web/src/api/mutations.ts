//! TanStack Query mutations for every write the UI makes, typed from the OpenAPI schema, and what
//! each refetches once the server has answered (it answers once the index has synced). A write
//! whose caller closes its dialog only after the lists are fresh (a folder created, a setting
//! saved) stays pending until the refetch has landed; the others (a save, a move, a delete, which
//! navigate or carry on at once) start it and go on. Callers show the outcome (toasts, errors).
import { useMutation, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { ApiError, request, type Schemas } from "./client";
import { keys } from "./hooks";
import { messageOf } from "../lib/toast";

type Key = readonly unknown[];

/** The history's lists: every write through ragdown adds an entry to them. */
const HISTORY = [keys.history("")[0], "changes"] as const;

/**
 * The queries whose answers come from the documents on disk and the index over them: what a
 * write to a document or a folder changes (the counts, the lists, each document, its links, the
 * search hits and the files' bytes), and the history, which records every write. The query log is not among them: a write logs nothing.
 */
const INDEXED = new Set<unknown>([keys.status[0], keys.folders[0], "docs", "doc", "search", "backlinks", "resolve", keys.file("")[0], ...HISTORY]);

/** Refetches the queries of those `kinds` (the first part of a key), except what `skip` names. */
export function refetch(client: QueryClient, kinds: ReadonlySet<unknown> | "all", skip?: (key: Key) => boolean): Promise<void> {
  return client.invalidateQueries({ predicate: (q) => (kinds === "all" || kinds.has(q.queryKey[0])) && !skip?.(q.queryKey) });
}

/**
 * Whether a query key is about `path` or a path under it: `["doc", p]`, `["backlinks", p]`,
 * `["resolve", p, …]`, `["file", p]`. Those are what a move or a delete leaves behind: refetched
 * they would only 404.
 */
export function isOfPath(key: Key, path: string): boolean {
  const p = key[1];
  return (key[0] === "doc" || key[0] === "backlinks" || key[0] === "resolve" || key[0] === "file") && typeof p === "string" && (p === path || p.startsWith(`${path}/`));
}

/** Drops a moved or deleted path's queries from the cache, once nothing on screen shows them. */
export function useForgetPath(): (path: string) => void {
  const client = useQueryClient();
  return (path: string) => client.removeQueries({ predicate: (q) => isOfPath(q.queryKey, path) });
}

const saveDoc = (body: Schemas["SaveBody"]) => request<Schemas["Saved"]>("POST", "/api/doc", { body });

/** `POST /api/doc`: writes a document (the editor's save, a new note); 409 when it exists or changed. */
export function useSaveDoc() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: saveDoc,
    onSuccess: () => void refetch(client, INDEXED),
  });
}

/** One file's fate in an upload: being sent, written, already there (409), or refused. */
export type UploadOutcome = { state: "sending" } | { state: "done" } | { state: "exists" } | { state: "failed"; error: string };

export interface UploadBatch {
  files: readonly { name: string; path: string; read: () => Promise<string> }[];
  /** Replace what is there. */
  overwrite: boolean;
  /** Told as each file starts and ends. */
  onEach: (name: string, outcome: UploadOutcome) => void;
}

/**
 * Uploads files with `POST /api/doc`, one after another: each write answers once the index has
 * it, so the server never syncs a pile of files at once and each answer is about one file.
 * Resolves with how many were written, after the refetch when any was.
 */
export function useUploadDocs() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ files, overwrite, onEach }: UploadBatch) => {
      let done = 0;
      for (const file of files) {
        onEach(file.name, { state: "sending" });
        try {
          const text = await file.read();
          await saveDoc({ path: file.path, text, ...(overwrite ? { overwrite: true } : {}) });
          onEach(file.name, { state: "done" });
          done += 1;
        } catch (e) {
          onEach(file.name, e instanceof ApiError && e.status === 409 ? { state: "exists" } : { state: "failed", error: messageOf(e) });
        }
      }
      return done;
    },
    onSuccess: (done) => (done > 0 ? refetch(client, INDEXED) : undefined),
  });
}

/** `POST /api/move` (root-relative paths): the server rewrites the links to what moved. */
export function useMoveDoc() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { from: string; to: string }) => request<Schemas["Moved"]>("POST", "/api/move", { body: body satisfies Schemas["MoveBody"] }),
    onSuccess: (_moved, { from }) => void refetch(client, INDEXED, (key) => isOfPath(key, from)),
  });
}

/** `DELETE /api/doc`: deletes a document from disk. */
export function useDeleteDoc() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (path: string) => request<Schemas["Deleted"]>("DELETE", "/api/doc", { query: { path } }),
    onSuccess: (_deleted, path) => void refetch(client, INDEXED, (key) => isOfPath(key, path)),
  });
}

const folderPath = (name: string) => `/api/folders/${encodeURIComponent(name)}`;

/** `POST /api/folders`: a new top-level folder. Pending until the lists have it. */
export function useCreateFolder() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas["NewFolder"]) => request<Schemas["FolderAnswer"]>("POST", "/api/folders", { body }),
    onSuccess: () => refetch(client, INDEXED),
  });
}

/** `PATCH /api/folders/<name>`: renames a folder or changes its title, MCP switch or search defaults. */
export function useUpdateFolder() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ name, change }: { name: string; change: Schemas["FolderChange"] }) =>
      request<Schemas["FolderAnswer"]>("PATCH", folderPath(name), { body: change }),
    onSuccess: () => refetch(client, INDEXED),
  });
}

/** `DELETE /api/folders/<name>?confirm=<name>`: deletes a folder from disk. */
export function useDeleteFolder() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => request<Schemas["FolderDeleted"]>("DELETE", folderPath(name), { query: { confirm: name } }),
    // The deleted folder's own list would only answer 404 now: not refetched.
    onSuccess: (_deleted, name) => refetch(client, INDEXED, (key) => key[0] === "docs" && key[1] === name),
  });
}

/** `DELETE /api/loose?name=`: deletes a Markdown file outside every folder (only the folder list names those). */
export function useDeleteLoose() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => request<Schemas["LooseDeleted"]>("DELETE", "/api/loose", { query: { name } }),
    onSuccess: () => refetch(client, new Set([keys.folders[0]])),
  });
}

/**
 * `PATCH /api/settings`: only what changed, `null` back to its variable. Everything is refetched:
 * a new embedder rebuilds the index, and the defaults and the query log show everywhere.
 */
export function useUpdateSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (patch: Schemas["SettingsPatch"]) => request<Schemas["SettingsAnswer"]>("PATCH", "/api/settings", { body: patch }),
    onSuccess: () => refetch(client, "all"),
  });
}

/** `DELETE /api/query-log`: empties the query log. */
export function useClearQueryLog() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => request<Record<string, never>>("DELETE", "/api/query-log"),
    onSuccess: () => void refetch(client, new Set([keys.queryLog[0]])),
  });
}

/** What `POST /api/history/undo` refused: each path changed since the entry (409). */
export type UndoConflict = Schemas["UndoConflict"];

/**
 * `POST /api/history/undo`: undoes one entry; `resolve: "overwrite"` over files changed since.
 * A 409 resolves as `{ conflict }` rather than failing, since it asks the user a question.
 */
export function useUndoEntry() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: Schemas["UndoBody"]): Promise<{ undone: Schemas["Undone"] } | { conflict: UndoConflict }> => {
      try {
        return { undone: await request<Schemas["Undone"]>("POST", "/api/history/undo", { body }) };
      } catch (e) {
        if (e instanceof ApiError && e.status === 409 && e.body) return { conflict: e.body as UndoConflict };
        throw e;
      }
    },
    onSuccess: () => void refetch(client, INDEXED),
  });
}

/** `POST /api/history/undo-session`: undoes everything one agent session did, newest first. */
export function useUndoSession() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (session: string) => request<Schemas["SessionUndo"]>("POST", "/api/history/undo-session", { body: { session } }),
    onSuccess: () => void refetch(client, INDEXED),
  });
}

/** `POST /api/history/restore`: writes a stored version back (only over `base_hash` when given). */
export function useRestoreVersion() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas["RestoreBody"]) => request<Schemas["Restored"]>("POST", "/api/history/restore", { body }),
    onSuccess: () => void refetch(client, INDEXED),
  });
}
