//! Delete folder: says what goes (the directory, its files, subfolders and attachments, and the
//! MCP address), and is enabled only once the folder's name is typed. Writable only.
import { useState } from "react";
import { useDeleteFolder } from "../../api/mutations";
import type { Folder } from "../../api/client";
import { Dialog } from "../../components/ui/dialog";
import { FormError, FormFooter, onSubmit, useDialogForm } from "../../components/ui/dialogForm";
import { Field, Input } from "../../components/ui/form";
import { plural } from "../../lib/time";
import { notify } from "../../lib/toast";

export function DeleteFolderDialog({ folder, onOpenChange }: { folder: Folder | null; onOpenChange: (open: boolean) => void }) {
  return folder ? <DeleteForm key={folder.name} folder={folder} onOpenChange={onOpenChange} /> : null;
}

function DeleteForm({ folder, onOpenChange }: { folder: Folder; onOpenChange: (open: boolean) => void }) {
  const remove = useDeleteFolder();
  const [typed, setTyped] = useState("");
  const confirmed = typed === folder.name;
  // Typing the name is no work to lose: nothing asks before closing, but nothing closes while it deletes.
  const form = useDialogForm(remove, { dirty: false, close: () => onOpenChange(false) });

  const submit = () => {
    if (!confirmed || form.busy) return;
    return form.run(folder.name, ({ name }) => {
      notify.ok(`Deleted ${name}`);
      onOpenChange(false);
    });
  };

  return (
    <Dialog
      open
      onOpenChange={(open) => !form.busy && onOpenChange(open)}
      title={`Delete ${folder.title}?`}
      description={`The ${folder.name} directory is deleted from disk with its ${plural(folder.files, "file")}, subfolders and attachments, and agents using its MCP address stop reaching it.`}
    >
      <form onSubmit={onSubmit(submit)} noValidate>
        <Field label={`Type ${folder.name} to confirm`}>
          {(ids) => <Input {...ids} autoFocus autoComplete="off" spellCheck={false} value={typed} onChange={(e) => setTyped(e.target.value)} />}
        </Field>
        <FormError error={form.error} />
        <FormFooter onCancel={() => onOpenChange(false)} busy={form.busy} label="Delete" busyLabel="Deleting…" variant="danger" disabled={!confirmed || form.busy} />
      </form>
    </Dialog>
  );
}
