//! Front matter: where the YAML block at the top of a document ends (the server's rule: the first
//! line is `---` and a later line is `---` or `...`), and the few keys the preview shows, read
//! with a small parser for the YAML people write by hand (scalars, quoted strings, `[a, b]` flow
//! lists, `- item` block lists, `>` and `|` block scalars).
//!
//! It never throws: front matter it cannot read yields no values, as on the server.

/** A document split into its front matter and its body. */
export interface Split {
  /** The lines between the fences, joined with `\n`; `null` when there is no front matter. */
  yaml: string | null;
  /** The text after the closing fence (the whole text when there is no front matter). */
  body: string;
  /** How many lines the front matter takes, fences included (0 without). */
  bodyStart: number;
}

/** What a document says about itself in its front matter. Empty strings and lists when absent. */
export interface FrontMatter {
  title: string;
  description: string;
  tags: string[];
  aliases: string[];
  /** The tool that says it wrote the document, when an agent did. */
  createdBy: string;
  session: string;
  /** When the document says it was written (`created_at`, `created` or `date`), as written. */
  created: string;
  /** When the document says it was last changed (`updated_at`, `updated` or `modified`). */
  updated: string;
  /** The documents this one replaces, as written. */
  supersedes: string[];
}

const FENCE_END = /^(---|\.\.\.)\s*$/;

export function splitFrontMatter(text: string): Split {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  if (lines[0]?.trim() !== "---") return { yaml: null, body: text, bodyStart: 0 };
  const end = lines.findIndex((line, i) => i > 0 && FENCE_END.test(line));
  if (end < 0) return { yaml: null, body: text, bodyStart: 0 };
  return { yaml: lines.slice(1, end).join("\n"), body: lines.slice(end + 1).join("\n"), bodyStart: end + 1 };
}

/** The text without its front matter. */
export function stripFrontMatter(text: string): string {
  return splitFrontMatter(text).body;
}

type Value = string | string[];

function unquote(raw: string): string {
  const value = raw.trim();
  if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0]) {
    const inner = value.slice(1, -1);
    return value[0] === '"' ? inner.replace(/\\(["\\])/g, "$1").replace(/\\n/g, "\n") : inner.replace(/''/g, "'");
  }
  // A comment after a plain scalar.
  return value.replace(/\s+#.*$/, "");
}

/** `[a, "b, c", d]` as its items. */
function flowList(raw: string): string[] {
  const inner = raw.trim().slice(1, -1);
  const items: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (const ch of inner) {
    if (quote) {
      current += ch;
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === ",") {
      items.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  items.push(current);
  return items.map(unquote).filter((item) => item !== "");
}

/** The top-level keys of simple YAML, each a string or a list of strings. */
export function parseYaml(yaml: string): Record<string, Value> {
  const out: Record<string, Value> = {};
  const lines = yaml.split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    i++;
    const m = /^([A-Za-z_][\w.-]*)\s*:(?:\s+(.*)|\s*)$/.exec(line);
    if (!m) continue;
    const key = m[1]!;
    const rest = (m[2] ?? "").trim();
    // The indented lines that belong to this key.
    const nested: string[] = [];
    while (i < lines.length && (/^\s+\S/.test(lines[i]!) || /^-\s/.test(lines[i]!) || lines[i]!.trim() === "")) {
      if (/^-\s/.test(lines[i]!) && rest !== "") break;
      nested.push(lines[i]!);
      i++;
    }
    while (nested.length && nested.at(-1)!.trim() === "") nested.pop();
    if (rest === "" || rest.startsWith("#")) {
      const items = nested.filter((l) => /^\s*-(\s|$)/.test(l));
      if (items.length) out[key] = items.map((l) => unquote(l.replace(/^\s*-\s*/, ""))).filter((v) => v !== "");
      else if (nested.length) out[key] = nested.map((l) => l.trim()).join(" ");
      else out[key] = "";
    } else if (/^[|>][+-]?\d*$/.test(rest)) {
      const body = nested.map((l) => l.trim());
      out[key] = (rest.startsWith("|") ? body.join("\n") : body.join(" ")).trim();
    } else if (rest.startsWith("[") && rest.endsWith("]")) {
      out[key] = flowList(rest);
    } else {
      out[key] = [unquote(rest), ...nested.map((l) => l.trim())].join(" ").trim();
    }
  }
  return out;
}

const str = (v: Value | undefined): string => (Array.isArray(v) ? v.join(", ") : (v ?? "")).trim();

function list(v: Value | undefined, split: RegExp | null): string[] {
  if (v === undefined) return [];
  const items = Array.isArray(v) ? v : split ? v.split(split) : [v];
  return [...new Set(items.map((s) => s.trim()).filter(Boolean))];
}

function first(fields: Record<string, Value>, keys: string[]): string {
  for (const key of keys) {
    const value = str(fields[key]);
    if (value) return value;
  }
  return "";
}

/** The keys the preview shows, from a whole document's text. */
export function readFrontMatter(text: string): FrontMatter {
  const { yaml } = splitFrontMatter(text);
  const fields = yaml ? parseYaml(yaml) : {};
  return {
    title: str(fields.title),
    description: str(fields.description).replace(/\s+/g, " "),
    tags: list(fields.tags, /[\s,]+/).map((t) => t.replace(/^#/, "")),
    aliases: list(fields.aliases, null),
    createdBy: str(fields.created_by),
    session: str(fields.session),
    created: first(fields, ["created_at", "created", "date"]),
    updated: first(fields, ["updated_at", "updated", "modified"]),
    supersedes: list(fields.supersedes, /,/),
  };
}
