//! The consent page's words and rules, pure so they are unit-tested: what an app would be able to
//! do, what its client id is, the localhost warning, why it cannot be allowed, the access the answer grants ("Only let it
//! read" narrows write to read, never the other way), and what a failed answer says.
import type { Access, ConsentClient, ConsentRequest } from "../../api/oauth";
import { ApiError } from "../../api/client";
import { messageOf } from "../../lib/toast";

/** What an answered request that the server no longer knows means to the owner. */
export const EXPIRED = "This request has expired or was already answered; start connecting again from the app.";

/** The access the answer grants: the access asked, or read when the owner narrowed a write request. */
export function grantedAccess(asked: Access, onlyRead: boolean): Access {
  return asked === "write" && onlyRead ? "read" : asked;
}

/** What the app could do with `access` in `path`, in one sentence. */
export function accessSentence(access: Access, path: string): string {
  return access === "write"
    ? `Search and read the notes in ${path}, and write, edit, move and delete them.`
    : `Search and read the notes in ${path}. It cannot change them.`;
}

/** How the client is known: a metadata document at a host, or an id registered with this server. */
export function clientKind(client: Pick<ConsentClient, "id" | "kind">): string {
  if (client.kind === "metadata_document") {
    const host = hostOf(client.id);
    return host ? `Described by a document at ${host}` : "Described by a client metadata document";
  }
  return "Registered itself with this server: its name is its own claim";
}

/** The warning for an app whose answer comes back to this computer; null for any other. */
export function localhostWarning(client: Pick<ConsentClient, "localhost_only">): string | null {
  return client.localhost_only
    ? "This app receives the approval on this computer (localhost). Only allow it if you started it yourself, just now."
    : null;
}

/** Why Allow cannot be pressed (the folder asked for is gone or has MCP off), or null when it can. */
export function unavailable(request: Pick<ConsentRequest, "available" | "problem">): string | null {
  return !request.available ? (request.problem ?? "The folder it asks for is not available.") : null;
}

/** What a failed load or answer says: a 404 means expired or answered; anything else is the server's message. */
export function consentFailure(error: unknown): string {
  if (error instanceof ApiError && error.status === 404) return EXPIRED;
  return messageOf(error);
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}
