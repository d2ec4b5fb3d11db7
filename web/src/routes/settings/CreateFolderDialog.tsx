//! Create folder: a name (checked with the server's rule as it is typed, and the server's own
//! refusal shown if it still says no), an optional title, and whether agents reach it over MCP.
//! Used by Settings, the sidebar's "+" and the empty Home.
import { useState, type FormEvent } from "react";
import { request, useFolders, useRefreshAll } from "../../api/hooks";
import { ApiError, type Schemas } from "../../api/client";
import { Button } from "../../components/ui/button";
import { Dialog, DialogFooter } from "../../components/ui/dialog";
import { Field, Input, Switch } from "../../components/ui/form";
import { messageOf, notify } from "../../lib/toast";
import { folderNameProblem } from "./folders";
import { useDiscardGuard } from "../../components/ui/discard";

export function mcpDescription(on: boolean, name: string): string {
  return on ? `Agents reach it at /mcp/${name || "<name>"}.` : "Off, the folder is human-only: searchable here, but agents never see it.";
}

export function CreateFolderDialog({ open, onOpenChange, onCreated }: { open: boolean; onOpenChange: (open: boolean) => void; onCreated: (name: string) => void }) {
  const folders = useFolders();
  const refreshAll = useRefreshAll();
  const [name, setName] = useState("");
  const [title, setTitle] = useState("");
  const [mcp, setMcp] = useState(false);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);

  const taken = folders.data?.folders.map((f) => f.name) ?? [];
  const problem = folderNameProblem(name, taken);
  // An empty name is only an error once the user tries to create; a bad one shows as typed.
  const shown = name === "" && !tried ? null : problem;

  const reset = () => {
    setName("");
    setTitle("");
    setMcp(false);
    setTried(false);
    setRefusal(null);
  };
  const close = (next: boolean) => {
    if (!next) reset();
    onOpenChange(next);
  };
  const { onOpenChange: guarded, guard } = useDiscardGuard(!busy && (name !== "" || title !== ""), () => close(false));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (problem || busy) return;
    setBusy(true);
    setRefusal(null);
    try {
      const body: Schemas["NewFolder"] = { name, title: title.trim() || null, mcp };
      const { folder } = await request<Schemas["FolderAnswer"]>("POST", "/api/folders", { body });
      notify.ok(`Created ${folder.title}`);
      await refreshAll();
      close(false);
      onCreated(folder.name);
    } catch (err) {
      // 400 (bad name) and 409 (taken) are the server's word on the name: show it there.
      setRefusal(err instanceof ApiError ? err.message : messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Dialog open={open} onOpenChange={guarded} title="Create folder" description="A top-level directory of the docs directory, with its own search and MCP address.">
        <form onSubmit={(e) => void submit(e)} className="space-y-4" noValidate>
          <Field label="Name" hint="The directory name and the end of the MCP address." error={shown ?? refusal}>
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
                  setRefusal(null);
                }}
                placeholder="work"
              />
            )}
          </Field>
          <Field label="Title" hint="Optional. How the folder is shown here and to agents; empty, the name.">
            {(ids) => <Input {...ids} value={title} onChange={(e) => setTitle(e.target.value)} placeholder="Work notes" maxLength={200} />}
          </Field>
          <Switch checked={mcp} onCheckedChange={setMcp} label="Serve over MCP" description={mcpDescription(mcp, name)} />
          <DialogFooter>
            <Button onClick={() => guarded(false)}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={busy || (tried && !!problem)}>
              {busy ? "Creating…" : "Create folder"}
            </Button>
          </DialogFooter>
        </form>
      </Dialog>
      {guard}
    </>
  );
}
