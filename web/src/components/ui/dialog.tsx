//! Dialogs on Radix: a modal with a title and description, and a confirmation whose safe button
//! has the focus, so Enter never deletes by accident.
import { Dialog as D } from "radix-ui";
import type { ReactNode } from "react";
import { Button } from "./button";

export interface DialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: ReactNode;
  children?: ReactNode;
  /** Extra width for dialogs with code blocks or tables. */
  wide?: boolean;
}

export function Dialog({ open, onOpenChange, title, description, children, wide }: DialogProps) {
  return (
    <D.Root open={open} onOpenChange={onOpenChange}>
      <D.Portal>
        <D.Overlay className="fixed inset-0 z-40 bg-black/40 backdrop-blur-[1px]" />
        <D.Content
          className={`fixed top-1/2 left-1/2 z-50 max-h-[90vh] w-[calc(100vw-2rem)] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-xl border border-zinc-200 bg-white p-5 shadow-xl dark:border-zinc-800 dark:bg-zinc-900 ${wide ? "max-w-2xl" : "max-w-md"}`}
          {...(description ? {} : { "aria-describedby": undefined })}
        >
          <D.Title className="text-base font-semibold">{title}</D.Title>
          {description && <D.Description className="mt-1.5 text-sm text-zinc-600 dark:text-zinc-400">{description}</D.Description>}
          <div className="mt-4">{children}</div>
        </D.Content>
      </D.Portal>
    </D.Root>
  );
}

export function DialogFooter({ children }: { children: ReactNode }) {
  return <div className="mt-5 flex justify-end gap-2">{children}</div>;
}

export interface ConfirmProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  /** The label of the button that does it, e.g. "Delete". */
  confirm: string;
  cancel?: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
}

export function Confirm({ open, onOpenChange, title, description, confirm, cancel = "Cancel", danger = true, busy, onConfirm }: ConfirmProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={title} description={description}>
      <DialogFooter>
        <Button autoFocus onClick={() => onOpenChange(false)}>
          {cancel}
        </Button>
        <Button variant={danger ? "danger" : "primary"} disabled={busy} onClick={onConfirm}>
          {confirm}
        </Button>
      </DialogFooter>
    </Dialog>
  );
}
