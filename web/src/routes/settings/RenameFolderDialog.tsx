//! Rename folder: a new name, checked with the server's rule, sent as `PATCH {name}`; the server
//! renames the directory and re-indexes it before it answers. Writable only.
import { useState, type FormEvent } from "react";
import { request, useFolders, useRefreshAll } from "../../api/hooks";
import type { Folder, Schemas } from "../../api/client";
import { Button } from "../../components/ui/button";
import { Dialog, DialogFooter } from "../../components/ui/dialog";
import { Field, Input } from "../../components/ui/form";
import { messageOf, notify } from "../../lib/toast";
import { folderNameProblem } from "./folders";
import { useDiscardGuard } from "../../components/ui/discard";

export function RenameFolderDialog({ folder, onOpenChange }: { folder: Folder | null; onOpenChange: (open: boolean) => void }) {
  return folder ? <RenameForm key={folder.name} folder={folder} onOpenChange={onOpenChange} /> : null;
}

function RenameForm({ folder, onOpenChange }: { folder: Folder; onOpenChange: (open: boolean) => void }) {
  const folders = useFolders();
  const refreshAll = useRefreshAll();
  const [name, setName] = useState(folder.name);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const taken = (folders.data?.folders ?? []).map((f) => f.name).filter((n) => n !== folder.name);
  const problem = folderNameProblem(name, taken);
  const same = name === folder.name;
  const { onOpenChange: guarded, guard } = useDiscardGuard(!same && !busy, () => onOpenChange(false));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (problem || same || busy) return;
    setBusy(true);
    setRefusal(null);
    try {
      const { folder: renamed } = await request<Schemas["FolderAnswer"]>("PATCH", `/api/folders/${encodeURIComponent(folder.name)}`, { body: { name } });
      notify.ok(`Renamed ${folder.name} to ${renamed.name}`);
      await refreshAll();
      onOpenChange(false);
    } catch (err) {
      setRefusal(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      onOpenChange={guarded}
      title={`Rename ${folder.title}`}
      description={`The ${folder.name} directory is renamed on disk and indexed again. Agents using /mcp/${folder.name} need the new address.`}
    >
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Field label="New name" hint="The directory name and the end of the MCP address." error={(!same && problem) || refusal}>
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
                setRefusal(null);
              }}
            />
          )}
        </Field>
        <DialogFooter>
          <Button onClick={() => guarded(false)}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={busy || same || !!problem}>
            {busy ? "Renaming…" : "Rename"}
          </Button>
        </DialogFooter>
      </form>
      {guard}
    </Dialog>
  );
}
