//! Edit folder: its title, the MCP switch, and its own search defaults (kept in its
//! `.ragdown.json`; an empty field inherits the server's value, shown as the placeholder). Sends
//! only what changed, `null` for a value taken away. Allowed under read-only: these are settings.
import { useState, type FormEvent } from "react";
import { request, useRefreshAll, useStatus } from "../../api/hooks";
import type { Folder, Schemas } from "../../api/client";
import { Button } from "../../components/ui/button";
import { Dialog, DialogFooter } from "../../components/ui/dialog";
import { Field, Input, Switch } from "../../components/ui/form";
import { messageOf, notify } from "../../lib/toast";
import { mcpDescription } from "./CreateFolderDialog";
import { floorTooLow, unrelatedScore } from "./folders";
import { FormError, HookFields } from "./formParts";
import { useDiscardGuard } from "../../components/ui/discard";
import { diffDraft, hookDraft, inherited, parseHook, type HookKey } from "./settingsForm";

/** Open while `folder` is set; keyed by it, so the form starts from its values each time. */
export function EditFolderDialog({ folder, onOpenChange }: { folder: Folder | null; onOpenChange: (open: boolean) => void }) {
  return folder ? <EditFolderForm key={folder.name} folder={folder} onOpenChange={onOpenChange} /> : null;
}

function EditFolderForm({ folder, onOpenChange }: { folder: Folder; onOpenChange: (open: boolean) => void }) {
  const status = useStatus();
  const refreshAll = useRefreshAll();
  const [title, setTitle] = useState(folder.title);
  const [mcp, setMcp] = useState(folder.mcp);
  const initialHook = hookDraft(folder.hook);
  const [hook, setHook] = useState(initialHook);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const { patch: hookPatch, errors } = diffDraft(initialHook, hook, parseHook);
  const titleChanged = title.trim() !== folder.title;
  const dirty = titleChanged || mcp !== folder.mcp || Object.keys(hookPatch).length > 0;
  const { onOpenChange: guarded, guard } = useDiscardGuard(dirty && !busy, () => onOpenChange(false));

  const server = status.data?.settings.hook;
  const unrelated = unrelatedScore(status.data);
  const minScore = parseHook("min_score", hook.min_score ?? "");
  const effectiveMin = minScore.ok ? (minScore.value ?? server?.min_score) : null;
  const lowFloor = floorTooLow(effectiveMin, unrelated);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (Object.keys(errors).length || busy) return;
    if (!dirty) return onOpenChange(false);
    const body: Schemas["FolderChange"] = {};
    if (titleChanged) body.title = title.trim();
    if (mcp !== folder.mcp) body.mcp = mcp;
    if (Object.keys(hookPatch).length) body.hook = hookPatch as Schemas["FolderHook"];
    setBusy(true);
    setError(null);
    try {
      const { folder: saved } = await request<Schemas["FolderAnswer"]>("PATCH", `/api/folders/${encodeURIComponent(folder.name)}`, { body });
      notify.ok(`Saved ${saved.title}`);
      await refreshAll();
      onOpenChange(false);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open onOpenChange={guarded} title={`Edit ${folder.title}`} description="Kept in the folder's .ragdown.json; a change applies at once." wide>
      <form onSubmit={(e) => void submit(e)} className="space-y-5" noValidate>
        <Field label="Title" hint="How the folder is shown here and to agents. Empty, the name.">
          {(ids) => <Input {...ids} autoFocus value={title} placeholder={folder.name} maxLength={200} onChange={(e) => setTitle(e.target.value)} />}
        </Field>
        <Switch checked={mcp} onCheckedChange={setMcp} label="Serve over MCP" description={mcpDescription(mcp, folder.name)} />
        <fieldset className="space-y-3">
          <legend className="text-sm font-semibold">Search defaults</legend>
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            What ragdown_context injects for this folder when the hook passes no arguments of its own. An empty field uses the server's value.
          </p>
          <HookFields
            draft={hook}
            errors={errors}
            onChange={(key: HookKey, v) => setHook((h) => ({ ...h, [key]: v }))}
            placeholder={(key) => inherited("Server", server?.[key])}
            minScoreWarning={lowFloor ? <span className="text-amber-700 dark:text-amber-300">At or below {unrelated}, what unrelated prompts reach with this embedder: agents get documents that do not answer.</span> : undefined}
          />
        </fieldset>
        <FormError error={error} />
        <DialogFooter>
          <Button onClick={() => guarded(false)}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={busy || Object.keys(errors).length > 0}>
            {busy ? "Saving…" : "Save"}
          </Button>
        </DialogFooter>
      </form>
      {guard}
    </Dialog>
  );
}
