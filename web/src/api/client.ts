//! The one way the UI talks to the server: `fetch` with the kept bearer token, JSON in and out,
//! and every failure as an `ApiError` carrying the server's `{error, code}`.
import type { components } from "./schema";
import { getToken } from "../lib/token";

export type Schemas = components["schemas"];
export type Status = Schemas["Status"];
export type Folder = Schemas["FolderView"];
export type FolderList = Schemas["FolderList"];
export type DocInfo = Schemas["DocInfo"];
export type Doc = Schemas["Doc"];
export type SearchHit = Schemas["SearchHit"];
export type Backlinks = Schemas["Backlinks"];
export type Resolved = Schemas["Resolved"];
export type Saved = Schemas["Saved"];
export type Moved = Schemas["Moved"];
export type FolderHook = Schemas["FolderHook"];
export type SettingsView = Schemas["SettingsView"];
export type SettingsPatch = Schemas["SettingsPatch"];
export type FolderChange = Schemas["FolderChange"];
export type Sync = Schemas["Sync"];

/** A failed request: the HTTP status and the server's message and code. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  /** The whole JSON answer, for errors that carry more than a message (an undo's conflicts). */
  readonly body: unknown;
  constructor(status: number, message: string, code?: string | null, body?: unknown) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code ?? undefined;
    this.body = body;
  }
}

/** Listeners told when the server answers 401, so the token gate can show at once. */
const unauthorized = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorized.add(listener);
  return () => unauthorized.delete(listener);
}

export type Query = Record<string, string | number | boolean | undefined | null>;

/** `path?query`, leaving out empty values. */
export function url(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  }
  const q = params.toString();
  return q ? `${path}?${q}` : path;
}

function headers(json: boolean): Headers {
  const h = new Headers();
  const token = getToken();
  if (token) h.set("Authorization", `Bearer ${token}`);
  if (json) h.set("Content-Type", "application/json");
  return h;
}

async function failure(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText}`;
  let code: string | undefined;
  let body: unknown;
  try {
    body = await response.json();
    const { error, code: given } = body as { error?: string; code?: string | null };
    if (error) message = error;
    code = given ?? undefined;
  } catch {
    // not JSON: keep the status line
  }
  if (response.status === 401) unauthorized.forEach((f) => f());
  return new ApiError(response.status, message, code, body);
}

/** Sends a request and parses its JSON answer; throws an `ApiError` on any non-2xx. */
export async function request<T>(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<T> {
  const init: RequestInit = { method, headers: headers(options.body !== undefined) };
  if (options.body !== undefined) init.body = JSON.stringify(options.body);
  let response: Response;
  try {
    response = await fetch(url(path, options.query), init);
  } catch (e) {
    throw new ApiError(0, `Server unreachable: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

export const get = <T>(path: string, query?: Query) => request<T>("GET", path, { query });

/** The address of a file's raw bytes (`GET /api/file`), for a link that is opened with the token
 * on click. */
export const fileUrl = (path: string) => url("/api/file", { path });

/** The raw bytes of a file in the docs dir (`GET /api/file`), for images and attachments. */
export async function fileBlob(path: string): Promise<Blob> {
  const response = await fetch(fileUrl(path), { headers: headers(false) });
  if (!response.ok) throw await failure(response);
  return response.blob();
}

/** Whether a failure is worth retrying: network errors and 5xx, not the server's "no". */
export function retryable(error: unknown): boolean {
  return !(error instanceof ApiError && error.status >= 400 && error.status < 500);
}
