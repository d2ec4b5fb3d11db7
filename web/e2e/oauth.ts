// OAuth as a client does it, for the e2e tests: dynamic client registration, PKCE S256, the
// authorize address, the code traded for tokens; and `connectApp`, a whole approval through the
// owner's API (no browser), for tests that only need an app connected.
import { createHash, randomBytes } from "node:crypto";
import { TOKEN, type Server } from "./fixtures";

/** `POST /oauth/register` (RFC 7591) as a public client; throws unless it is created. */
export async function register(server: Server, name: string, redirectUri: string): Promise<string> {
  const response = await fetch(`${server.url}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`register: ${response.status} ${text}`);
  return (JSON.parse(text) as { client_id: string }).client_id;
}

/** A PKCE verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** `/oauth/authorize?…` for a code with PKCE S256, state `xyz`, both scopes, bound to `resource`. */
export function authorizePath(clientId: string, redirectUri: string, challenge: string, resource: string): string {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "xyz",
    scope: "read write",
    resource,
  });
  return `/oauth/authorize?${query.toString()}`;
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

/** `POST /oauth/token`: a code traded for tokens, with its verifier and resource; throws on failure. */
export async function exchange(server: Server, fields: { code: string; redirectUri: string; clientId: string; verifier: string; resource: string }): Promise<Tokens> {
  const response = await fetch(`${server.url}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: fields.code,
      redirect_uri: fields.redirectUri,
      client_id: fields.clientId,
      code_verifier: fields.verifier,
      resource: fields.resource,
    }).toString(),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`token: ${response.status} ${text}`);
  return JSON.parse(text) as Tokens;
}

/** An app registered, approved by the owner through the API (as the consent page does) and given its tokens. */
export async function connectApp(server: Server, app: { name: string; redirectUri: string; folder: string; access: "read" | "write" }): Promise<Tokens> {
  const clientId = await register(server, app.name, app.redirectUri);
  const { verifier, challenge } = pkce();
  const resource = `${server.url}/mcp/${app.folder}`;
  const authorize = await fetch(server.url + authorizePath(clientId, app.redirectUri, challenge, resource), { redirect: "manual" });
  const consent = new URL(authorize.headers.get("location") ?? "", server.url).pathname;
  if (!consent.startsWith("/oauth/consent/")) throw new Error(`authorize: ${authorize.status} to ${consent}`);
  const id = consent.slice("/oauth/consent/".length);
  const owner = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
  const { csrf } = (await (await fetch(`${server.url}/api/oauth/requests/${id}`, { headers: owner })).json()) as { csrf: string };
  const answered = await fetch(`${server.url}/api/oauth/requests/${id}`, { method: "POST", headers: owner, body: JSON.stringify({ decision: "allow", csrf, access: app.access }) });
  if (!answered.ok) throw new Error(`consent: ${answered.status} ${await answered.text()}`);
  const { redirect } = (await answered.json()) as { redirect: string };
  const code = new URL(redirect).searchParams.get("code") ?? "";
  return exchange(server, { code, redirectUri: app.redirectUri, clientId, verifier, resource });
}
