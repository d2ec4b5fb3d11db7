//! Edit folder: its title, the MCP switch, and its own search defaults (kept in its
//! `.ragdown.json`; an empty field inherits the server's value, shown as the placeholder). Sends
//! only what changed, `null` for a value taken away. Allowed under read-only: these are settings.
import { useState } from "react";
import { useStatus } from "../../api/hooks";
import { useUpdateFolder } from "../../api/mutations";
import type { Folder, Schemas } from "../../api/client";
import { Dialog } from "../../components/ui/dialog";
import { FormError, FormFooter, onSubmit, useDialogForm } from "../../components/ui/dialogForm";
import { Field, Input, Switch } from "../../components/ui/form";
import { mcpDescription } from "../../lib/folderName";
import { notify } from "../../lib/toast";
import { floorTooLow, unrelatedScore } from "./folders";
import { HookFields } from "./formParts";
import { diffDraft, hookDraft, inherited, parseHook, type HookKey } from "./settingsForm";

/** Open while `folder` is set; keyed by it, so the form starts from its values each time. */
export function EditFolderDialog({ folder, onOpenChange }: { folder: Folder | null; onOpenChange: (open: boolean) => void }) {
  return folder ? <EditFolderForm key={folder.name} folder={folder} onOpenChange={onOpenChange} /> : null;
}

function EditFolderForm({ folder, onOpenChange }: { folder: Folder; onOpenChange: (open: boolean) => void }) {
  const status = useStatus();
  const update = useUpdateFolder();
  const [title, setTitle] = useState(folder.title);
  const [mcp, setMcp] = useState(folder.mcp);
  const initialHook = hookDraft(folder.hook);
  const [hook, setHook] = useState(initialHook);

  const { patch: hookPatch, errors } = diffDraft(initialHook, hook, parseHook);
  const titleChanged = title.trim() !== folder.title;
  const dirty = titleChanged || mcp !== folder.mcp || Object.keys(hookPatch).length > 0;
  const form = useDialogForm(update, { dirty: dirty && !update.isPending, close: () => onOpenChange(false) });

  const server = status.data?.settings.hook;
  const unrelated = unrelatedScore(status.data);
  const minScore = parseHook("min_score", hook.min_score ?? "");
  const effectiveMin = minScore.ok ? (minScore.value ?? server?.min_score) : null;
  const lowFloor = floorTooLow(effectiveMin, unrelated);

  const submit = () => {
    if (Object.keys(errors).length || form.busy) return;
    if (!dirty) return onOpenChange(false);
    const change: Schemas["FolderChange"] = {};
    if (titleChanged) change.title = title.trim();
    if (mcp !== folder.mcp) change.mcp = mcp;
    if (Object.keys(hookPatch).length) change.hook = hookPatch as Schemas["FolderHook"];
    return form.run({ name: folder.name, change }, ({ folder: saved }) => {
      notify.ok(`Saved ${saved.title}`);
      onOpenChange(false);
    });
  };

  return (
    <>
      <Dialog open onOpenChange={form.onOpenChange} title={`Edit ${folder.title}`} description="Kept in the folder's .ragdown.json; a change applies at once." wide>
        <form onSubmit={onSubmit(submit)} className="space-y-5" noValidate>
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
          <FormError error={form.error} />
          <FormFooter onCancel={() => form.onOpenChange(false)} busy={form.busy} label="Save" busyLabel="Saving…" disabled={form.busy || Object.keys(errors).length > 0} />
        </form>
      </Dialog>
      {form.guard}
    </>
  );
}
