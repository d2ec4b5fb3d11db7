//! The source editor, in the preview's place: a header (path, title, save status, Write | Preview,
//! Close, Save), the conflict banner when the file changed on disk behind it, and CodeMirror over
//! the whole file. Loaded lazily (`lazy(() => import("./Editor"))`): every CodeMirror import
//! lives under `src/editor/`, which only this chunk pulls in.
import type { EditorView } from "@codemirror/view";
import { AlertTriangle, Loader2 } from "lucide-react";
import { Tabs } from "radix-ui";
import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import type { Folder } from "../../api/client";
import { useDoc, useLinkOffers } from "../../api/hooks";
import { Button } from "../../components/ui/button";
import { Confirm } from "../../components/ui/dialog";
import { ErrorCard, Skeleton, Skeletons } from "../../components/ui/states";
import { CodeEditor } from "../../editor/CodeEditor";
import { linkTarget } from "../../editor/names";
import { statusText, unsaved, type SaveState } from "../../editor/save";
import { useLeaveGuard } from "../../editor/useLeaveGuard";
import { useSave } from "../../editor/useSave";
import { basename, insidePath } from "../../lib/paths";
import { useIsDark } from "../../lib/theme";
import { Markdown } from "../../markdown/Markdown";

export interface EditorProps {
  folder: Folder;
  /** Root-relative: `<folder>/<path inside it>`. */
  path: string;
  onClose: () => void;
}

/** Waits for a fresh read of the file (not a cached one), then opens the editor on it. */
export default function Editor({ folder, path, onClose }: EditorProps) {
  const doc = useDoc(path);
  const [initial, setInitial] = useState<{ path: string; text: string; hash: string } | null>(null);
  // The version the editor starts from is the one on disk now: a cached copy could be up to a
  // poll old, and saving over it would be a needless conflict.
  if (doc.data && doc.fetchStatus === "idle" && initial?.path !== path) {
    setInitial({ path, text: doc.data.text, hash: doc.data.hash });
  }
  if (initial?.path === path) return <Open key={path} folder={folder} path={path} initial={initial} onClose={onClose} />;
  return <Loading inside={insidePath(folder.name, path)} error={doc.error && !doc.data ? doc.error : null} onRetry={() => void doc.refetch()} onClose={onClose} />;
}

/** The editor's place while the file is read: its path, skeletons, or the error with Retry. */
function Loading({ inside, error, onRetry, onClose }: { inside: string; error: Error | null; onRetry: () => void; onClose: () => void }) {
  return (
    <div className="flex h-full min-h-0 flex-col">
      <header className="flex items-start gap-3 border-b border-zinc-200 px-6 pt-4 pb-3 dark:border-zinc-800">
        <div className="min-w-0 flex-1">
          <p className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400">{inside}</p>
          <Skeleton className="mt-2 h-6 w-48" />
        </div>
        <Button onClick={onClose}>Close</Button>
      </header>
      {error ? (
        <div className="p-6">
          <ErrorCard error={error} onRetry={onRetry} />
        </div>
      ) : (
        <Skeletons rows={8} label="Loading the document" />
      )}
    </div>
  );
}

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);

function Open({ folder, path, initial, onClose }: EditorProps & { initial: { text: string; hash: string } }) {
  const isDark = useIsDark();
  const offers = useLinkOffers(folder.name);
  const cycle = useSave(path, initial);
  const { state } = cycle;
  const guard = useLeaveGuard(unsaved(state));
  const view = useRef<EditorView | null>(null);
  const pane = useRef<HTMLDivElement>(null);
  const [tab, setTab] = useState("write");

  const inside = insidePath(folder.name, path);
  const title = useDoc(path).data?.info?.title ?? linkTarget(basename(path));
  const textNow = useCallback(() => view.current?.state.doc.toString() ?? cycle.state.text, [cycle.state.text]);
  const save = useCallback(() => cycle.save(textNow()), [cycle, textNow]);
  // The buttons that save turn disabled or go away, which would drop the focus on the page:
  // hand it back to the text, where the user was going on anyway.
  const onSave = () => {
    save();
    view.current?.focus();
  };
  const onOverwrite = () => {
    cycle.overwrite(textNow());
    view.current?.focus();
  };

  useSaveShortcut(pane, save);

  return (
    <Tabs.Root ref={pane} value={tab} onValueChange={setTab} className="flex h-full min-h-0 flex-col">
      <EditorHeader path={path} inside={inside} title={title} state={state} onClose={() => guard.confirm(onClose)} onSave={onSave} />

      {state.phase === "conflict" && (
        <ConflictBanner
          path={path}
          onDiscard={() => {
            cycle.discard();
            onClose();
          }}
          onOverwrite={onOverwrite}
        />
      )}

      <Tabs.Content
        value="write"
        forceMount
        className="min-h-0 flex-1 border-t border-zinc-200 data-[state=inactive]:hidden dark:border-zinc-800"
      >
        <CodeEditor
          className="h-full"
          initial={initial.text}
          label={`Markdown of ${inside}`}
          isDark={isDark}
          offers={offers}
          onChange={cycle.edit}
          viewRef={view}
        />
      </Tabs.Content>
      <Tabs.Content
        value="preview"
        className="min-h-0 flex-1 overflow-y-auto border-t border-zinc-200 px-6 py-5 dark:border-zinc-800"
      >
        {state.text.trim() ? (
          <Markdown text={state.text} from={path} />
        ) : (
          <p className="text-sm text-zinc-500 dark:text-zinc-400">Nothing to preview yet.</p>
        )}
      </Tabs.Content>

      <Confirm
        open={guard.asking}
        onOpenChange={(open) => !open && guard.keep()}
        title="Discard unsaved changes?"
        description="Your edits to this note have not been saved, and leaving throws them away."
        cancel="Keep editing"
        confirm="Discard"
        onConfirm={guard.discard}
      />
    </Tabs.Root>
  );
}

