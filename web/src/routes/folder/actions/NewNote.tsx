//! New note: a title (the file name follows it, as in Obsidian) and an optional subfolder;
//! Create writes `# <Title>` there (`POST /api/doc`) and opens it in the editor. A name that is
//! taken says so on the field and offers to open what is there.
import { useState, type FormEvent } from "react";
import { useNavigate } from "@tanstack/react-router";
import { ApiError, type Folder, type Saved } from "../../../api/client";
import { request, useRefreshAll } from "../../../api/hooks";
import { Button } from "../../../components/ui/button";
import { Dialog, DialogFooter } from "../../../components/ui/dialog";
import { Field, Input } from "../../../components/ui/form";
import { cleanSubfolder, filePath, noteFileName } from "../../../lib/filename";
import { messageOf } from "../../../lib/toast";
import { insidePath } from "../list/tree";
import { useDiscardGuard } from "../../../components/ui/discard";

export interface NewNoteProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  folder: Folder;
  /** The subfolder it starts with (inside the folder; "" for the top). */
  dir: string;
}

/** Mounted only while open, so each opening starts from a clean form. */
export function NewNote({ open, onOpenChange, folder, dir }: NewNoteProps) {
  return open ? <NewNoteForm folder={folder} dir={dir} onClose={() => onOpenChange(false)} /> : null;
}

function NewNoteForm({ folder, dir, onClose }: { folder: Folder; dir: string; onClose: () => void }) {
  const navigate = useNavigate();
  const refresh = useRefreshAll();
  const [title, setTitle] = useState("");
  const [sub, setSub] = useState(dir);
  const [busy, setBusy] = useState(false);
  const [taken, setTaken] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { onOpenChange, guard } = useDiscardGuard(title.trim() !== "" || cleanSubfolder(sub) !== cleanSubfolder(dir), onClose);

  const file = noteFileName(title);
  const where = cleanSubfolder(sub);
  const path = file ? filePath(folder.name, sub, file) : "";
  const open = (root: string, edit: boolean) =>
    void navigate({ to: "/f/$folder", params: { folder: folder.name }, search: { doc: insidePath(folder.name, root), ...(edit ? { edit: true } : {}) } });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!path || busy) return;
    setBusy(true);
    setError(null);
    setTaken(null);
    try {
      await request<Saved>("POST", "/api/doc", { body: { path, text: `# ${title.trim()}\n\n` } });
      onClose();
      open(path, true);
      void refresh();
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) setTaken(path);
      else setError(messageOf(err));
      setBusy(false);
    }
  };

  const edited = (set: (v: string) => void) => (value: string) => {
    set(value);
    setTaken(null);
    setError(null);
  };

  return (
    <Dialog open onOpenChange={onOpenChange} title="New note" description={`A Markdown file in ${folder.title}, opened in the editor once it is created.`}>
      <form onSubmit={(e) => void submit(e)} className="space-y-4">
        <Field
          label="Title"
          hint={file ? <>Saved as <span className="font-mono">{where ? `${where}/${file}` : file}</span></> : title.trim() ? "The title needs a character a file name can keep." : undefined}
          error={
            taken && (
              <span className="flex items-center gap-2">
                Already exists.
                <Button
                  size="sm"
                  onClick={() => {
                    onClose();
                    open(taken, false);
                  }}
                >
                  Open it
                </Button>
              </span>
            )
          }
        >
          {(ids) => <Input {...ids} autoFocus required placeholder="Kafka retention" value={title} onChange={(e) => edited(setTitle)(e.target.value)} />}
        </Field>
        <Field label="Subfolder" hint={`Optional, relative to ${folder.title}. Missing subfolders are created.`}>
          {(ids) => <Input {...ids} placeholder="notes/ideas" value={sub} onChange={(e) => edited(setSub)(e.target.value)} />}
        </Field>
        {error && (
          <p role="alert" className="text-sm text-red-600 dark:text-red-400">
            {error}
          </p>
        )}
        <DialogFooter>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={!path || busy}>
            {busy ? "Creating…" : "Create"}
          </Button>
        </DialogFooter>
      </form>
      {guard}
    </Dialog>
  );
}
