//! A folder's Recent changes (`/f/<folder>/changes?session=&tool=&path=`): every change made
//! through ragdown under the folder, newest first, filtered by agent session, by tool (or the web
//! UI) and by path; each with Undo (Restore for a deletion, Redo for an undo), and for a session
//! "Undo everything this session did". An entry's session is a link to this page filtered by it.
import { useState } from "react";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { ArrowLeft, Bot, FolderTree, History, Undo2 } from "lucide-react";
import { clsx } from "clsx";
import { useChanges, useFolders, useWritable } from "../../../api/hooks";
import { useUndoEntry, useUndoSession, type UndoConflict } from "../../../api/mutations";
import type { Schemas } from "../../../api/client";
import { Button } from "../../../components/ui/button";
import { Confirm } from "../../../components/ui/dialog";
import { Menu, MenuItem, MenuSeparator } from "../../../components/ui/menu";
import { Badge, Empty, ErrorCard, Skeletons } from "../../../components/ui/states";
import { insidePath } from "../../../lib/paths";
import type { ChangesSearch } from "../../../lib/routeSearch";
import { ago } from "../../../lib/time";
import { messageOf, notify } from "../../../lib/toast";
import { useTitle } from "../../../lib/title";
import { WhoChip } from "./WhoChip";
import { entryTime, shortSession, summary, undoLabel, type Entry } from "./entries";
import { ConflictDialog, SessionReport } from "./UndoDialogs";

/** The tools that write, for the tool filter. */
const TOOLS = ["ragdown_write", "ragdown_edit", "ragdown_remember", "ragdown_move", "ragdown_delete", "ragdown_create_folder"];

const filterButton =
  "inline-flex h-8 max-w-56 items-center gap-1.5 rounded-md border border-zinc-300 px-2.5 text-sm text-zinc-700 hover:bg-zinc-50 data-[state=open]:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:data-[state=open]:bg-zinc-800";

export function ChangesPage() {
  const { folder: name } = useParams({ from: "/f/$folder/changes" });
  const search = useSearch({ from: "/f/$folder/changes" });
  const folders = useFolders();
  const folder = folders.data?.folders.find((f) => f.name === name);
  useTitle(`Recent changes · ${folder?.title ?? name}`);
  const changes = useChanges({ folder: name, session: search.session, tool: search.tool, path: search.path ? `${name}/${search.path}` : undefined });
  const entries = changes.data?.entries ?? [];

  let body;
  if (changes.isPending) body = <Skeletons rows={8} label="Loading the changes" />;
  else if (!changes.data) body = <ErrorCard error={changes.error} onRetry={() => void changes.refetch()} />;
  else if (entries.length === 0)
    body = (
      <Empty title={search.session || search.tool || search.path ? "No changes match these filters" : "No changes recorded yet"}>
        Changes made through ragdown, by agents and in this web UI, are kept here. Edits made in another editor are not.
      </Empty>
    );
  else
    body = (
      <ol aria-label="Recent changes" className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
        {entries.map((entry) => (
          <li key={entry.id}>
            <ChangeRow entry={entry} folder={name} />
          </li>
        ))}
      </ol>
    );

  return (
    <div className="h-full overflow-y-auto">
      <section aria-label="Recent changes" className="mx-auto max-w-4xl px-5 py-5 sm:px-8">
        <Link
          to="/f/$folder"
          params={{ folder: name }}
          className="-ml-1 inline-flex h-7 items-center gap-1.5 rounded-md px-1.5 text-xs font-medium text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
        >
          <ArrowLeft className="size-3.5" aria-hidden /> {folder?.title ?? name}
        </Link>
        <h1 className="mt-2 flex items-center gap-2 text-xl font-semibold tracking-tight">
          <History className="size-5 text-zinc-500 dark:text-zinc-400" aria-hidden /> Recent changes
        </h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">Every change made through ragdown in {folder?.title ?? name}, by agents and here, newest first. Each one can be undone.</p>
        <Filters search={search} sessions={changes.data?.sessions ?? []} />
        {search.session && <SessionBar session={search.session} entries={entries} />}
        <div className="mt-4">{body}</div>
      </section>
    </div>
  );
}

