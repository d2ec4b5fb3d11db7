//! Settings → Access over the API: the list of scoped tokens, making one (its secret comes back
//! once, in the answer) and revoking one. The owner's routes: the server refuses them to any
//! other token.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { get, request, type Schemas } from "./client";

export type TokenView = Schemas["TokenView"];
export type CreatedToken = Schemas["CreatedToken"];

export const tokensKey = ["access-tokens"] as const;

export function useTokens() {
  return useQuery({ queryKey: tokensKey, queryFn: () => get<Schemas["TokenList"]>("/api/access/tokens") });
}

/** `POST /api/access/tokens`: pending until the list has the new token. */
export function useCreateToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas["NewTokenBody"]) => request<CreatedToken>("POST", "/api/access/tokens", { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: tokensKey }),
  });
}

/** `DELETE /api/access/tokens/<id>`: refused from the next request on. */
export function useRevokeToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request<Schemas["Revoked"]>("DELETE", `/api/access/tokens/${encodeURIComponent(id)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: tokensKey }),
  });
}
