//! The index's state in the sidebar's footer: a dot (green idle, pulsing amber busy), what it is
//! doing, its size and its embedder; the first index's progress while it runs; a link to Settings →
//! Server when the notes are notably CJK and the embedder reads English only.
import { Link } from "@tanstack/react-router";
import { useStatus } from "../api/hooks";
import { ago, plural } from "../lib/time";

export function indexState(status: ReturnType<typeof useStatus>["data"]): { busy: boolean; line: string } {
  if (!status) return { busy: true, line: "Connecting…" };
  if (status.error) return { busy: false, line: `Index failed: ${status.error}` };
  if (!status.ready) return { busy: true, line: "Loading the model…" };
  const p = status.progress;
  if (p?.running && p.files_total > 0) return { busy: true, line: `Indexing… ${p.files_done.toLocaleString()} of ${plural(p.files_total, "file")}` };
  if (status.syncing || p?.running) return { busy: true, line: "Indexing…" };
  if (status.role === "reader") return { busy: false, line: "Reading another process's index" };
  if (status.last_sync) return { busy: false, line: `Synced ${ago(Date.parse(status.last_sync.at))}` };
  return { busy: false, line: "Idle" };
}

export function IndexStatus() {
  const { data: status, isError } = useStatus();
  if (isError && !status) {
    return (
      <div role="status" className="flex items-center gap-2 text-xs text-red-600 dark:text-red-400">
        <span className="size-2 rounded-full bg-red-500" aria-hidden /> Server unreachable
      </div>
    );
  }
  const { busy, line } = indexState(status);
  const p = status?.progress;
  const share = p?.running && p.files_total > 0 ? p.files_done / p.files_total : undefined;
  return (
    <div role="status" aria-live="polite" className="space-y-1 text-xs text-zinc-600 dark:text-zinc-400">
      <div className="flex items-center gap-2">
        <span className={`size-2 shrink-0 rounded-full ${busy ? "animate-pulse bg-amber-500" : "bg-emerald-500"}`} aria-hidden />
        <span className="truncate" title={line}>
          {line}
        </span>
      </div>
      {share !== undefined && (
        <div className="h-1 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800" role="progressbar" aria-label="First index" aria-valuenow={Math.round(share * 100)} aria-valuemin={0} aria-valuemax={100}>
          <div className="h-full bg-amber-500 transition-all" style={{ width: `${share * 100}%` }} />
        </div>
      )}
      {status?.ready && (
        <>
          <div>
            {plural(status.files ?? 0, "file")} · {plural(status.chunks ?? 0, "chunk")}
          </div>
          <div className="truncate" title={status.docs_dir ?? undefined}>
            {status.embedder}
          </div>
          {status.language_notice && (
            <Link to="/settings" search={{ tab: "server" }} className="block text-amber-700 underline-offset-2 hover:underline dark:text-amber-400" title={status.language_notice.message}>
              CJK notes: the model reads English only
            </Link>
          )}
        </>
      )}
    </div>
  );
}
