//! Rename folder: a new name, checked with the server's rule, sent as `PATCH {name}`; the server
//! renames the directory and re-indexes it before it answers. Writable only.
import { useState } from "react";
import { useFolders } from "../../api/hooks";
import { useUpdateFolder } from "../../api/mutations";
import type { Folder } from "../../api/client";
import { Dialog } from "../../components/ui/dialog";
import { FormFooter, onSubmit, useDialogForm } from "../../components/ui/dialogForm";
import { Field, Input } from "../../components/ui/form";
import { folderNameProblem } from "../../lib/folderName";
import { notify } from "../../lib/toast";

export function RenameFolderDialog({ folder, onOpenChange }: { folder: Folder | null; onOpenChange: (open: boolean) => void }) {
  return folder ? <RenameForm key={folder.name} folder={folder} onOpenChange={onOpenChange} /> : null;
}

function RenameForm({ folder, onOpenChange }: { folder: Folder; onOpenChange: (open: boolean) => void }) {
  const folders = useFolders();
  const update = useUpdateFolder();
  const [name, setName] = useState(folder.name);
  const taken = (folders.data?.folders ?? []).map((f) => f.name).filter((n) => n !== folder.name);
  const problem = folderNameProblem(name, taken);
  const same = name === folder.name;
  const form = useDialogForm(update, { dirty: !same && !update.isPending, close: () => onOpenChange(false) });

  const submit = () => {
    if (problem || same || form.busy) return;
    return form.run({ name: folder.name, change: { name } }, ({ folder: renamed }) => {
      notify.ok(`Renamed ${folder.name} to ${renamed.name}`);
      onOpenChange(false);
    });
  };

  return (
    <>
      <Dialog
        open
        onOpenChange={form.onOpenChange}
        title={`Rename ${folder.title}`}
        description={`The ${folder.name} directory is renamed on disk and indexed again. Agents using /mcp/${folder.name} need the new address.`}
      >
        <form onSubmit={onSubmit(submit)} noValidate>
          <Field label="New name" hint="The directory name and the end of the MCP address." error={(!same && problem) || form.error}>
            {(ids) => (
              <Input
                {...ids}
                autoFocus
                onFocus={(e) => e.currentTarget.select()}
                autoComplete="off"
                spellCheck={false}
                value={name}
                onChange={(e) => {
                  setName(e.target.value);
                  form.clearError();
                }}
              />
            )}
          </Field>
          <FormFooter onCancel={() => form.onOpenChange(false)} busy={form.busy} label="Rename" busyLabel="Renaming…" disabled={form.busy || same || !!problem} />
        </form>
      </Dialog>
      {form.guard}
    </>
  );
}
