//! Hand-drawn SVG charts for Settings → Usage, no chart library: stacked bars per day, a share
//! meter and a headline figure. Each chart is an image with a title and description for screen
//! readers, plus a visually hidden table of its numbers; colours follow the theme.
import { useEffect, useId, useRef, useState, type ReactNode, type RefObject } from "react";
import { dayLabel, labelledDays, niceMax } from "./usage";

export interface Series {
  label: string;
  /** Tailwind fill classes for the bars (light and dark). */
  fill: string;
  /** Tailwind background classes for the legend's swatch. */
  swatch: string;
  values: readonly number[];
}

const H = 180;
const M = { top: 8, right: 4, bottom: 22, left: 34 };

/** The element's width in CSS pixels, kept up to date, so charts draw at 1:1 and text keeps its size. */
function useWidth<T extends HTMLElement>(fallback: number): [RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(([entry]) => entry && setWidth(Math.max(200, Math.round(entry.contentRect.width))));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

export function StackedBars({ title, description, days, series }: { title: string; description: string; days: readonly string[]; series: readonly Series[] }) {
  const id = useId();
  const [box, W] = useWidth<HTMLDivElement>(640);
  const totals = days.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const step = plotW / Math.max(1, days.length);
  const bar = Math.max(1, Math.min(24, step * 0.7));
  const y = (v: number) => M.top + plotH - (v / max) * plotH;
  const ticks = max % 2 === 0 ? [0, max / 2, max] : [0, max];
  const labelled = labelledDays(days.length);

  return (
    <figure className="space-y-2">
      {/* The card around the chart shows its title; the caption names it for screen readers. */}
      <figcaption className="flex flex-wrap items-baseline gap-x-4 gap-y-1">
        <span className="sr-only">{title}</span>
        <span className="flex flex-wrap gap-x-3 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400" aria-hidden>
          {series.map((s) => (
            <span key={s.label} className="inline-flex items-center gap-1.5">
              <span className={`size-2.5 rounded-sm ${s.swatch}`} /> {s.label}
            </span>
          ))}
        </span>
      </figcaption>
      <div ref={box}>
        <svg width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-t ${id}-d`} className="block overflow-visible">
          <title id={`${id}-t`}>{title}</title>
          <desc id={`${id}-d`}>{description}</desc>
          {ticks.map((t) => (
            <g key={t}>
              <line x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} className="stroke-zinc-200 dark:stroke-zinc-800" strokeWidth={1} />
              <text x={M.left - 6} y={y(t)} dy="0.32em" textAnchor="end" className="fill-zinc-500 text-[11px] tabular-nums">
                {t.toLocaleString()}
              </text>
            </g>
          ))}
          {days.map((day, i) => {
            const x = M.left + i * step + (step - bar) / 2;
            let base = 0;
            const parts = series.map((s) => {
              const v = s.values[i] ?? 0;
              const rect = v > 0 ? <rect key={s.label} x={x} width={bar} y={y(base + v)} height={y(base) - y(base + v)} className={s.fill} rx={1} /> : null;
              base += v;
              return rect;
            });
            return (
              <g key={day}>
                {parts}
                {labelled.has(i) && (
                  <text x={x + bar / 2} y={H - 6} textAnchor="middle" className="fill-zinc-500 text-[11px]">
                    {dayLabel(day)}
                  </text>
                )}
                {/* On top, so hovering anywhere in the day's column shows its numbers. */}
                <rect x={M.left + i * step} width={step} y={M.top} height={plotH} className="fill-transparent hover:fill-zinc-900/5 dark:hover:fill-white/5">
                  <title>{`${dayLabel(day)}: ${series.map((s) => `${s.values[i] ?? 0} ${s.label.toLowerCase()}`).join(", ")}`}</title>
                </rect>
              </g>
            );
          })}
        </svg>
      </div>
      <table className="sr-only">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            {series.map((s) => (
              <th key={s.label} scope="col">
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {days.map((day, i) => (
            <tr key={day}>
              <th scope="row">{day}</th>
              {series.map((s) => (
                <td key={s.label}>{s.values[i] ?? 0}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

/** A headline number with what it counts. */
export function Stat({ label, value, detail }: { label: string; value: string; detail?: ReactNode }) {
  return (
    <div className="rounded-xl border border-zinc-200 px-4 py-3 dark:border-zinc-800">
      <div className="text-xs font-medium text-zinc-600 dark:text-zinc-400">{label}</div>
      <div className="mt-1 text-2xl font-semibold tabular-nums">{value}</div>
      {detail && <div className="mt-0.5 text-xs text-zinc-500 dark:text-zinc-400">{detail}</div>}
    </div>
  );
}

/** A share of a whole as a filled bar, labelled for screen readers. */
export function ShareMeter({ label, share, text, tone = "amber" }: { label: string; share: number | null; text: string; tone?: "amber" | "accent" }) {
  const width = share == null ? 0 : Math.min(1, Math.max(0, share)) * 100;
  return (
    <div role="img" aria-label={`${label}: ${text}`} className="h-2 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800">
      <div className={`h-full rounded-full ${tone === "amber" ? "bg-amber-500" : "bg-accent-600 dark:bg-accent-500"}`} style={{ width: `${width}%` }} />
    </div>
  );
}
