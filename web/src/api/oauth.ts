//! OAuth over the API, the owner's side: a pending authorization request as the consent page
//! shows it and its answer (Allow or Deny), and the grants apps hold (listed and revoked under
//! Settings → Access). Owner-only routes: the server refuses them to any other token.
//! The types come from the OpenAPI schema (`npm run gen:api`).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { get, request, type Schemas } from "./client";

export type Access = Schemas["Level"];

/** The app asking, as the server knows it. Its name and URI are the app's own words: untrusted. */
export type ConsentClient = Schemas["ClientView"];

/** `GET /api/oauth/requests/<id>`: one pending authorization request. */
export type ConsentRequest = Schemas["RequestView"];

/** The owner's answer; `access` may only narrow `write` to `read`. */
export type ConsentAnswer = Schemas["AnswerBody"];

/** `GET /api/access/grants`: an app's standing access, from one approval. */
export type Grant = Schemas["GrantView"];

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
    mutationFn: (answer: ConsentAnswer) => request<Schemas["Redirect"]>("POST", `/api/oauth/requests/${encodeURIComponent(id)}`, { body: answer }),
  });
}

export function useGrants() {
  return useQuery({ queryKey: grantsKey, queryFn: () => get<Grant[]>("/api/access/grants") });
}

/** `DELETE /api/access/grants/<id>`: its access and refresh tokens end at once. */
export function useRevokeGrant() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request<Schemas["RevokedGrant"]>("DELETE", `/api/access/grants/${encodeURIComponent(id)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: grantsKey }),
  });
}
