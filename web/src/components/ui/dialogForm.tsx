//! What every form in a dialog shares: one mutation behind it (busy while it runs), the server's
//! refusal kept to show in the form, the question before typed input is thrown away, and the
//! footer's Cancel and submit button, whose label says when it is at work.
import { useState, type FormEvent, type ReactNode } from "react";
import type { UseMutationResult } from "@tanstack/react-query";
import { messageOf } from "../../lib/toast";
import { Button } from "./button";
import { DialogFooter } from "./dialog";
import { useDiscardGuard } from "./discard";

export interface DialogForm<TVars, TData> {
  /** The mutation is running (and, for those that wait, the refetch after it). */
  busy: boolean;
  /** What the last submit's failure said, or null. */
  error: string | null;
  /** The last submit's failure itself (an `ApiError` from the server), or null. */
  failure: { error: unknown } | null;
  /** Forgets the failure, e.g. once the user edits the field it was about. */
  clearError: () => void;
  /** The dialog's `onOpenChange`: asks first while `dirty`; closing forgets the failure. */
  onOpenChange: (open: boolean) => void;
  /** The discard question, rendered beside the dialog. */
  guard: ReactNode;
  /** Sends `vars`, then runs `done` with the answer; a failure of either becomes `error`. */
  run: (vars: TVars, done: (data: TData) => void | Promise<void>) => Promise<void>;
}

export interface DialogFormOptions {
  /** Whether closing now would throw typed input away. */
  dirty: boolean;
  close: () => void;
  /** The words for a failure (the error's own message unless given); null when the form shows it its own way. */
  describe?: (error: unknown) => string | null;
}

export function useDialogForm<TVars, TData>(mutation: UseMutationResult<TData, Error, TVars>, { dirty, close, describe = messageOf }: DialogFormOptions): DialogForm<TVars, TData> {
  const [failure, setFailure] = useState<{ error: unknown } | null>(null);
  const { onOpenChange, guard } = useDiscardGuard(dirty, () => {
    setFailure(null);
    close();
  });
  const run = async (vars: TVars, done: (data: TData) => void | Promise<void>) => {
    setFailure(null);
    try {
      await done(await mutation.mutateAsync(vars));
    } catch (error) {
      setFailure({ error });
    }
  };
  const error = failure && describe(failure.error);
  return { busy: mutation.isPending, error, failure, clearError: () => setFailure(null), onOpenChange, guard, run };
}

/** A form's `onSubmit`: no page load, then `submit`, which decides whether and what to send. */
export function onSubmit(submit: () => unknown): (e: FormEvent) => void {
  return (e) => {
    e.preventDefault();
    void submit();
  };
}

export interface FormFooterProps {
  onCancel: () => void;
  busy: boolean;
  /** The submit button's label, and its label while busy ("Create folder", "Creating…"). */
  label: string;
  busyLabel: string;
  disabled: boolean;
  variant?: "primary" | "danger";
}

/** Cancel, and the form's submit button. */
export function FormFooter({ onCancel, busy, label, busyLabel, disabled, variant = "primary" }: FormFooterProps) {
  return (
    <DialogFooter>
      <Button onClick={onCancel}>Cancel</Button>
      <Button type="submit" variant={variant} disabled={disabled}>
        {busy ? busyLabel : label}
      </Button>
    </DialogFooter>
  );
}

/** The server's refusal, shown inside the dialog. */
export function FormError({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <div role="alert" className="mt-4 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200">
      {error}
    </div>
  );
}
