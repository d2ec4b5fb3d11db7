//! OAuth over the API, the owner's side: a pending authorization request as the consent page
//! shows it and its answer (Allow or Deny), and the grants apps hold (listed and revoked under
//! Settings → Access). Owner-only routes: the server refuses them to any other token.
//!
//! The types are written by hand: the OpenAPI schema (`npm run gen:api`) did not describe these
//! routes when this was written. Regenerate and switch to `Schemas[...]` once it does.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { get, request } from "./client";

export type Access = "read" | "write";

/** The app asking, as the server knows it. Its name and URI are the app's own words: untrusted. */
export interface ConsentClient {
  /** A client-ID metadata document's https URL, or the id given at dynamic registration. */
  id: string;
  name: string;
  uri?: string | null;
  kind: "metadata_document" | "registered";
  /** Where the browser goes with the answer. */
  redirect_uri: string;
  redirect_host: string;
  /** The redirect goes to this computer (localhost, 127.0.0.1, ::1). */
  localhost_only: boolean;
}

/** `GET /api/oauth/requests/<id>`: one pending authorization request. */
export interface ConsentRequest {
  id: string;
  client: ConsentClient;
  /** The MCP endpoint the token will be bound to, e.g. `https://host/mcp/notes`. */
  resource: string;
  /** The folder (or subfolder) of that endpoint, e.g. `notes/work`. */
  path: string;
  access: Access;
  /** False when the endpoint is no folder with MCP on (any more): `problem` says why, and Allow is refused. */
  available?: boolean;
  problem?: string | null;
  /** Sent back with the answer: the server refuses an answer without it. */
  csrf: string;
  expires_ms: number;
}

/** The owner's answer; `access` may only narrow `write` to `read`. */
export interface ConsentAnswer {
  decision: "allow" | "deny";
  csrf: string;
  access: Access;
}

/** `GET /api/access/grants`: an app's standing access, from one approval. */
export interface Grant {
  id: string;
  client_id: string;
  client_name: string;
  resource: string;
  path: string;
  access: Access;
  created_ms: number;
  last_used_ms?: number | null;
  expires_ms?: number | null;
}

export const grantsKey = ["access-grants"] as const;
export const consentKey = (id: string) => ["oauth-request", id] as const;

/**
 * The pending request. Fetched once and kept: it is answered once, after which the server
 * forgets it, so a refetch would only turn a page about to leave into "expired".
 */
export function useConsentRequest(id: string) {
  return useQuery({
    queryKey: consentKey(id),
    queryFn: () => get<ConsentRequest>(`/api/oauth/requests/${encodeURIComponent(id)}`),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
}

/** `POST /api/oauth/requests/<id>`: the answer; the server says where the browser goes next. */
export function useAnswerConsent(id: string) {
  return useMutation({
    mutationFn: (answer: ConsentAnswer) => request<{ redirect: string }>("POST", `/api/oauth/requests/${encodeURIComponent(id)}`, { body: answer }),
  });
}

export function useGrants() {
  return useQuery({ queryKey: grantsKey, queryFn: () => get<Grant[]>("/api/access/grants") });
}

/** `DELETE /api/access/grants/<id>`: its access and refresh tokens end at once. */
export function useRevokeGrant() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request<{ revoked: string }>("DELETE", `/api/access/grants/${encodeURIComponent(id)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: grantsKey }),
  });
}
