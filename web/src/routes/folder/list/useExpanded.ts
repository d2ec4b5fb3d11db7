//! Which directories of a folder's tree are open: kept in sessionStorage per folder (for the
//! tab's life), with the selected document's directories opened by themselves.
import { useState } from "react";
import { ancestors } from "./tree";

export function useExpanded(folder: string, selected: string | undefined) {
  const storageKey = `ragdown.tree.${folder}`;
  const [open, setOpen] = useState<ReadonlySet<string>>(() => {
    try {
      return new Set(JSON.parse(sessionStorage.getItem(storageKey) ?? "[]") as string[]);
    } catch {
      return new Set();
    }
  });
  const save = (next: Set<string>) => {
    setOpen(next);
    try {
      sessionStorage.setItem(storageKey, JSON.stringify([...next]));
    } catch {
      // storage full or off: the tree still opens, only for this page's life
    }
  };
  const [revealed, setRevealed] = useState<string | undefined>(undefined);
  if (selected !== revealed) {
    setRevealed(selected);
    const missing = selected ? ancestors(selected).filter((d) => !open.has(d)) : [];
    if (missing.length) save(new Set([...open, ...missing]));
  }
  const toggle = (dir: string, to = !open.has(dir)) => {
    if (to === open.has(dir)) return;
    const next = new Set(open);
    if (to) next.add(dir);
    else next.delete(dir);
    save(next);
  };
  return { open, isOpen: (dir: string) => open.has(dir), toggle };
}

/** The tree's open directories and how to open and close one. */
export type Expanded = ReturnType<typeof useExpanded>;
