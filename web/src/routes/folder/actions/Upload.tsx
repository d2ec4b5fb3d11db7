//! Upload Markdown files: pick or drop them (several at once, or one pick after another), each
//! written with `POST /api/doc` into the folder or a subfolder of it. One that exists stays
//! listed with "Already exists." and Overwrite; anything not Markdown is refused by name.
import { useId, useState, type DragEvent } from "react";
import { FileText, UploadCloud, X } from "lucide-react";
import { clsx } from "clsx";
import type { Folder } from "../../../api/client";
import { useUploadDocs, type UploadOutcome } from "../../../api/mutations";
import { Button } from "../../../components/ui/button";
import { Dialog, DialogFooter } from "../../../components/ui/dialog";
import { useDiscardGuard } from "../../../components/ui/discard";
import { Field, Input } from "../../../components/ui/form";
import { filePath, isMarkdownName } from "../../../lib/filename";
import { plural, size } from "../../../lib/time";
import { notify } from "../../../lib/toast";

export interface UploadProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  folder: Folder;
}

interface Picked {
  file: File;
  /** `exists`: the server answered 409; `failed`: anything else, with its message. */
  state: "ready" | "sending" | "exists" | "failed";
  error?: string;
}

/** Mounted only while open, so each opening starts with nothing picked. */
export function Upload({ open, onOpenChange, folder }: UploadProps) {
  return open ? <UploadForm folder={folder} onClose={() => onOpenChange(false)} /> : null;
}

/** The files picked so far, each with its state, and the names just refused as not Markdown. */
function usePicked() {
  const [picked, setPicked] = useState<Picked[]>([]);
  const [refused, setRefused] = useState<string[]>([]);
  /** Adds a pick or a drop; a file picked again replaces the one of that name. */
  const add = (files: FileList | null) => {
    const list = [...(files ?? [])];
    const good = list.filter((f) => isMarkdownName(f.name));
    setRefused(list.filter((f) => !isMarkdownName(f.name)).map((f) => f.name));
    setPicked((now) => [...now.filter((p) => !good.some((f) => f.name === p.file.name)), ...good.map((file) => ({ file, state: "ready" as const }))]);
  };
  /** Changes one file's state; `null` takes it off the list. */
  const update = (name: string, patch: Partial<Picked> | null) =>
    setPicked((now) => (patch ? now.map((p) => (p.file.name === name ? { ...p, ...patch } : p)) : now.filter((p) => p.file.name !== name)));
  return { picked, refused, add, update };
}

/** A file's state after an outcome of the upload: a written one leaves the list. */
function stateOf(outcome: UploadOutcome): Partial<Picked> | null {
  if (outcome.state === "done") return null;
  return outcome.state === "failed" ? { state: "failed", error: outcome.error } : { state: outcome.state, error: undefined };
}

function UploadForm({ folder, onClose }: { folder: Folder; onClose: () => void }) {
  const upload = useUploadDocs();
  const [sub, setSub] = useState("");
  const { picked, refused, add, update } = usePicked();
  const { onOpenChange, guard } = useDiscardGuard(picked.length > 0 || sub.trim() !== "", onClose);
  const busy = upload.isPending;

  /** Sends `items` one after another; then the toast, and closing once nothing is left to do. */
  const send = async (items: Picked[], overwrite: boolean) => {
    const files = items.map((p) => ({ name: p.file.name, path: filePath(folder.name, sub, p.file.name), read: () => p.file.text() }));
    const done = await upload.mutateAsync({ files, overwrite, onEach: (name, outcome) => update(name, stateOf(outcome)) });
    if (done > 0) notify.ok(`Uploaded ${plural(done, "file")}`);
    if (picked.length - done === 0) onClose();
  };
  const uploadAll = () => send(picked.filter((p) => p.state === "ready" || p.state === "failed"), false);
  const sendable = picked.some((p) => p.state === "ready" || p.state === "failed");

  return (
    <Dialog open onOpenChange={onOpenChange} title="Upload Markdown files" description={`Files are written into ${folder.title} and indexed before the upload finishes.`}>
      <div className="space-y-4">
        <Field label="Subfolder" hint={`Optional, relative to ${folder.title}. Missing subfolders are created.`}>
          {(ids) => <Input {...ids} placeholder="notes/imported" value={sub} onChange={(e) => setSub(e.target.value)} />}
        </Field>
        <DropZone onFiles={add} refused={refused} />
        {picked.length > 0 && <PickedList picked={picked} busy={busy} onOverwrite={(p) => void send([p], true)} onRemove={(name) => update(name, null)} />}
        <DialogFooter>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" disabled={!sendable || busy} onClick={() => void uploadAll()}>
            {busy ? "Uploading…" : "Upload"}
          </Button>
        </DialogFooter>
      </div>
      {guard}
    </Dialog>
  );
}

