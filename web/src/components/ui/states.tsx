//! Loading, error and empty states, the same everywhere.
import { AlertTriangle } from "lucide-react";
import type { ReactNode } from "react";
import { Button } from "./button";

export function Skeleton({ className = "h-4 w-full" }: { className?: string }) {
  return <div aria-hidden className={`animate-pulse rounded bg-zinc-200 dark:bg-zinc-800 ${className}`} />;
}

export function Skeletons({ rows = 5, label = "Loading" }: { rows?: number; label?: string }) {
  return (
    <div role="status" aria-label={label} className="space-y-2 p-3">
      {Array.from({ length: rows }, (_, i) => (
        <Skeleton key={i} className={`h-4 ${i % 3 === 1 ? "w-2/3" : "w-full"}`} />
      ))}
    </div>
  );
}

export function ErrorCard({ error, onRetry, compact }: { error: unknown; onRetry?: () => void; compact?: boolean }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div role="alert" className={`rounded-lg border border-red-200 bg-red-50 text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200 ${compact ? "p-2 text-xs" : "p-4 text-sm"}`}>
      <div className="flex items-start gap-2">
        <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden />
        <div className="min-w-0 flex-1 break-words">{message}</div>
      </div>
      {onRetry && (
        <Button size="sm" className="mt-2" onClick={onRetry}>
          Try again
        </Button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="mx-auto max-w-md p-8 text-center">
      <p className="text-base font-medium">{title}</p>
      {children && <div className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">{children}</div>}
    </div>
  );
}

export function Badge({ children, tone = "zinc", title }: { children: ReactNode; tone?: "zinc" | "accent" | "amber" | "green" | "red"; title?: string }) {
  const tones = {
    zinc: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
    accent: "bg-accent-100 text-accent-700 dark:bg-accent-500/20 dark:text-accent-100",
    amber: "bg-amber-100 text-amber-800 dark:bg-amber-500/20 dark:text-amber-200",
    green: "bg-emerald-100 text-emerald-800 dark:bg-emerald-500/20 dark:text-emerald-200",
    red: "bg-red-100 text-red-800 dark:bg-red-500/20 dark:text-red-200",
  };
  return (
    <span title={title} className={`inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-xs font-medium ${tones[tone]}`}>
      {children}
    </span>
  );
}
