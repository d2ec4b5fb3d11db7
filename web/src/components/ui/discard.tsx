//! A dialog that holds typed input asks before Escape or a click outside throws it away, as the
//! editor's leave guard does; Cancel stays a plain, deliberate close.
import { useState, type ReactNode } from "react";
import { Confirm } from "./dialog";

/** `onOpenChange` for the dialog, and the confirmation to render beside it. */
export function useDiscardGuard(dirty: boolean, close: () => void): { onOpenChange: (open: boolean) => void; guard: ReactNode } {
  const [asking, setAsking] = useState(false);
  const onOpenChange = (open: boolean) => {
    if (open) return;
    if (dirty) setAsking(true);
    else close();
  };
  const guard = (
    <Confirm
      open={asking}
      onOpenChange={setAsking}
      title="Discard what you entered?"
      description="Closing this dialog throws away what you typed or picked in it."
      cancel="Keep editing"
      confirm="Discard"
      onConfirm={() => {
        setAsking(false);
        close();
      }}
    />
  );
  return { onOpenChange, guard };
}
