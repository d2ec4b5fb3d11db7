//! The quick switcher: Ctrl/Cmd+K anywhere (or the list pane's "Jump to…") opens a command
//! palette over every document of every folder, plus the folders and Settings; Enter opens the
//! one picked. The palette itself (cmdk) is a lazy chunk: `QuickSwitcherPalette.tsx`.
import { lazy, Suspense, useEffect, useState } from "react";
import { Dialog, VisuallyHidden } from "radix-ui";
import { isImeKey } from "../lib/ime";

const Palette = lazy(() => import("./QuickSwitcherPalette"));
const OPEN_EVENT = "ragdown:quick-switcher";

/** Opens the quick switcher from anywhere (a button, a menu). */
export function openQuickSwitcher(): void {
  window.dispatchEvent(new Event(OPEN_EVENT));
}

const isMac = () => typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/** The shortcut as this platform writes it. */
export function shortcutLabel(): string {
  return isMac() ? "⌘K" : "Ctrl K";
}

export function QuickSwitcher() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isImeKey(e)) return;
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "k") {
        e.preventDefault();
        setOpen((o) => !o);
      }
    };
    const show = () => setOpen(true);
    window.addEventListener("keydown", onKey);
    window.addEventListener(OPEN_EVENT, show);
    return () => {
      window.removeEventListener("keydown", onKey);
      window.removeEventListener(OPEN_EVENT, show);
    };
  }, []);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40 backdrop-blur-[1px]" />
        <Dialog.Content
          aria-describedby={undefined}
          className="fixed top-[12vh] left-1/2 z-50 w-[calc(100vw-2rem)] max-w-xl -translate-x-1/2 overflow-hidden rounded-xl border border-zinc-200 bg-white shadow-2xl dark:border-zinc-800 dark:bg-zinc-900"
        >
          <VisuallyHidden.Root>
            <Dialog.Title>Jump to a document</Dialog.Title>
          </VisuallyHidden.Root>
          <Suspense fallback={<div className="h-12 border-b border-zinc-200 dark:border-zinc-800" aria-busy="true" />}>
            <Palette onDone={() => setOpen(false)} />
          </Suspense>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

