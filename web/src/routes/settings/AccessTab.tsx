//! Settings → Access: the scoped tokens agents use instead of the owner's token, each opening some
//! folders (or one subfolder) to read, or to read and write, until it expires or is revoked. A
//! new token's secret is shown once, with a copy button; the server keeps only its hash. Below
//! them, the apps connected with OAuth (`GrantsSection`).
import { useState } from "react";
import { KeyRound, Plus, Trash2 } from "lucide-react";
import { useFolders } from "../../api/hooks";
import { useCreateToken, useRevokeToken, useTokens, type CreatedToken, type TokenView } from "../../api/tokens";
import { Button, IconButton } from "../../components/ui/button";
import { Confirm, Dialog, DialogFooter } from "../../components/ui/dialog";
import { FormError, FormFooter, onSubmit, useDialogForm } from "../../components/ui/dialogForm";
import { Field, Input, inputClass } from "../../components/ui/form";
import { Badge, Empty, ErrorCard, Skeletons } from "../../components/ui/states";
import { messageOf, notify } from "../../lib/toast";
import { EXPIRIES, claudeLine, expiresMs, expiryLabel, lastUsedLabel, levelLabel, scopeOf, type Level } from "./access";
import { GrantsSection } from "./GrantsSection";
import { CopyBlock, ListTable, Note, type Column } from "./parts";

const TOKEN_COLUMNS: readonly Column[] = [{ label: "Token" }, { label: "Expires", hideBelow: "sm" }, { label: "Last used", hideBelow: "md" }, { label: "Actions", actions: true }];

export function AccessTab() {
  const tokens = useTokens();
  const [creating, setCreating] = useState(false);
  const [made, setMade] = useState<CreatedToken | null>(null);
  const [revoking, setRevoking] = useState<TokenView | null>(null);
  const list = tokens.data?.tokens ?? [];

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-start gap-3">
        <p className="min-w-0 flex-1 text-sm text-zinc-600 dark:text-zinc-400">
          Tokens for agents: each opens only the folders it names, to read or to read and write, at their MCP addresses and in the API. This browser keeps using the owner&apos;s token.
        </p>
        <Button variant="primary" onClick={() => setCreating(true)}>
          <Plus className="size-4" aria-hidden /> New token
        </Button>
      </div>

      {tokens.isPending ? (
        <Skeletons rows={3} label="Loading tokens" />
      ) : tokens.isError ? (
        <ErrorCard error={tokens.error} onRetry={() => void tokens.refetch()} />
      ) : list.length === 0 ? (
        <Empty title="No tokens yet">Make one for each agent, with only the folders it needs.</Empty>
      ) : (
        <ListTable columns={TOKEN_COLUMNS}>
          {list.map((t) => (
            <TokenRow key={t.id} token={t} onRevoke={() => setRevoking(t)} />
          ))}
        </ListTable>
      )}
      {tokens.data && (
        <Note tone="info">
          Kept as hashes in <code className="font-mono text-xs">{tokens.data.file}</code> (RAGDOWN_ACCESS_FILE), never with the tokens themselves.
        </Note>
      )}
      <GrantsSection />

      {creating && <NewTokenDialog onOpenChange={setCreating} onMade={setMade} />}
      {made && <SecretDialog made={made} onClose={() => setMade(null)} />}
      <RevokeConfirm token={revoking} onClose={() => setRevoking(null)} />
    </div>
  );
}

function TokenRow({ token: t, onRevoke }: { token: TokenView; onRevoke: () => void }) {
  return (
    <tr className="align-top">
      <td className="px-4 py-3">
        <div className="flex flex-wrap items-center gap-2">
          <span className="font-medium">{t.name}</span>
          <Badge tone={t.access === "write" ? "amber" : "accent"}>{levelLabel(t.access)}</Badge>
          {t.expired && <Badge tone="red">Expired</Badge>}
        </div>
        <div className="mt-0.5 font-mono text-xs break-all text-zinc-500 dark:text-zinc-400">{t.scope.join(", ")}</div>
      </td>
      <td className="hidden px-4 py-3 whitespace-nowrap text-zinc-700 sm:table-cell dark:text-zinc-300">{expiryLabel(t)}</td>
      <td className="hidden px-4 py-3 whitespace-nowrap text-zinc-700 md:table-cell dark:text-zinc-300">{lastUsedLabel(t.last_used_ms)}</td>
      <td className="px-2 py-2">
        <div className="flex justify-end">
          <IconButton label={`Revoke ${t.name}`} onClick={onRevoke} className="hover:bg-red-50! hover:text-red-700! dark:hover:bg-red-950/40! dark:hover:text-red-300!">
            <Trash2 aria-hidden />
          </IconButton>
        </div>
      </td>
    </tr>
  );
}

