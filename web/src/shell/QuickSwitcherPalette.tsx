//! The quick switcher's palette (cmdk), in its own chunk: loaded the first time Ctrl/Cmd+K is
//! pressed, so the first page stays small. The documents of every folder that match what was
//! typed, ranked by the server by title, path or alias (`GET /api/jump`, so a vault of 150,000
//! files sends 50 of them, not all), then the folders and Settings. An IME's composition
//! changes the hits only when it ends; cmdk itself ignores the Enter that confirms one (its
//! keydown is `isComposing`, or keyCode 229 in Safari), so that Enter opens nothing.
import { useState } from "react";
import { useNavigate } from "@tanstack/react-router";
import { Command } from "cmdk";
import { FileText, Settings } from "lucide-react";
import { useFolders, useJump } from "../api/hooks";
import { Highlight } from "../components/Highlight";
import { fold } from "../lib/fold";
import { useComposedInput } from "../lib/ime";
import { insidePath } from "../lib/paths";
import { words } from "../lib/rank";
import { FolderIcon } from "./Sidebar";

const MAX_DOCS = 50;

interface Entry {
  value: string;
  go: () => void;
}

const itemClass =
  "flex cursor-default items-center gap-2.5 rounded-md px-2.5 py-2 text-sm select-none data-[selected=true]:bg-zinc-100 dark:data-[selected=true]:bg-zinc-800";
const groupClass =
  "px-1.5 pb-1 [&_[cmdk-group-heading]]:px-2.5 [&_[cmdk-group-heading]]:pt-2 [&_[cmdk-group-heading]]:pb-1 [&_[cmdk-group-heading]]:text-xs [&_[cmdk-group-heading]]:font-medium [&_[cmdk-group-heading]]:text-zinc-500 dark:[&_[cmdk-group-heading]]:text-zinc-400";

export default function Palette({ onDone }: { onDone: () => void }) {
  const navigate = useNavigate();
  const folders = useFolders();
  const [query, setQuery] = useState("");
  const docs = useJump(query.trim(), query.trim() ? MAX_DOCS : 8);
  // Typed through an IME, the ranking follows what a composition confirms, not its keystrokes.
  const box = useComposedInput(query, setQuery);
  const [value, setValue] = useState("");

  const want = words(query);
  const folderList = folders.data?.folders ?? [];
  const titles = new Map(folderList.map((f) => [f.name, f.title]));
  const docHits = docs.data ?? [];
  const folderHits = folderList.filter((f) => want.every((w) => fold(`${f.title}\n${f.name}`).includes(w)));
  const settingsHit = want.every((w) => "settings".includes(w));

  const entries: Entry[] = [
    ...docHits.map((d) => ({
      value: `doc:${d.path}`,
      go: () => void navigate({ to: "/f/$folder", params: { folder: d.folder }, search: { doc: insidePath(d.folder, d.path) } }),
    })),
    ...folderHits.map((f) => ({ value: `folder:${f.name}`, go: () => void navigate({ to: "/f/$folder", params: { folder: f.name } }) })),
    ...(settingsHit ? [{ value: "settings", go: () => void navigate({ to: "/settings" }) }] : []),
  ];
  const go = new Map(entries.map((e) => [e.value, e.go]));
  const active = go.has(value) ? value : (entries[0]?.value ?? "");
  const pick = (v: string) => {
    onDone();
    go.get(v)?.();
  };

  return (
    <Command label="Jump to a document" shouldFilter={false} value={active} onValueChange={setValue} loop className="flex max-h-[min(32rem,70vh)] flex-col">
      <Command.Input
        value={box.text}
        onValueChange={box.onText}
        onCompositionStart={box.onCompositionStart}
        onCompositionEnd={box.onCompositionEnd}
        placeholder="Jump to a document, a folder or Settings…"
        className="h-12 w-full border-b border-zinc-200 bg-transparent px-4 text-sm placeholder:text-zinc-400 focus:outline-none dark:border-zinc-800"
      />
      <Command.List className="min-h-0 flex-1 overflow-y-auto py-1">
        {docs.isPending && <Command.Loading className="px-4 py-2 text-sm text-zinc-500 dark:text-zinc-400">Loading documents…</Command.Loading>}
        {docs.isError && <p className="px-4 py-2 text-sm text-red-600 dark:text-red-400">Could not list the documents: {docs.error.message}</p>}
        {entries.length === 0 && !docs.isPending && <p className="px-4 py-6 text-center text-sm text-zinc-500 dark:text-zinc-400">Nothing matches that.</p>}
        {docHits.length > 0 && (
          <Command.Group heading={query.trim() ? "Documents" : "Recently changed"} className={groupClass}>
            {docHits.map((d) => (
              <Command.Item key={d.path} value={`doc:${d.path}`} onSelect={pick} className={itemClass}>
                <FileText className="size-4 shrink-0 text-zinc-500 dark:text-zinc-400" aria-hidden />
                <span className="min-w-0 flex-1 truncate">
                  <Highlight text={d.title} words={want} />
                  <span className="ml-2 text-xs text-zinc-600 dark:text-zinc-400">
                    <Highlight text={insidePath(d.folder, d.path)} words={want} />
                  </span>
                </span>
                <span className="shrink-0 text-xs text-zinc-600 dark:text-zinc-400">{titles.get(d.folder) ?? d.folder}</span>
              </Command.Item>
            ))}
          </Command.Group>
        )}
        {folderHits.length > 0 && (
          <Command.Group heading="Folders" className={groupClass}>
            {folderHits.map((f) => (
              <Command.Item key={f.name} value={`folder:${f.name}`} onSelect={pick} className={itemClass}>
                <FolderIcon mcp={f.mcp} className="size-4 shrink-0 text-zinc-500 dark:text-zinc-400" />
                <span className="min-w-0 flex-1 truncate">
                  <Highlight text={f.title} words={want} />
                </span>
                <span className="shrink-0 text-xs text-zinc-600 dark:text-zinc-400">{f.files} files</span>
              </Command.Item>
            ))}
          </Command.Group>
        )}
        {settingsHit && (
          <Command.Group heading="Go to" className={groupClass}>
            <Command.Item value="settings" onSelect={pick} className={itemClass}>
              <Settings className="size-4 shrink-0 text-zinc-500 dark:text-zinc-400" aria-hidden />
              Settings
            </Command.Item>
          </Command.Group>
        )}
      </Command.List>
      <div className="flex gap-3 border-t border-zinc-200 px-4 py-2 text-[11px] text-zinc-500 dark:border-zinc-800 dark:text-zinc-400">
        <span>↑↓ to move</span>
        <span>Enter to open</span>
        <span>Esc to close</span>
      </div>
    </Command>
  );
}
