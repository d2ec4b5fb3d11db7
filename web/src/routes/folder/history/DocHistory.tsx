//! A document's History (`?doc=…&history=true`): every change recorded for it, newest first, who
//! made it and when; the chosen one's version compared with the file as it is now (or what that
//! change itself did), Restore this version, and Restore the version before (the way back from a
//! document's first recorded change). A deleted document's history is here too, so it
//! can be brought back. The chosen change's agent session links to everything that session did
//! in the folder.
import { useState } from "react";
import { ArrowLeft, RotateCcw } from "lucide-react";
import { clsx } from "clsx";
import { ApiError, type Folder } from "../../../api/client";
import { useDoc, useDocHistory, useVersion, useWritable } from "../../../api/hooks";
import { useRestoreVersion } from "../../../api/mutations";
import { Button } from "../../../components/ui/button";
import { Badge, Empty, ErrorCard, Skeletons } from "../../../components/ui/states";
import { insidePath } from "../../../lib/paths";
import { ago, size } from "../../../lib/time";
import { messageOf, notify } from "../../../lib/toast";
import { DiffView } from "./DiffView";
import { entryTime, summary, versionsAt, type Entry } from "./entries";
import { SessionLink, WhoChip } from "./WhoChip";

export function DocHistory({ folder, path, onClose }: { folder: Folder; path: string; onClose: () => void }) {
  const history = useDocHistory(path);
  const [chosen, setChosen] = useState<string | undefined>();
  const entries = history.data?.entries ?? [];
  const entry = entries.find((e) => e.id === chosen) ?? entries[0];

  let body;
  if (history.isPending) body = <Skeletons rows={6} label="Loading the history" />;
  else if (!history.data) body = <ErrorCard error={history.error} onRetry={() => void history.refetch()} />;
  else if (!entry)
    body = (
      <Empty title="No changes recorded for this document">
        Changes made through ragdown, by an agent or here, are kept and listed here. Edits made in another editor are not.
      </Empty>
    );
  // The list beside the diff only where the pane (not the window) is wide enough for both.
  else
    body = (
      <div className="grid gap-5 @4xl:grid-cols-[16rem_minmax(0,1fr)]">
        <ol aria-label="Changes" className="max-h-72 space-y-1 overflow-y-auto @4xl:max-h-none">
          {entries.map((e) => (
            <li key={e.id}>
              <EntryButton entry={e} folder={folder.name} selected={e.id === entry.id} onSelect={() => setChosen(e.id)} />
            </li>
          ))}
        </ol>
        <EntryDetail key={entry.id} entry={entry} folder={folder.name} path={path} current={history.data.current ?? null} />
      </div>
    );

  return (
    <div className="h-full overflow-y-auto">
      <section aria-label="Document history" className="@container mx-auto max-w-6xl px-5 py-5 sm:px-8">
        <Button variant="ghost" size="sm" className="-ml-2" onClick={onClose}>
          <ArrowLeft className="size-3.5" aria-hidden /> Back to the document
        </Button>
        <h2 className="mt-2 text-xl font-semibold tracking-tight">History</h2>
        <p className="mt-1 mb-5 text-sm break-all text-zinc-600 dark:text-zinc-400">
          <code className="font-mono text-[0.9em]">{insidePath(folder.name, path)}</code>: every change made through ragdown, newest first.
        </p>
        {body}
      </section>
    </div>
  );
}

function EntryButton({ entry, folder, selected, onSelect }: { entry: Entry; folder: string; selected: boolean; onSelect: () => void }) {
  return (
    <button
      type="button"
      aria-pressed={selected}
      onClick={onSelect}
      className={clsx(
        "w-full rounded-lg border px-3 py-2 text-left text-sm transition-colors",
        selected
          ? "border-accent-500 bg-accent-50 dark:border-accent-500 dark:bg-accent-500/10"
          : "border-zinc-200 hover:bg-zinc-50 dark:border-zinc-800 dark:hover:bg-zinc-900",
      )}
    >
      <span className="block font-medium break-words">{summary(entry, folder)}</span>
      <span className="mt-0.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400">
        <WhoChip who={entry.who} />
        <time dateTime={entry.at} title={new Date(entry.at).toLocaleString()}>
          {ago(entryTime(entry))}
        </time>
        {entry.undone_by && <Badge tone="amber">undone</Badge>}
      </span>
    </button>
  );
}

type Mode = "now" | "change";

