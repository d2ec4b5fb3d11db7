//! Settings → Access, the parts with logic: what a new token opens (the folders ticked, or one
//! subfolder of a single folder), when it expires, and the words the list shows for a token.
//! Pure, so the scope sent to the server and the words shown are unit-tested.
import { ago } from "../../lib/time";

export type Level = "read" | "write";

/** The expiry choices: days from now, or never. */
export const EXPIRIES = [
  { value: "", label: "Never" },
  { value: "7", label: "In 7 days" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
  { value: "365", label: "In a year" },
] as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/** `expires_ms` for an expiry choice: `now` plus its days, or undefined for never. */
export function expiresMs(choice: string, now: number = Date.now()): number | undefined {
  const days = Number(choice);
  return choice !== "" && Number.isInteger(days) && days > 0 ? now + days * DAY_MS : undefined;
}

/**
 * The scope a new token is made with: the folders ticked, or, with a subfolder typed, that
 * subfolder of the one folder ticked. An error says what is missing or wrong.
 */
export function scopeOf(folders: readonly string[], subfolder: string): { scope: string[] } | { error: string } {
  if (folders.length === 0) return { error: "Tick at least one folder." };
  const sub = subfolder
    .trim()
    .replace(/\\/g, "/")
    .split("/")
    .filter((s) => s !== "" && s !== ".");
  if (sub.length === 0) return { scope: [...folders] };
  if (folders.length > 1) return { error: "A subfolder narrows one folder: tick only the folder it is in." };
  if (sub.some((s) => s === ".." || s.startsWith("."))) return { error: "A subfolder is a path inside the folder, like projects/ragdown." };
  return { scope: [`${folders[0]}/${sub.join("/")}`] };
}

/** The access as the list says it. */
export function levelLabel(level: Level): string {
  return level === "read" ? "Read" : "Read + write";
}

/** When a token expires, as the list says it. */
export function expiryLabel(token: { expires_ms?: number | null; expired: boolean }): string {
  if (token.expired) return "Expired";
  if (token.expires_ms == null) return "Never";
  return new Date(token.expires_ms).toLocaleDateString();
}

/** When a token was last used, as the list says it. */
export function lastUsedLabel(ms: number | null | undefined, now: number = Date.now()): string {
  return ms == null ? "Never" : ago(ms, now);
}

/** The `claude mcp add` line for an agent to use a new token at one of its endpoints. */
export function claudeLine(origin: string, path: string, secret: string): string {
  const name = `ragdown-${path.split("/")[0]}`;
  const url = `${origin.replace(/\/+$/, "")}/mcp/${path.split("/").map(encodeURIComponent).join("/")}`;
  return `claude mcp add --transport http ${name} ${url} --header "Authorization: Bearer ${secret}"`;
}
