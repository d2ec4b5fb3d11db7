//! Lock: forget the kept token and show the gate at once (the Lock button, Forget token).
import { setToken } from "../lib/token";

export const LOCK_EVENT = "ragdown:lock";

export function lock(): void {
  setToken(null);
  window.dispatchEvent(new Event(LOCK_EVENT));
}
