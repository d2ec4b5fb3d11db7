//! The list's small markers: a document an agent wrote, and one that newer documents replace.
import { Archive, Bot } from "lucide-react";

export function AgentBadge({ tool }: { tool: string }) {
  const label = `Written by an agent with ${tool}`;
  return (
    <span title={label} aria-label={label} role="img" className="inline-flex shrink-0 text-accent-600 dark:text-accent-500">
      <Bot className="size-3.5" aria-hidden />
    </span>
  );
}

export function SupersededBadge({ by }: { by: readonly string[] }) {
  const label = `Superseded by ${by.join(", ")}`;
  return (
    <span title={label} aria-label={label} role="img" className="inline-flex shrink-0 text-amber-600 dark:text-amber-400">
      <Archive className="size-3.5" aria-hidden />
    </span>
  );
}
