//! Toasts, bottom right: errors stay 6 s, successes 3 s, each with a × (sonner's close button).
import { toast } from "sonner";

export const notify = {
  ok: (message: string) => toast.success(message, { duration: 3000 }),
  fail: (message: string) => toast.error(message, { duration: 6000 }),
};

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
