//! Settings → Usage, pure: the shape of `GET /api/query-log` (`ragdownd/src/querylog.rs`,
//! `summarize`; the API schema leaves it untyped), the daily series the charts draw (every day
//! in the window, empty ones included), and the axis and number formatting.

export interface DayCounts {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  recall: number;
  context: number;
  web_search: number;
  reads?: number;
  /** Hook calls that searched (not skipped). */
  prompts?: number;
  injected: number;
  gaps: number;
}

export interface GapRow {
  kind: "recall" | "context" | "web_search";
  query: string | null;
  best: number | null;
  min_score: number | null;
  at_ms: number;
}

export interface ReadRow {
  path: string;
  reads: number;
  after_search: number;
}

export interface QueryLogSummary {
  enabled: boolean;
  entries: number;
  searches: { recall: number; context: number; web_search: number };
  gaps: { count: number; share: number | null; recent: GapRow[] };
  hook: {
    calls: number;
    prompts: number;
    skipped: number;
    injected: number;
    injection_rate: number | null;
    chunks_injected: number;
    chunks_per_injected_prompt: number | null;
  };
  reads: { total: number; after_search: number; share_after_search: number | null; documents: ReadRow[] };
  /** Per UTC day, oldest first; days with no entry are absent. Older servers leave it out. */
  days?: DayCounts[];
}

export const KIND_LABELS: Record<GapRow["kind"], string> = {
  recall: "Agent search",
  context: "Hook",
  web_search: "Web search",
};

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` (UTC) of a time in ms. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function msOf(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

/** A zero day. */
function empty(day: string): Required<DayCounts> {
  return { day, recall: 0, context: 0, web_search: 0, reads: 0, prompts: 0, injected: 0, gaps: 0 };
}

/**
 * Every day of the chart's window, oldest first, with the log's counts where it has some. The
 * window ends today and starts at the log's first day, but shows at least `min` days and at most
 * `max` (older days stay in the totals, not the chart).
 */
export function dailySeries(days: readonly DayCounts[], today: string, { min = 14, max = 90 } = {}): Required<DayCounts>[] {
  const end = msOf(today);
  const first = days.length ? msOf(days[0]!.day) : end;
  const start = Math.min(Math.max(first, end - (max - 1) * DAY_MS), end - (min - 1) * DAY_MS);
  const byDay = new Map(days.map((d) => [d.day, d]));
  const out: Required<DayCounts>[] = [];
  for (let t = start; t <= end; t += DAY_MS) {
    const day = dayOf(t);
    const d = byDay.get(day);
    out.push(d ? { ...empty(day), ...d, prompts: d.prompts ?? d.context, reads: d.reads ?? 0 } : empty(day));
  }
  return out;
}

/** A round top for an axis at or above `n`: 1, 2 or 5 times a power of ten (at least 1). */
export function niceMax(n: number): number {
  if (n <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 5, 10]) if (step * power >= n) return step * power;
  return 10 * power;
}

/** A share (0 to 1) as a percentage: "—" for none, "<1%" for a sliver, else a whole percent. */
export function percent(share: number | null | undefined): string {
  if (share == null) return "—";
  if (share > 0 && share < 0.005) return "<1%";
  return `${Math.round(share * 100)}%`;
}

/** "30 Nov", in UTC like the days themselves. */
export function dayLabel(day: string): string {
  return new Date(msOf(day)).toLocaleDateString(undefined, { day: "numeric", month: "short", timeZone: "UTC" });
}

/** The total searches of every kind. */
export function totalSearches(s: QueryLogSummary["searches"]): number {
  return s.recall + s.context + s.web_search;
}

/** Whether any day in the series has something to draw for `keys`. */
export function hasAny(series: readonly Required<DayCounts>[], keys: readonly (keyof DayCounts)[]): boolean {
  return series.some((d) => keys.some((k) => Number(d[k]) > 0));
}

/** Which of `n` days get an axis label: about six, evenly spaced back from the last. */
export function labelledDays(n: number): Set<number> {
  const every = Math.max(1, Math.ceil(n / 6));
  const out = new Set<number>();
  for (let i = n - 1; i >= 0; i -= every) out.add(i);
  return out;
}
