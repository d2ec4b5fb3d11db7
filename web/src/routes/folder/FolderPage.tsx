//! The folder page `/f/<folder>?doc=&tag=&edit=&sort=&history=`: the list pane (22 rem) beside
//! the preview, the editor or the document's History, stacked on narrow screens. It owns the editing state (`?edit=true`
//! opens the editor once the document loads, then leaves the URL; another document closes it),
//! remembers the folder for Home, sets the window title, and holds the New note and Upload
//! dialogs.
import { lazy, Suspense, useEffect, useState } from "react";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { FileText, Plus } from "lucide-react";
import type { Folder } from "../../api/client";
import { useDoc, useFolders, useWritable } from "../../api/hooks";
import { Button } from "../../components/ui/button";
import { Empty, ErrorCard, Skeleton, Skeletons } from "../../components/ui/states";
import { rootPath } from "../../lib/paths";
import { plural } from "../../lib/time";
import { useTitle } from "../../lib/title";
import type { FolderSearch } from "../../lib/routeSearch";
import { LAST_FOLDER_KEY } from "../Home";
import { NewNote } from "./actions/NewNote";
import { Upload } from "./actions/Upload";
import { ListPane } from "./list/ListPane";
import { parentDir } from "./list/tree";
import { Preview } from "./Preview";

// Its own chunk: CodeMirror loads only when a document is edited.
const Editor = lazy(() => import("./Editor"));
// Its own chunk too, with the diff.
const DocHistory = lazy(() => import("./history/DocHistory").then((m) => ({ default: m.DocHistory })));

export function FolderPage() {
  const { folder: name } = useParams({ from: "/f/$folder" });
  const search = useSearch({ from: "/f/$folder" });
  const folders = useFolders();
  const folder = folders.data?.folders.find((f) => f.name === name);

  if (folders.isPending) return <Loading />;
  if (folders.isError)
    return (
      <div className="p-6">
        <ErrorCard error={folders.error} onRetry={() => void folders.refetch()} />
      </div>
    );
  if (!folder) return <UnknownFolder name={name} />;
  return <FolderView key={folder.name} folder={folder} search={search} />;
}

function FolderView({ folder, search }: { folder: Folder; search: FolderSearch }) {
  const navigate = useNavigate({ from: "/f/$folder" });
  const writable = useWritable();
  const doc = search.doc;
  const path = doc ? rootPath(folder.name, doc) : undefined;
  const loaded = useDoc(path);
  const [newNote, setNewNote] = useState<{ dir: string } | null>(null);
  const [uploading, setUploading] = useState(false);

  // Another document closes the editor (its own leave guard has already asked, if it had to).
  const [editing, setEditing] = useState(false);
  const [shown, setShown] = useState(doc);
  if (doc !== shown) {
    setShown(doc);
    setEditing(false);
  }
  if (search.edit && doc && loaded.isSuccess && !editing) setEditing(true);
  const settled = !doc || loaded.isSuccess || loaded.isError;
  useEffect(() => {
    if (search.edit && settled) void navigate({ search: (s) => ({ ...s, edit: undefined }), replace: true });
  }, [search.edit, settled, navigate]);

  useEffect(() => {
    localStorage.setItem(LAST_FOLDER_KEY, folder.name);
  }, [folder.name]);
  useTitle(loaded.data?.info?.title ?? folder.title);

  return (
    <div className="flex h-full min-h-0 flex-col md:flex-row">
      <section
        aria-label={`${folder.title} documents`}
        className="flex max-h-[45dvh] min-h-0 shrink-0 flex-col border-b border-zinc-200 md:max-h-none md:w-[22rem] md:border-r md:border-b-0 dark:border-zinc-800"
      >
        <ListPane
          folder={folder}
          selected={doc}
          tag={search.tag}
          sort={search.sort}
          onNewNote={(dir) => setNewNote({ dir })}
          onUpload={() => setUploading(true)}
        />
      </section>
      <section aria-label="Document" className="min-h-0 min-w-0 flex-1 overflow-y-auto">
        {!path ? (
          <NothingSelected folder={folder} writable={writable} onNewNote={() => setNewNote({ dir: "" })} />
        ) : search.history ? (
          <Suspense fallback={<Skeletons rows={8} label="Loading the history" />}>
            <DocHistory folder={folder} path={path} onClose={() => void navigate({ search: (s) => ({ ...s, history: undefined }) })} />
          </Suspense>
        ) : editing ? (
          <Suspense fallback={<Skeletons rows={8} label="Opening the editor" />}>
            <Editor folder={folder} path={path} onClose={() => setEditing(false)} />
          </Suspense>
        ) : (
          <Preview folder={folder} path={path} onEdit={() => setEditing(true)} onHistory={() => void navigate({ search: (s) => ({ ...s, history: true }) })} />
        )}
      </section>
      <NewNote open={!!newNote} onOpenChange={(open) => !open && setNewNote(null)} folder={folder} dir={newNote?.dir ?? (doc ? parentDir(doc) : "")} />
      <Upload open={uploading} onOpenChange={setUploading} folder={folder} />
    </div>
  );
}

function NothingSelected({ folder, writable, onNewNote }: { folder: Folder; writable: boolean; onNewNote: () => void }) {
  return (
    <div className="flex h-full min-h-64 items-center justify-center p-8">
      <div className="max-w-md text-center">
        <FileText className="mx-auto size-8 text-zinc-500 dark:text-zinc-400" aria-hidden />
        <h2 className="mt-3 text-base font-medium">Pick a document to preview it</h2>
        <p className="mt-1.5 text-sm text-zinc-600 dark:text-zinc-400">
          {folder.title} holds {plural(folder.files, "file")}. What you see here is read from disk, so it is current even while the index catches up.
        </p>
        {writable && (
          <Button className="mt-4" onClick={onNewNote}>
            <Plus className="size-4" aria-hidden /> New note
          </Button>
        )}
      </div>
    </div>
  );
}

function UnknownFolder({ name }: { name: string }) {
  useTitle(name);
  return (
    <Empty title={`There is no folder called ${name}`}>
      <p>It may have been renamed or deleted.</p>
      <Link to="/" className="mt-3 inline-block font-medium text-accent-600 hover:underline dark:text-accent-500">
        Open another folder
      </Link>
    </Empty>
  );
}

function Loading() {
  return (
    <div className="flex h-full min-h-0 flex-col md:flex-row">
      <div role="status" aria-label="Loading the folder" className="space-y-3 border-b border-zinc-200 p-4 md:w-[22rem] md:border-r md:border-b-0 dark:border-zinc-800">
        <Skeleton className="h-6 w-2/3" />
        <Skeleton className="h-3 w-1/2" />
        <Skeleton className="h-8 w-full" />
        <Skeletons rows={6} label="Loading documents" />
      </div>
      <div className="flex-1" />
    </div>
  );
}
