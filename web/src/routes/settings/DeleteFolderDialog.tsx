//! Delete folder: says what goes (the directory, its files, subfolders and attachments, and the
//! MCP address), and is enabled only once the folder's name is typed. Writable only.
import { useState, type FormEvent } from "react";
import { request, useRefreshAll } from "../../api/hooks";
import type { Folder, Schemas } from "../../api/client";
import { Button } from "../../components/ui/button";
import { Dialog, DialogFooter } from "../../components/ui/dialog";
import { Field, Input } from "../../components/ui/form";
import { plural } from "../../lib/time";
import { messageOf, notify } from "../../lib/toast";
import { FormError } from "./formParts";

export function DeleteFolderDialog({ folder, onOpenChange }: { folder: Folder | null; onOpenChange: (open: boolean) => void }) {
  return folder ? <DeleteForm key={folder.name} folder={folder} onOpenChange={onOpenChange} /> : null;
}

function DeleteForm({ folder, onOpenChange }: { folder: Folder; onOpenChange: (open: boolean) => void }) {
  const refreshAll = useRefreshAll();
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirmed = typed === folder.name;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!confirmed || busy) return;
    setBusy(true);
    setError(null);
    try {
      const { name } = await request<Schemas["FolderDeleted"]>("DELETE", `/api/folders/${encodeURIComponent(folder.name)}`, { query: { confirm: folder.name } });
      notify.ok(`Deleted ${name}`);
      // The deleted folder's own queries would only answer 404 now: drop rather than refetch them.
      await refreshAll((key) => key[0] === "docs" && key[1] === folder.name);
      onOpenChange(false);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      onOpenChange={(open) => !busy && onOpenChange(open)}
      title={`Delete ${folder.title}?`}
      description={`The ${folder.name} directory is deleted from disk with its ${plural(folder.files, "file")}, subfolders and attachments, and agents using its MCP address stop reaching it.`}
    >
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Field label={`Type ${folder.name} to confirm`}>
          {(ids) => <Input {...ids} autoFocus autoComplete="off" spellCheck={false} value={typed} onChange={(e) => setTyped(e.target.value)} />}
        </Field>
        <FormError error={error} />
        <DialogFooter>
          <Button onClick={() => onOpenChange(false)}>Cancel</Button>
          <Button type="submit" variant="danger" disabled={!confirmed || busy}>
            {busy ? "Deleting…" : "Delete"}
          </Button>
        </DialogFooter>
      </form>
    </Dialog>
  );
}
