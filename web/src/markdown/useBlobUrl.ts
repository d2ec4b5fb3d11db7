//! Files from the docs directory as object URLs: images and attachments come through
//! `GET /api/file` with the bearer token (an `<img src>` could not send it), their bytes cached
//! 60 s by TanStack Query, and each object URL revoked once nothing shows it (or, for an
//! attachment opened in a tab, 60 s after it opened).
import { useQuery, type QueryClient } from "@tanstack/react-query";
import { useEffect, useMemo } from "react";
import { fileBlob } from "../api/client";
import { keys } from "../api/hooks";
import { basename } from "../lib/paths";
import { attachmentAction } from "./links";

const BLOB_MS = 60_000;

/** The bytes of a root-relative path, cached 60 s. */
export function blobQuery(path: string) {
  return {
    queryKey: keys.file(path),
    queryFn: () => fileBlob(path),
    staleTime: BLOB_MS,
    gcTime: BLOB_MS,
  };
}

/** One object URL per blob, shared by everything that shows it, counted so it can be revoked. */
interface Held {
  url: string;
  users: number;
  touched: number;
}
const held = new WeakMap<Blob, Held>();

/** How long a URL nothing uses lives on, so a quick remount (StrictMode, a re-render) keeps it. */
const LINGER_MS = 1_000;

function urlOf(blob: Blob): string {
  let entry = held.get(blob);
  if (!entry) {
    entry = { url: URL.createObjectURL(blob), users: 0, touched: 0 };
    held.set(blob, entry);
  }
  entry.touched = Date.now();
  return entry.url;
}

function retain(blob: Blob): void {
  urlOf(blob);
  held.get(blob)!.users++;
}

function release(blob: Blob): void {
  const entry = held.get(blob);
  if (!entry) return;
  entry.users--;
  const sweep = () => {
    if (entry.users > 0 || held.get(blob) !== entry) return;
    const idle = Date.now() - entry.touched;
    if (idle < LINGER_MS) {
      setTimeout(sweep, LINGER_MS - idle);
      return;
    }
    URL.revokeObjectURL(entry.url);
    held.delete(blob);
  };
  setTimeout(sweep, LINGER_MS);
}

/**
 * An object URL for the file at `path` (root-relative), or none yet; `error` when it cannot be
 * read. `null` as the path asks for nothing.
 */
export function useBlobUrl(path: string | null): { url: string | undefined; error: unknown; loading: boolean } {
  const query = useQuery({ ...blobQuery(path ?? ""), enabled: !!path });
  const blob = query.data;
  const url = useMemo(() => (blob ? urlOf(blob) : undefined), [blob]);
  useEffect(() => {
    if (!blob) return;
    retain(blob);
    return () => release(blob);
  }, [blob]);
  return { url, error: query.error, loading: query.isPending && !!path };
}

/** Clicks a temporary `<a>`: a new tab or a download, as a user's own click would. */
function follow(url: string, download?: string): void {
  const a = document.createElement("a");
  a.href = url;
  if (download) a.download = download;
  else {
    a.target = "_blank";
    a.rel = "noopener noreferrer";
  }
  document.body.append(a);
  a.click();
  a.remove();
}

/** Saves `blob` as `name` through the browser's download. */
export function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  follow(url, name);
  setTimeout(() => URL.revokeObjectURL(url), BLOB_MS);
}

/**
 * Opens an attachment (root-relative path): PDFs, images, audio, video and text in a new tab,
 * anything else (SVG, HTML, unknown) as a download. Throws the server's error.
 */
export async function openAttachment(client: QueryClient, path: string): Promise<void> {
  const blob = await client.fetchQuery(blobQuery(path));
  const action = attachmentAction(path);
  if (!action.open) {
    downloadBlob(blob, basename(path));
    return;
  }
  // Shown as the type its extension says, so text is plain text and nothing in it runs.
  const url = URL.createObjectURL(new Blob([blob], { type: action.type }));
  follow(url);
  setTimeout(() => URL.revokeObjectURL(url), BLOB_MS);
}