/** "Choose or drop a Markdown file": a file input's label that also takes a drop. */
function DropZone({ onFiles, refused }: { onFiles: (files: FileList | null) => void; refused: readonly string[] }) {
  const inputId = useId();
  const [over, setOver] = useState(false);
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    onFiles(e.dataTransfer.files);
  };
  return (
    <div>
      <label
        htmlFor={inputId}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
        className={clsx(
          "flex cursor-pointer flex-col items-center gap-1 rounded-lg border-2 border-dashed px-4 py-6 text-center transition-colors has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-accent-500",
          over ? "border-accent-500 bg-accent-50 dark:bg-accent-500/10" : "border-zinc-300 hover:border-zinc-400 dark:border-zinc-700 dark:hover:border-zinc-600",
        )}
      >
        <UploadCloud className="size-6 text-zinc-500 dark:text-zinc-400" aria-hidden />
        <span className="text-sm font-medium">Choose or drop a Markdown file</span>
        <span className="text-xs text-zinc-500 dark:text-zinc-400">Several at once are fine: .md, .markdown or .mdx. Pick again to add more.</span>
        <input
          id={inputId}
          type="file"
          multiple
          accept=".md,.markdown,.mdx"
          className="sr-only"
          onChange={(e) => {
            onFiles(e.target.files);
            e.target.value = "";
          }}
        />
      </label>
      {refused.map((name) => (
        <p key={name} role="alert" className="mt-2 text-xs text-red-600 dark:text-red-400">
          {name} is not a Markdown file
        </p>
      ))}
    </div>
  );
}

/** The files to upload, each with its size or what became of it, Overwrite when it exists, and ×. */
function PickedList({ picked, busy, onOverwrite, onRemove }: { picked: readonly Picked[]; busy: boolean; onOverwrite: (p: Picked) => void; onRemove: (name: string) => void }) {
  return (
    <ul aria-label="Files to upload" className="divide-y divide-zinc-100 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
      {picked.map((p) => (
        <li key={p.file.name} className="flex items-center gap-2 px-3 py-2 text-sm">
          <FileText className="size-4 shrink-0 text-zinc-500 dark:text-zinc-400" aria-hidden />
          <div className="min-w-0 flex-1">
            <div className="truncate">{p.file.name}</div>
            {p.state === "exists" ? (
              <div role="alert" className="text-xs text-amber-700 dark:text-amber-300">
                Already exists.
              </div>
            ) : p.state === "failed" ? (
              <div role="alert" className="text-xs text-red-600 dark:text-red-400">
                {p.error}
              </div>
            ) : (
              <div className="text-xs text-zinc-500 dark:text-zinc-400">{p.state === "sending" ? "Uploading…" : size(p.file.size)}</div>
            )}
          </div>
          {p.state === "exists" && (
            <Button size="sm" disabled={busy} onClick={() => onOverwrite(p)}>
              Overwrite
            </Button>
          )}
          <button
            type="button"
            aria-label={`Remove ${p.file.name}`}
            disabled={p.state === "sending"}
            onClick={() => onRemove(p.file.name)}
            className="inline-flex size-7 shrink-0 items-center justify-center rounded text-zinc-500 dark:text-zinc-400 hover:bg-zinc-100 disabled:opacity-50 dark:hover:bg-zinc-800"
          >
            <X className="size-4" aria-hidden />
          </button>
        </li>
      ))}
    </ul>
  );
}