function NewTokenDialog({ onOpenChange, onMade }: { onOpenChange: (open: boolean) => void; onMade: (made: CreatedToken) => void }) {
  const create = useCreateToken();
  const folders = useFolders();
  const [name, setName] = useState("");
  const [ticked, setTicked] = useState<string[]>([]);
  const [subfolder, setSubfolder] = useState("");
  const [level, setLevel] = useState<Level>("read");
  const [expiry, setExpiry] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const dirty = name !== "" || ticked.length > 0 || subfolder !== "";
  const form = useDialogForm(create, { dirty, close: () => onOpenChange(false) });

  const tick = (folder: string, on: boolean) => setTicked((was) => (on ? [...was, folder] : was.filter((f) => f !== folder)));
  const submit = () => {
    if (form.busy) return;
    if (!name.trim()) return setProblem("Name the token, e.g. after the agent that uses it.");
    const scoped = scopeOf(ticked, subfolder);
    if ("error" in scoped) return setProblem(scoped.error);
    setProblem(null);
    const body = { name: name.trim(), scope: scoped.scope, access: level, expires_ms: expiresMs(expiry) ?? null };
    return form.run(body, (made) => {
      onOpenChange(false);
      onMade(made);
    });
  };

  return (
    <Dialog open onOpenChange={(open) => !form.busy && form.onOpenChange(open)} title="New token" description="An agent with this token reaches only these folders, and writes only with Read + write.">
      <form onSubmit={onSubmit(submit)} noValidate className="space-y-4">
        <Field label="Name" hint="Which agent uses it, so you know what to revoke.">
          {(ids) => <Input {...ids} autoFocus autoComplete="off" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <fieldset className="space-y-1.5">
          <legend className="text-sm font-medium">Folders</legend>
          {folders.isError && <p className="text-xs text-red-600 dark:text-red-400">{messageOf(folders.error)}</p>}
          <div className="max-h-40 space-y-1 overflow-y-auto">
            {(folders.data?.folders ?? []).map((f) => (
              <label key={f.name} className="flex items-center gap-2 text-sm">
                <input type="checkbox" checked={ticked.includes(f.name)} onChange={(e) => tick(f.name, e.target.checked)} />
                <span>{f.title}</span>
                <span className="font-mono text-xs text-zinc-500 dark:text-zinc-400">{f.name}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <Field label="Only this subfolder (optional)" hint="A path inside the one folder ticked, like projects/ragdown; the agent then uses /mcp/<folder>/<subfolder>.">
          {(ids) => <Input {...ids} autoComplete="off" spellCheck={false} value={subfolder} onChange={(e) => setSubfolder(e.target.value)} />}
        </Field>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Access">
            {(ids) => (
              <select {...ids} className={inputClass} value={level} onChange={(e) => setLevel(e.target.value === "write" ? "write" : "read")}>
                <option value="read">{levelLabel("read")}</option>
                <option value="write">{levelLabel("write")}</option>
              </select>
            )}
          </Field>
          <Field label="Expires">
            {(ids) => (
              <select {...ids} className={inputClass} value={expiry} onChange={(e) => setExpiry(e.target.value)}>
                {EXPIRIES.map((x) => (
                  <option key={x.value} value={x.value}>
                    {x.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <FormError error={problem ?? form.error} />
        <FormFooter onCancel={() => form.onOpenChange(false)} busy={form.busy} label="Make token" busyLabel="Making…" disabled={form.busy} />
      </form>
      {form.guard}
    </Dialog>
  );
}

function SecretDialog({ made, onClose }: { made: CreatedToken; onClose: () => void }) {
  const first = made.token.scope[0] ?? "";
  return (
    <Dialog open onOpenChange={(open) => !open && onClose()} title={`Token for ${made.token.name}`} description="Copy it now: it will not be shown again. The server keeps only its hash." wide>
      <div className="space-y-4">
        <CopyBlock label="Token" text={made.secret} />
        <CopyBlock label="Claude Code command" text={claudeLine(window.location.origin, first, made.secret)} />
        <Note tone="info">
          <KeyRound className="mr-1 inline size-3.5" aria-hidden />
          It opens {made.token.scope.join(", ")} ({levelLabel(made.token.access).toLowerCase()}). Lost it? Revoke it and make another.
        </Note>
      </div>
      <DialogFooter>
        <Button variant="primary" onClick={onClose}>
          Done
        </Button>
      </DialogFooter>
    </Dialog>
  );
}

function RevokeConfirm({ token, onClose }: { token: TokenView | null; onClose: () => void }) {
  const revoke = useRevokeToken();
  const confirm = () => {
    if (!token) return;
    revoke.mutate(token.id, {
      onSuccess: ({ name }) => {
        notify.ok(`Revoked ${name}`);
        onClose();
      },
      onError: (e) => notify.fail(`Could not revoke: ${messageOf(e)}`),
    });
  };
  return (
    <Confirm
      open={!!token}
      onOpenChange={(open) => !open && onClose()}
      title={`Revoke ${token?.name ?? "token"}?`}
      description="Agents using it are refused from their next request on. This cannot be undone."
      confirm="Revoke"
      busy={revoke.isPending}
      onConfirm={confirm}
    />
  );
}