function Filters({ search, sessions }: { search: ChangesSearch; sessions: readonly string[] }) {
  const navigate = useNavigate({ from: "/f/$folder/changes" });
  const set = (patch: Partial<ChangesSearch>) => void navigate({ search: (s) => ({ ...s, ...patch }) });
  const [path, setPath] = useState(search.path ?? "");
  /** The typed path as the filter: no slashes at its ends, and none at all for "everywhere". */
  const applyPath = () => {
    const wanted = path.trim().replace(/^\/+|\/+$/g, "") || undefined;
    if (wanted !== search.path) set({ path: wanted });
  };
  return (
    <div className="mt-4 flex flex-wrap items-center gap-2">
      <Menu
        trigger={
          <button type="button" className={clsx(filterButton, search.session && "border-accent-500")} aria-label={search.session ? `Session: ${search.session}` : "Session: all"}>
            <Bot className="size-3.5 shrink-0" aria-hidden />
            <span className="truncate">{search.session ? shortSession(search.session) : "All sessions"}</span>
          </button>
        }
      >
        <MenuItem onSelect={() => set({ session: undefined })} checked={!search.session}>
          All sessions
        </MenuItem>
        <MenuSeparator />
        {sessions.length === 0 && <p className="px-2 py-1.5 text-xs text-zinc-500 dark:text-zinc-400">No agent sessions</p>}
        {sessions.map((s) => (
          <MenuItem key={s} onSelect={() => set({ session: s })} checked={search.session === s}>
            <span className="font-mono text-xs">{s}</span>
          </MenuItem>
        ))}
      </Menu>
      <Menu
        trigger={
          <button type="button" className={clsx(filterButton, search.tool && "border-accent-500")} aria-label={`Made by: ${search.tool ?? "anyone"}`}>
            <span className="truncate">{search.tool === "web" ? "Web UI" : (search.tool ?? "Anyone")}</span>
          </button>
        }
      >
        <MenuItem onSelect={() => set({ tool: undefined })} checked={!search.tool}>
          Anyone
        </MenuItem>
        <MenuItem onSelect={() => set({ tool: "web" })} checked={search.tool === "web"}>
          Web UI
        </MenuItem>
        <MenuSeparator />
        {TOOLS.map((t) => (
          <MenuItem key={t} onSelect={() => set({ tool: t })} checked={search.tool === t}>
            <span className="font-mono text-xs">{t}</span>
          </MenuItem>
        ))}
      </Menu>
      <form
        role="search"
        className="flex min-w-48 flex-1 items-center gap-1.5 rounded-md border border-zinc-300 px-2.5 focus-within:border-accent-500 dark:border-zinc-700"
        onSubmit={(e) => {
          e.preventDefault();
          applyPath();
        }}
      >
        <FolderTree className="size-3.5 shrink-0 text-zinc-500 dark:text-zinc-400" aria-hidden />
        <input
          aria-label="Only under this path"
          placeholder="Only under a path (Enter)"
          value={path}
          onChange={(e) => setPath(e.target.value)}
          onBlur={applyPath}
          className="h-8 min-w-0 flex-1 bg-transparent text-sm outline-none"
        />
      </form>
    </div>
  );
}

/** A session's changes on screen: undo all of them, newest first, and say what could not be. */
function SessionBar({ session, entries }: { session: string; entries: readonly Entry[] }) {
  const writable = useWritable();
  const undo = useUndoSession();
  const [asking, setAsking] = useState(false);
  const [report, setReport] = useState<Schemas["SessionUndo"] | null>(null);
  const standing = entries.filter((e) => !e.undone_by && e.action !== "undo").length;
  const describe = (id: string) => {
    const entry = entries.find((e) => e.id === id);
    return entry ? summary(entry) : id;
  };
  const run = () =>
    undo.mutate(session, {
      onSuccess: (done) => {
        setAsking(false);
        setReport(done);
      },
      onError: (err) => notify.fail(`Could not undo the session: ${messageOf(err)}`),
    });
  return (
    <div className="mt-4 flex flex-wrap items-center gap-3 rounded-lg border border-zinc-200 bg-zinc-50 px-3 py-2.5 text-sm dark:border-zinc-800 dark:bg-zinc-900">
      <p className="mr-auto min-w-0">
        Agent session <code className="font-mono text-[0.9em] break-all">{session}</code>
      </p>
      {writable && (
        <Button variant="danger" size="sm" disabled={standing === 0 || undo.isPending} onClick={() => setAsking(true)}>
          <Undo2 className="size-3.5" aria-hidden /> Undo everything this session did
        </Button>
      )}
      <Confirm
        open={asking}
        onOpenChange={setAsking}
        title="Undo everything this session did?"
        description="Its changes are undone newest first, in every folder. A change that something else built on since is left as it is and listed. Each undo is kept in the history, so it can be redone."
        confirm="Undo everything"
        busy={undo.isPending}
        onConfirm={run}
      />
      <SessionReport report={report} describe={describe} onClose={() => setReport(null)} />
    </div>
  );
}

function ChangeRow({ entry, folder }: { entry: Entry; folder: string }) {
  const writable = useWritable();
  const undo = useUndoEntry();
  const [conflict, setConflict] = useState<UndoConflict | null>(null);
  const label = undoLabel(entry);
  // A change to one document links to that document's history.
  const only = entry.ops.length === 1 && entry.ops[0]?.op === "file" ? entry.ops[0].path : undefined;
  const doc = only ? insidePath(folder, only) : undefined;

  const run = (resolve: "keep" | "overwrite") =>
    undo.mutate(
      { entry: entry.id, resolve },
      {
        onSuccess: (answer) => {
          if ("conflict" in answer) return setConflict(answer.conflict);
          setConflict(null);
          notify.ok(`${label === "Undo" ? "Undone" : label === "Redo" ? "Redone" : "Restored"}: ${summary(entry, folder)}`);
        },
        onError: (err) => notify.fail(`Could not ${label.toLowerCase()}: ${messageOf(err)}`),
      },
    );

  return (
    <div className="flex flex-wrap items-start gap-x-3 gap-y-1.5 px-3 py-2.5">
      <div className="min-w-0 flex-1">
        <p className="text-sm font-medium break-words">
          {doc ? (
            <Link to="/f/$folder" params={{ folder }} search={{ doc, history: true }} className="hover:underline">
              {summary(entry, folder)}
            </Link>
          ) : (
            summary(entry, folder)
          )}
        </p>
        <p className="mt-0.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400">
          <WhoChip who={entry.who} folder={folder} />
          <time dateTime={entry.at} title={new Date(entry.at).toLocaleString()}>
            {ago(entryTime(entry))}
          </time>
          {entry.undone_by && <Badge tone="amber">undone</Badge>}
        </p>
      </div>
      {writable && !entry.undone_by && (
        <Button size="sm" disabled={undo.isPending} onClick={() => run("keep")} aria-label={`${label}: ${summary(entry, folder)}`}>
          {label}
        </Button>
      )}
      <ConflictDialog conflict={conflict} busy={undo.isPending} onKeep={() => setConflict(null)} onOverwrite={() => run("overwrite")} />
    </div>
  );
}
