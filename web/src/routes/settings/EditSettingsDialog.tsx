//! Edit settings: the server settings saved over their variables (`PATCH /api/settings` with only
//! what changed; a cleared field sends `null`, back to its variable). A new embedder is loaded
//! before anything is saved and then rebuilds the index; a reader answers 409 and an embedder that
//! cannot load 400, shown here.
import { useState } from "react";
import { useUpdateSettings } from "../../api/mutations";
import type { Schemas, Status } from "../../api/client";
import { Dialog } from "../../components/ui/dialog";
import { FormError, FormFooter, onSubmit, useDialogForm } from "../../components/ui/dialogForm";
import { Field, inputClass } from "../../components/ui/form";
import { notify } from "../../lib/toast";
import { floorTooLow, unrelatedScore } from "./folders";
import { FlagSelect, HookFields, NumberField } from "./formParts";
import { Note } from "./parts";
import { ENV, asText, diffDraft, hookDraft, hookEnv, inherited, parseFlag, parseHook, parseNumber, type Draft, type HookKey, type Parsed } from "./settingsForm";

const FLAGS = [
  { key: "watch", label: "Watch for changes", hint: "Off, the index syncs at start and on ragdown_reindex only." },
  { key: "root_mcp", label: "Every folder at /mcp", hint: "Bare /mcp serves every folder with MCP on as one server." },
  { key: "query_log", label: "Query log", hint: "Logs searches, hook calls and reads for the Usage tab." },
] as const;

const COUNTS = [
  { key: "text_limit", label: "Characters per search hit", hint: "For the search tools' text output." },
  { key: "max_per_document", label: "Sections per document", hint: "0 is no cap." },
  { key: "follow_links", label: "Follow links", hint: "How many of a search's best hits have their wikilinks followed; 0 is off." },
] as const;

function parseServer(key: string, text: string): Parsed<string | number | boolean> {
  if (key === "embedder") return { ok: true, value: text === "" ? null : text };
  if (FLAGS.some((f) => f.key === key)) return parseFlag(text);
  return parseNumber(text, { integer: true, min: 0, max: 4_294_967_295 });
}

export function EditSettingsDialog({ status, onOpenChange }: { status: Status; onOpenChange: (open: boolean) => void }) {
  const update = useUpdateSettings();
  const { saved, env, embedders } = status.settings;
  const [initial] = useState<{ values: Draft; hook: Draft }>(() => ({
    values: {
      embedder: asText(saved.embedder),
      watch: asText(saved.watch),
      root_mcp: asText(saved.root_mcp),
      query_log: asText(saved.query_log),
      text_limit: asText(saved.text_limit),
      max_per_document: asText(saved.max_per_document),
      follow_links: asText(saved.follow_links),
    },
    hook: hookDraft(saved.hook),
  }));
  const [values, setValues] = useState(initial.values);
  const [hook, setHook] = useState(initial.hook);

  const top = diffDraft(initial.values, values, parseServer);
  const hookDiff = diffDraft(initial.hook, hook, parseHook);
  const errors = { ...top.errors, ...hookDiff.errors };
  const dirty = Object.keys(top.patch).length + Object.keys(hookDiff.patch).length > 0;
  const form = useDialogForm(update, { dirty: dirty && !update.isPending, close: () => onOpenChange(false) });
  const set = (key: string) => (v: string) => setValues((d) => ({ ...d, [key]: v }));

  // The embedder and floor the form would put in effect, for the low-floor flag.
  const embedder = values.embedder || env.embedder || "granite-small";
  const floors = embedders[embedder];
  const typedFloor = parseHook("min_score", hook.min_score ?? "");
  const floor = typedFloor.ok ? (typedFloor.value ?? env.hook.min_score ?? floors?.min_score) : null;
  const unrelated = embedder === status.settings.embedder ? unrelatedScore(status) : (floors?.unrelated_score ?? null);
  const lowFloor = floorTooLow(floor, unrelated);
  const newEmbedder = embedder !== (status.settings.embedder ?? "granite-small");

  const submit = () => {
    if (Object.keys(errors).length || form.busy) return;
    if (!dirty) return onOpenChange(false);
    const patch = { ...top.patch } as Schemas["SettingsPatch"];
    if (Object.keys(hookDiff.patch).length) patch.hook = hookDiff.patch as Schemas["FolderHook"];
    return form.run(patch, () => {
      notify.ok(newEmbedder ? `Saved: the index is being rebuilt with ${embedder}` : "Saved the server settings");
      onOpenChange(false);
    });
  };

  const placeholder = (key: HookKey) => {
    if (key === "min_score" && env.hook.min_score == null) return inherited(`${embedder}'s`, floors?.min_score);
    // Unset, the ratio follows the embedder: what is in effect is its value unless one is saved.
    if (key === "min_ratio" && env.hook.min_ratio == null) return saved.hook?.min_ratio == null ? inherited(`${embedder}'s`, status.settings.hook.min_ratio) : "The embedder's";
    return inherited(hookEnv(key), env.hook[key]);
  };

  return (
    <>
      <Dialog open onOpenChange={form.onOpenChange} title="Edit settings" description="Saved in .ragdown-server.json in the docs directory, over the variables, and applied at once. An empty field goes back to its variable." wide>
        <form onSubmit={onSubmit(submit)} className="space-y-5" noValidate>
          <Field label="Embedder" hint="A new one rebuilds the index, and wants its own hook minimum score.">
            {(ids) => (
              <select {...ids} autoFocus className={inputClass} value={values.embedder} onChange={(e) => set("embedder")(e.target.value)}>
                <option value="">From {ENV.embedder} ({env.embedder ?? "granite-small"})</option>
                {Object.keys(embedders).map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {newEmbedder && <Note tone="info">Saving loads {embedder} first, then rebuilds the whole index with it; search answers from the old index until then.</Note>}
          <div className="grid gap-4 sm:grid-cols-3">
            {FLAGS.map((f) => (
              <FlagSelect key={f.key} label={f.label} hint={f.hint} env={ENV[f.key]} envValue={env[f.key]} value={values[f.key] ?? ""} onChange={set(f.key)} />
            ))}
          </div>
          <div className="grid gap-4 sm:grid-cols-2">
            {COUNTS.map((f) => (
              <NumberField key={f.key} label={f.label} hint={f.hint} value={values[f.key] ?? ""} onChange={set(f.key)} placeholder={inherited(ENV[f.key], env[f.key])} error={errors[f.key]} step="1" />
            ))}
          </div>
          <fieldset className="space-y-3">
            <legend className="text-sm font-semibold">Search defaults</legend>
            <p className="text-xs text-zinc-600 dark:text-zinc-400">What ragdown_context injects before each prompt when the hook passes no arguments of its own.</p>
            <HookFields
              draft={hook}
              errors={hookDiff.errors}
              onChange={(key, v) => setHook((h) => ({ ...h, [key]: v }))}
              placeholder={placeholder}
              minScoreWarning={lowFloor ? <span className="text-amber-700 dark:text-amber-300">At or below {unrelated}, what unrelated prompts reach with {embedder}.</span> : undefined}
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
