//! Create folder: a name (checked with the server's rule as it is typed, and the server's own
//! refusal shown if it still says no), an optional title, and whether agents reach it over MCP.
//! Used by Settings, the sidebar's "+" and the empty Home.
import { useState } from "react";
import { useFolders } from "../api/hooks";
import { useCreateFolder } from "../api/mutations";
import { Dialog } from "./ui/dialog";
import { FormFooter, onSubmit, useDialogForm } from "./ui/dialogForm";
import { Field, Input, Switch } from "./ui/form";
import { folderNameProblem, mcpDescription } from "../lib/folderName";
import { notify } from "../lib/toast";

export function CreateFolderDialog({ open, onOpenChange, onCreated }: { open: boolean; onOpenChange: (open: boolean) => void; onCreated: (name: string) => void }) {
  const folders = useFolders();
  const create = useCreateFolder();
  const [name, setName] = useState("");
  const [title, setTitle] = useState("");
  const [mcp, setMcp] = useState(false);
  const [tried, setTried] = useState(false);

  const taken = folders.data?.folders.map((f) => f.name) ?? [];
  const problem = folderNameProblem(name, taken);
  // An empty name is only an error once the user tries to create; a bad one shows as typed.
  const shown = name === "" && !tried ? null : problem;

  const close = () => {
    setName("");
    setTitle("");
    setMcp(false);
    setTried(false);
    onOpenChange(false);
  };
  // 400 (bad name) and 409 (taken) are the server's word on the name: shown on the field.
  const form = useDialogForm(create, { dirty: !create.isPending && (name !== "" || title !== ""), close });

  const submit = () => {
    setTried(true);
    if (problem || form.busy) return;
    return form.run({ name, title: title.trim() || null, mcp }, ({ folder }) => {
      notify.ok(`Created ${folder.title}`);
      close();
      onCreated(folder.name);
    });
  };

  return (
    <>
      <Dialog open={open} onOpenChange={form.onOpenChange} title="Create folder" description="A top-level directory of the docs directory, with its own search and MCP address.">
        <form onSubmit={onSubmit(submit)} className="space-y-4" noValidate>
          <Field label="Name" hint="The directory name and the end of the MCP address." error={shown ?? form.error}>
            {(ids) => (
              <Input
                {...ids}
                autoFocus
                required
                autoComplete="off"
                spellCheck={false}
                value={name}
                onChange={(e) => {
                  setName(e.target.value);
                  form.clearError();
                }}
                placeholder="work"
              />
            )}
          </Field>
          <Field label="Title" hint="Optional. How the folder is shown here and to agents; empty, the name.">
            {(ids) => <Input {...ids} value={title} onChange={(e) => setTitle(e.target.value)} placeholder="Work notes" maxLength={200} />}
          </Field>
          <Switch checked={mcp} onCheckedChange={setMcp} label="Serve over MCP" description={mcpDescription(mcp, name)} />
          <FormFooter onCancel={() => form.onOpenChange(false)} busy={form.busy} label="Create folder" busyLabel="Creating…" disabled={form.busy || (tried && !!problem)} />
        </form>
      </Dialog>
      {form.guard}
    </>
  );
}
