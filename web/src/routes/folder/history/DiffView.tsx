//! A line diff drawn as a table: both sides' line numbers, − and + marks (not colour alone), the
//! unchanged stretches folded. `lib/diff.ts` makes the rows.
import { useMemo } from "react";
import { clsx } from "clsx";
import { diffRows } from "../../../lib/diff";
import { plural } from "../../../lib/time";

export interface DiffViewProps {
  before: string;
  after: string;
  /** What each side is, for the caption: "this version" and "now". */
  beforeName: string;
  afterName: string;
}

export function DiffView({ before, after, beforeName, afterName }: DiffViewProps) {
  const diff = useMemo(() => diffRows(before, after), [before, after]);
  if (diff.rows.length === 0) return <p className="py-3 text-sm text-zinc-600 dark:text-zinc-400">No difference: {beforeName} and {afterName} are the same text.</p>;
  return (
    <figure className="min-w-0">
      <figcaption className="mb-2 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400">
        <span>
          <span className="font-mono text-red-700 dark:text-red-400">−</span> only in {beforeName}
        </span>
        <span>
          <span className="font-mono text-emerald-700 dark:text-emerald-400">+</span> only in {afterName}
        </span>
        <span className="ml-auto">
          {plural(diff.removed, "line")} removed, {plural(diff.added, "line")} added
        </span>
      </figcaption>
      <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
        <table aria-label={`Differences between ${beforeName} and ${afterName}`} className="w-full border-collapse font-mono text-[12.5px] leading-5">
          <tbody>
            {diff.rows.map((row, i) =>
              row.kind === "gap" ? (
                <tr key={i} className="bg-zinc-50 text-zinc-500 dark:bg-zinc-900 dark:text-zinc-400">
                  <td colSpan={4} className="px-3 py-0.5 font-sans text-xs">
                    ⋯ {plural(row.hidden, "unchanged line")}
                  </td>
                </tr>
              ) : (
                <tr
                  key={i}
                  data-kind={row.kind}
                  className={clsx(
                    row.kind === "add" && "bg-emerald-50 dark:bg-emerald-500/10",
                    row.kind === "del" && "bg-red-50 dark:bg-red-500/10",
                  )}
                >
                  <td className="w-10 px-2 text-right text-zinc-600 select-none dark:text-zinc-400">{row.old ?? ""}</td>
                  <td className="w-10 px-2 text-right text-zinc-600 select-none dark:text-zinc-400">{row.new ?? ""}</td>
                  <td
                    aria-label={row.kind === "add" ? "added" : row.kind === "del" ? "removed" : undefined}
                    className={clsx(
                      "w-5 text-center select-none",
                      row.kind === "add" && "text-emerald-700 dark:text-emerald-400",
                      row.kind === "del" && "text-red-700 dark:text-red-400",
                    )}
                  >
                    {row.kind === "add" ? "+" : row.kind === "del" ? "−" : ""}
                  </td>
                  <td className="pr-3 break-words whitespace-pre-wrap">{row.text || " "}</td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
