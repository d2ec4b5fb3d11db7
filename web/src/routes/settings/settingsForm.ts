//! The settings forms' rules, pure: the four search defaults a folder or the server sets, how a
//! typed value is read (empty inherits: `null`), where a value comes from ("Saved here, over
//! RAGDOWN_…" or "From RAGDOWN_…"), and the patch of only what changed.

export type HookKey = "top_k" | "min_score" | "min_ratio" | "max_chars";

/** What a number field accepts, as the server checks it. */
export interface NumberRule {
  integer: boolean;
  min: number;
  max?: number;
}

export interface HookField {
  key: HookKey;
  label: string;
  hint: string;
  env: string;
  rule: NumberRule;
}

/** The search defaults, in the order the forms show them (the server's `MAX_TOP_K` is 50). */
export const HOOK_FIELDS: readonly HookField[] = [
  { key: "top_k", label: "Sections per prompt", hint: "Most sections injected before one prompt.", env: "RAGDOWN_HOOK_TOP_K", rule: { integer: true, min: 1, max: 50 } },
  { key: "min_score", label: "Minimum score", hint: "Cosine similarity, on the embedder's own scale.", env: "RAGDOWN_HOOK_MIN_SCORE", rule: { integer: false, min: 0, max: 1 } },
  { key: "min_ratio", label: "Minimum share of the best hit", hint: "From 0 to 1 of the best hit's score; 0 turns it off.", env: "RAGDOWN_HOOK_MIN_RATIO", rule: { integer: false, min: 0, max: 1 } },
  { key: "max_chars", label: "Characters per prompt", hint: "Most characters injected before one prompt.", env: "RAGDOWN_HOOK_MAX_CHARS", rule: { integer: true, min: 1 } },
];

/** The variable behind a search default. */
export function hookEnv(key: HookKey): string {
  return HOOK_FIELDS.find((f) => f.key === key)?.env ?? key;
}

/** The environment variable behind each server setting. */
export const ENV = {
  docs_dir: "RAGDOWN_DOCS_DIR",
  embedder: "RAGDOWN_EMBEDDER",
  read_only: "RAGDOWN_READ_ONLY",
  watch: "RAGDOWN_WATCH",
  text_limit: "RAGDOWN_TEXT_LIMIT",
  max_per_document: "RAGDOWN_MAX_PER_DOCUMENT",
  follow_links: "RAGDOWN_FOLLOW_LINKS",
  root_mcp: "RAGDOWN_ROOT_MCP",
  query_log: "RAGDOWN_QUERY_LOG",
} as const;

export type Parsed<T> = { ok: true; value: T | null } | { ok: false; error: string };

/** Reads a number field: empty is `null` (inherit), anything else must fit `rule`. */
export function parseNumber(text: string, rule: NumberRule): Parsed<number> {
  const t = text.trim();
  if (t === "") return { ok: true, value: null };
  const n = Number(t);
  if (!Number.isFinite(n)) return { ok: false, error: "Not a number." };
  if (rule.integer && !Number.isInteger(n)) return { ok: false, error: "A whole number, please." };
  if (n < rule.min || (rule.max !== undefined && n > rule.max)) {
    return { ok: false, error: rule.max === undefined ? `At least ${rule.min}.` : `From ${rule.min} to ${rule.max}.` };
  }
  return { ok: true, value: n };
}

/** A tri-state switch as text: "" follows the variable, "true" and "false" are saved. */
export function parseFlag(text: string): Parsed<boolean> {
  return { ok: true, value: text === "" ? null : text === "true" };
}

/** A saved value as a form field's text ("" for none). */
export function asText(value: number | boolean | string | null | undefined): string {
  return value == null ? "" : String(value);
}

/** Where a setting's value comes from. */
export function sourceOf(saved: unknown, env: string): string {
  return saved != null ? `Saved here, over ${env}` : `From ${env}`;
}

export type Draft = Record<string, string>;

/**
 * The patch of what changed between two drafts (a changed field that is now empty is `null`:
 * back to the inherited value), and the error of each field that cannot be read.
 */
export function diffDraft<T>(initial: Draft, current: Draft, parse: (key: string, text: string) => Parsed<T>): { patch: Record<string, T | null>; errors: Record<string, string> } {
  const patch: Record<string, T | null> = {};
  const errors: Record<string, string> = {};
  for (const [key, text] of Object.entries(current)) {
    const parsed = parse(key, text);
    if (!parsed.ok) errors[key] = parsed.error;
    else if (text.trim() !== (initial[key] ?? "").trim()) patch[key] = parsed.value;
  }
  return { patch, errors };
}

/** The hook part of a draft (`hook.top_k`, …) as its own draft keyed by the hook's keys. */
export function hookDraft(hook: Partial<Record<HookKey, number | null>> | null | undefined): Draft {
  return Object.fromEntries(HOOK_FIELDS.map((f) => [f.key, asText(hook?.[f.key])]));
}

/** Reads one hook field by its key. */
export function parseHook(key: string, text: string): Parsed<number> {
  const field = HOOK_FIELDS.find((f) => f.key === key);
  return field ? parseNumber(text, field.rule) : { ok: false, error: `unknown setting ${key}` };
}

/** The placeholder of an empty field: the value it inherits, or "" when there is none. */
export function inherited(prefix: string, value: number | null | undefined): string {
  return value == null ? "" : `${prefix}: ${value}`;
}
