//! The leave guard: while there are unsaved edits, leaving the editor (its Close button, or any
//! route change that takes it away: another document, another folder, Settings) waits for the
//! user to confirm, and reloading or closing the tab raises the browser's own prompt.
//!
//! Route changes are held by TanStack Router's blocker *before* they happen, so the folder page
//! never sees the new `?doc=` until the user chose Discard.
import { useBlocker } from "@tanstack/react-router";
import { useCallback, useState } from "react";

interface Place {
  pathname: string;
  search: unknown;
}

const docOf = (search: unknown) => (search && typeof search === "object" ? (search as { doc?: unknown }).doc : undefined);

/** Whether going from `current` to `next` closes the editor: another page or another document. */
export function leavesEditor(current: Place, next: Place): boolean {
  return current.pathname !== next.pathname || String(docOf(current.search) ?? "") !== String(docOf(next.search) ?? "");
}

export interface LeaveGuard {
  /** Whether the "Discard unsaved changes?" question is up. */
  asking: boolean;
  /** Runs `leave` now when nothing is unsaved, else asks first. */
  confirm: (leave: () => void) => void;
  /** "Keep editing": stay, the navigation (if any) is cancelled. */
  keep: () => void;
  /** "Discard": go where the user was going. */
  discard: () => void;
}

export function useLeaveGuard(unsaved: boolean): LeaveGuard {
  const shouldBlockFn = useCallback(({ current, next }: { current: Place; next: Place }) => leavesEditor(current, next), []);
  const blocker = useBlocker({ shouldBlockFn, withResolver: true, enableBeforeUnload: true, disabled: !unsaved });
  const [pending, setPending] = useState<{ leave: () => void } | null>(null);

  const confirm = useCallback((leave: () => void) => (unsaved ? setPending({ leave }) : leave()), [unsaved]);
  const keep = useCallback(() => {
    if (blocker.status === "blocked") blocker.reset();
    setPending(null);
  }, [blocker]);
  const discard = useCallback(() => {
    if (blocker.status === "blocked") blocker.proceed();
    else pending?.leave();
    setPending(null);
  }, [blocker, pending]);

  return { asking: blocker.status === "blocked" || pending !== null, confirm, keep, discard };
}