/**
 * Ctrl/Cmd+S saves instead of the browser's "save page", wherever the focus is in the pane (or
 * nowhere); the leave question and other dialogs, outside the pane, keep their keys.
 */
function useSaveShortcut(pane: RefObject<HTMLElement | null>, save: () => void) {
  const saveNow = useRef(save);
  useEffect(() => {
    saveNow.current = save;
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.key.toLowerCase() !== "s") return;
      const target = e.target;
      if (!(target instanceof Node) || !(target === document.body || pane.current?.contains(target))) return;
      e.preventDefault();
      saveNow.current();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [pane]);
}

interface EditorHeaderProps {
  /** Root-relative, for the tooltip. */
  path: string;
  /** Inside the folder, as shown. */
  inside: string;
  title: string;
  state: SaveState;
  onClose: () => void;
  onSave: () => void;
}

/** The path, the title and the save status, Write | Preview, Close and Save. */
function EditorHeader({ path, inside, title, state, onClose, onSave }: EditorHeaderProps) {
  const saving = state.phase === "saving";
  return (
    <header className="flex flex-wrap items-start gap-x-4 gap-y-2 px-6 pt-4 pb-3">
      <div className="min-w-0 flex-1">
        <p className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400" title={path}>
          {inside}
        </p>
        <h2 className="mt-1 truncate text-xl font-semibold tracking-tight">{title}</h2>
        <p className="mt-0.5 flex items-center gap-2 text-sm text-zinc-500 dark:text-zinc-400">
          <span aria-live="polite" className="inline-flex items-center gap-1.5">
            {saving && <Loader2 aria-hidden className="size-3.5 animate-spin" />}
            {statusText(state)}
          </span>
          <span aria-hidden className="hidden text-xs text-zinc-500 sm:inline dark:text-zinc-400">
            ·{" "}
            <kbd className="rounded border border-zinc-200 px-1 font-sans text-[11px] dark:border-zinc-700">{isMac ? "⌘" : "Ctrl"}</kbd>
            +<kbd className="rounded border border-zinc-200 px-1 font-sans text-[11px] dark:border-zinc-700">S</kbd> to save
          </span>
        </p>
      </div>
      <div className="flex shrink-0 items-center gap-2">
        <Tabs.List aria-label="Editor view" className="inline-flex h-9 rounded-md border border-zinc-300 p-0.5 dark:border-zinc-700">
          {(["write", "preview"] as const).map((value) => (
            <Tabs.Trigger
              key={value}
              value={value}
              className="rounded px-3 text-sm font-medium text-zinc-500 capitalize transition-colors hover:text-zinc-900 data-[state=active]:bg-zinc-100 data-[state=active]:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100 dark:data-[state=active]:bg-zinc-800 dark:data-[state=active]:text-zinc-50"
            >
              {value}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        <Button onClick={onClose}>Close</Button>
        <Button variant="primary" disabled={state.phase === "clean" || saving || state.phase === "conflict"} aria-keyshortcuts={isMac ? "Meta+S" : "Control+S"} onClick={onSave}>
          Save
        </Button>
      </div>
    </header>
  );
}

function ConflictBanner({ path, onDiscard, onOverwrite }: { path: string; onDiscard: () => void; onOverwrite: () => void }) {
  return (
    <div
      role="alert"
      className="mx-6 mb-3 flex flex-wrap items-center gap-3 rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-900 dark:border-red-900 dark:bg-red-950/40 dark:text-red-100"
    >
      <AlertTriangle aria-hidden className="size-4 shrink-0 text-red-600 dark:text-red-400" />
      <p className="min-w-0 flex-1 basis-64">
        <span className="font-mono text-[13px] break-all">{path}</span> was changed on disk since it was opened. Saving yours replaces
        it; discarding reopens the file as it is now.
      </p>
      <div className="flex shrink-0 gap-2">
        <Button size="sm" onClick={onDiscard}>
          Discard mine
        </Button>
        <Button size="sm" variant="danger" onClick={onOverwrite}>
          Save mine anyway
        </Button>
      </div>
    </div>
  );
}