/** One entry: its version of the document beside the file now, or what it changed, and Restore. */
function EntryDetail({ entry, folder, path, current }: { entry: Entry; folder: string; path: string; current: string | null }) {
  const [mode, setMode] = useState<Mode>("now");
  const versions = versionsAt(entry, path);
  const writable = useWritable();
  // The version this change left; when it removed the file, the one it removed.
  const hash = versions ? (versions.after ?? versions.before) : null;
  const left = versions?.after != null;
  const version = useVersion(hash);
  const before = useVersion(mode === "change" ? versions?.before : null);
  const now = useDoc(current ? path : undefined);
  const restore = useRestoreVersion();

  if (!versions || !hash)
    return <p className="text-sm text-zinc-600 dark:text-zinc-400">This change moved the folder this document is in; it holds no version of its own.</p>;

  const onRestore = (wanted: string, what: string) =>
    restore.mutate(
      { path, hash: wanted, base_hash: current },
      {
        onSuccess: (done) => notify.ok(done.entry ? `Restored ${what}` : "The file already holds this version"),
        onError: (err) =>
          notify.fail(err instanceof ApiError && err.code === "changed" ? "The file changed while you looked: it was left as it is. Look at the history again." : `Could not restore: ${messageOf(err)}`),
      },
    );
  const when = new Date(entry.at).toLocaleString();
  const earlier = left ? versions.before : null;

  const isCurrent = hash === current;
  let diff;
  const loading = version.isPending || (mode === "change" && !!versions.before && before.isPending) || (mode === "now" && !!current && now.isPending);
  if (loading) diff = <Skeletons rows={6} label="Loading the versions" />;
  else if (version.isError) diff = <ErrorCard error={version.error} />;
  else if (version.data?.text == null) diff = <p className="text-sm text-zinc-600 dark:text-zinc-400">A binary file ({size(version.data?.size ?? 0)}): no text to compare.</p>;
  else if (mode === "change")
    diff = <DiffView before={before.data?.text ?? ""} after={left ? version.data.text : ""} beforeName="the file before" afterName="the file after" />;
  else if (!current) diff = <DiffView before={version.data.text} after="" beforeName="this version" afterName="the file now (it is deleted)" />;
  else diff = <DiffView before={version.data.text} after={now.data?.text ?? ""} beforeName="this version" afterName="the file now" />;

  return (
    <div className="min-w-0">
      <div className="mb-3 flex flex-wrap items-center gap-2">
        <p className="mr-auto text-sm text-zinc-700 dark:text-zinc-300">
          {left ? "The version this change left" : "The version this change removed"}
          {isCurrent && <span className="text-zinc-500 dark:text-zinc-400"> · the file holds it now</span>}
        </p>
        {entry.who.session && (
          <SessionLink session={entry.who.session} folder={folder}>
            <span className="text-sm text-accent-700 dark:text-indigo-300">Everything this session did</span>
          </SessionLink>
        )}
        <ModeToggle mode={mode} onChange={setMode} />
        {writable && earlier && (
          <Button size="sm" disabled={earlier === current || restore.isPending} onClick={() => onRestore(earlier, `the version before the change of ${when}`)}>
            Restore the version before
          </Button>
        )}
        {writable && (
          <Button variant="primary" size="sm" disabled={isCurrent || restore.isPending} onClick={() => onRestore(hash, `the version of ${when}`)}>
            <RotateCcw className="size-3.5" aria-hidden /> Restore this version
          </Button>
        )}
      </div>
      {diff}
    </div>
  );
}

function ModeToggle({ mode, onChange }: { mode: Mode; onChange: (mode: Mode) => void }) {
  const options: [Mode, string][] = [
    ["now", "Compare with now"],
    ["change", "What this change did"],
  ];
  return (
    <div role="group" aria-label="Compare" className="inline-flex rounded-md border border-zinc-300 p-0.5 dark:border-zinc-700">
      {options.map(([value, label]) => (
        <button
          key={value}
          type="button"
          aria-pressed={mode === value}
          onClick={() => onChange(value)}
          className="h-6 rounded px-2 text-xs text-zinc-600 aria-pressed:bg-zinc-100 aria-pressed:font-medium aria-pressed:text-zinc-900 dark:text-zinc-400 dark:aria-pressed:bg-zinc-800 dark:aria-pressed:text-zinc-100"
        >
          {label}
        </button>
      ))}
    </div>
  );
}
