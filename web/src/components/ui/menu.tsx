//! Menus on Radix's dropdown: arrows, Home/End and typeahead come with it.
import { DropdownMenu as M } from "radix-ui";
import { Check } from "lucide-react";
import type { ReactNode } from "react";

export function Menu({ trigger, children, align = "start" }: { trigger: ReactNode; children: ReactNode; align?: "start" | "end" }) {
  return (
    <M.Root>
      <M.Trigger asChild>{trigger}</M.Trigger>
      <M.Portal>
        <M.Content
          align={align}
          sideOffset={4}
          className="z-50 max-h-80 min-w-44 overflow-y-auto rounded-lg border border-zinc-200 bg-white p-1 text-sm shadow-lg dark:border-zinc-800 dark:bg-zinc-900"
        >
          {children}
        </M.Content>
      </M.Portal>
    </M.Root>
  );
}

export function MenuItem({ children, onSelect, checked }: { children: ReactNode; onSelect: () => void; checked?: boolean }) {
  return (
    <M.Item
      onSelect={onSelect}
      className="flex cursor-default items-center gap-2 rounded px-2 py-1.5 outline-none select-none data-[highlighted]:bg-zinc-100 dark:data-[highlighted]:bg-zinc-800"
    >
      <span className="flex-1 truncate">{children}</span>
      {checked && <Check className="size-4" aria-label="selected" />}
    </M.Item>
  );
}

export function MenuSeparator() {
  return <M.Separator className="my-1 h-px bg-zinc-200 dark:bg-zinc-800" />;
}
