//! Settings' building blocks, shared by its tabs: a card with a title and badge, label/value rows
//! that say where a value comes from, warning and info notes, a code block with a copy button, and
//! the bordered table of the Folders and Access tabs.
import { useState, type ReactNode } from "react";
import { clsx } from "clsx";
import { AlertTriangle, Check, Copy, Info } from "lucide-react";
import { IconButton } from "../../components/ui/button";
import { notify } from "../../lib/toast";

export function Card({ title, subtitle, badge, actions, children }: { title: string; subtitle?: ReactNode; badge?: ReactNode; actions?: ReactNode; children: ReactNode }) {
  return (
    <section aria-label={title} className="rounded-xl border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900/60">
      <header className="flex flex-wrap items-start gap-3 border-b border-zinc-100 px-5 py-4 dark:border-zinc-800">
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-2">
            <h2 className="text-base font-semibold">{title}</h2>
            {badge}
          </div>
          {subtitle && <div className="mt-0.5 text-sm text-zinc-600 dark:text-zinc-400">{subtitle}</div>}
        </div>
        {actions}
      </header>
      <div className="px-5 py-2">{children}</div>
    </section>
  );
}

/** A definition list of settings; each `Row` is one term and its value. */
export function Rows({ children }: { children: ReactNode }) {
  return <dl className="divide-y divide-zinc-100 dark:divide-zinc-800">{children}</dl>;
}

export function Row({ label, hint, source, children, flagged }: { label: string; hint?: ReactNode; source?: string; children: ReactNode; flagged?: boolean }) {
  return (
    <div className="flex flex-col gap-1 py-3 sm:flex-row sm:items-start sm:gap-6">
      <dt className="min-w-0 flex-1">
        <div className="text-sm font-medium">{label}</div>
        {hint && <div className="text-xs text-zinc-600 dark:text-zinc-400">{hint}</div>}
        {source && <div className="mt-0.5 font-mono text-[11px] text-zinc-500 dark:text-zinc-400">{source}</div>}
      </dt>
      <dd className={clsx("text-sm break-all sm:max-w-[50%] sm:text-right", flagged ? "font-medium text-amber-700 dark:text-amber-300" : "text-zinc-900 dark:text-zinc-100")}>{children}</dd>
    </div>
  );
}

export function Note({ tone = "warning", children }: { tone?: "warning" | "info"; children: ReactNode }) {
  const Icon = tone === "warning" ? AlertTriangle : Info;
  return (
    <div
      role="note"
      className={clsx(
        "flex items-start gap-2 rounded-lg border px-3 py-2 text-sm",
        tone === "warning"
          ? "border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-900/60 dark:bg-amber-950/30 dark:text-amber-100"
          : "border-zinc-200 bg-zinc-50 text-zinc-700 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-300",
      )}
    >
      <Icon className="mt-0.5 size-4 shrink-0" aria-hidden />
      <div className="min-w-0 flex-1 break-words">{children}</div>
    </div>
  );
}

/** Copies text, falling back to a hidden textarea where the Clipboard API is missing. */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) return navigator.clipboard.writeText(text);
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("the browser refused to copy");
}

/** A labelled code block with a copy button. */
export function CopyBlock({ label, text }: { label: string; text: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    copyText(text).then(
      () => {
        setCopied(true);
        notify.ok(`Copied the ${label.toLowerCase()}`);
        window.setTimeout(() => setCopied(false), 1500);
      },
      (e: unknown) => notify.fail(`Could not copy: ${e instanceof Error ? e.message : String(e)}`),
    );
  return (
    <div>
      <div className="mb-1 text-xs font-medium text-zinc-600 dark:text-zinc-400">{label}</div>
      <div className="relative rounded-lg border border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-950">
        <pre className="overflow-x-auto p-3 pr-11 font-mono text-xs leading-relaxed whitespace-pre-wrap break-all text-zinc-800 dark:text-zinc-200">{text}</pre>
        <IconButton label={`Copy the ${label.toLowerCase()}`} onClick={() => void copy()} className="absolute top-1.5 right-1.5">
          {copied ? <Check aria-hidden /> : <Copy aria-hidden />}
        </IconButton>
      </div>
    </div>
  );
}

/** "On" or "Off" for a switch's value. */
export const onOff = (v: boolean | null | undefined) => (v ? "On" : "Off");

/** A column of a `ListTable`: its heading, hidden below a width; the actions' heading is for screen readers only. */
export interface Column {
  label: string;
  hideBelow?: "sm" | "md";
  actions?: boolean;
}

const HIDDEN_BELOW = { sm: "hidden sm:table-cell", md: "hidden md:table-cell" } as const;

/** The bordered table of a tab's list (folders, tokens): headings, then one row per item. */
export function ListTable({ columns, children }: { columns: readonly Column[]; children: ReactNode }) {
  return (
    <div className="overflow-x-auto rounded-xl border border-zinc-200 dark:border-zinc-800">
      <table className="w-full text-sm">
        <thead className="bg-zinc-50 text-left text-xs font-medium tracking-wide text-zinc-500 uppercase dark:bg-zinc-900 dark:text-zinc-400">
          <tr>
            {columns.map((c) => (
              <th key={c.label} scope="col" className={clsx("px-4 py-2", c.hideBelow && HIDDEN_BELOW[c.hideBelow], c.actions && "text-right")}>
                {c.actions ? <span className="sr-only">{c.label}</span> : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">{children}</tbody>
      </table>
    </div>
  );
}
