//! New note: a title (the file name follows it, as in Obsidian) and an optional subfolder;
//! Create writes `# <Title>` there (`POST /api/doc`) and opens it in the editor. A name that is
//! taken says so on the field and offers to open what is there.
import { useState } from "react";
import { useNavigate } from "@tanstack/react-router";
import { ApiError, type Folder } from "../../../api/client";
import { useSaveDoc } from "../../../api/mutations";
import { Button } from "../../../components/ui/button";
import { Dialog } from "../../../components/ui/dialog";
import { FormFooter, onSubmit, useDialogForm } from "../../../components/ui/dialogForm";
import { Field, Input } from "../../../components/ui/form";
import { cleanSubfolder, filePath, noteFileName } from "../../../lib/filename";
import { insidePath } from "../../../lib/paths";
import { messageOf } from "../../../lib/toast";

export interface NewNoteProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  folder: Folder;
  /** The subfolder it starts with (inside the folder; "" for the top). */
  dir: string;
}

const isTaken = (err: unknown) => err instanceof ApiError && err.status === 409;

/** Mounted only while open, so each opening starts from a clean form. */
export function NewNote({ open, onOpenChange, folder, dir }: NewNoteProps) {
  return open ? <NewNoteForm folder={folder} dir={dir} onClose={() => onOpenChange(false)} /> : null;
}

function NewNoteForm({ folder, dir, onClose }: { folder: Folder; dir: string; onClose: () => void }) {
  const navigate = useNavigate();
  const save = useSaveDoc();
  const [title, setTitle] = useState("");
  const [sub, setSub] = useState(dir);
  // A name that is taken (409) shows on the title field, with a way to open what is there.
  const form = useDialogForm(save, {
    dirty: title.trim() !== "" || cleanSubfolder(sub) !== cleanSubfolder(dir),
    close: onClose,
    describe: (err) => (isTaken(err) ? null : messageOf(err)),
  });

  const file = noteFileName(title);
  const where = cleanSubfolder(sub);
  const path = file ? filePath(folder.name, sub, file) : "";
  // Any edit forgets the failure, so the path is still the one that was sent.
  const taken = form.failure && isTaken(form.failure.error) ? path : null;
  const open = (root: string, edit: boolean) =>
    void navigate({ to: "/f/$folder", params: { folder: folder.name }, search: { doc: insidePath(folder.name, root), ...(edit ? { edit: true } : {}) } });

  const submit = () => {
    if (!path || form.busy) return;
    return form.run({ path, text: `# ${title.trim()}\n\n` }, () => {
      onClose();
      open(path, true);
    });
  };

  const edited = (set: (v: string) => void) => (value: string) => {
    set(value);
    form.clearError();
  };

  return (
    <Dialog open onOpenChange={form.onOpenChange} title="New note" description={`A Markdown file in ${folder.title}, opened in the editor once it is created.`}>
      <form onSubmit={onSubmit(submit)} className="space-y-4">
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
        {form.error && (
          <p role="alert" className="text-sm text-red-600 dark:text-red-400">
            {form.error}
          </p>
        )}
        <FormFooter onCancel={onClose} busy={form.busy} label="Create" busyLabel="Creating…" disabled={!path || form.busy} />
      </form>
      {form.guard}
    </Dialog>
  );
}
