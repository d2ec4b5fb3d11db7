//! Settings → Access, the apps connected with OAuth: one row per approval the owner gave on the
//! consent page (the app, its folder, its access, when it connected and was last used), each
//! revocable, which ends its access and refresh tokens at once. The app's name is its own claim:
//! shown as text, with the client id under it.
import { useState } from "react";
import { Trash2 } from "lucide-react";
import { useGrants, useRevokeGrant, type Grant } from "../../api/oauth";
import { IconButton } from "../../components/ui/button";
import { Confirm } from "../../components/ui/dialog";
import { Badge, ErrorCard, Skeletons } from "../../components/ui/states";
import { messageOf, notify } from "../../lib/toast";
import { lastUsedLabel, levelLabel } from "./access";
import { ListTable, type Column } from "./parts";

const GRANT_COLUMNS: readonly Column[] = [
  { label: "App" },
  { label: "Folder" },
  { label: "Access", hideBelow: "sm" },
  { label: "Connected", hideBelow: "md" },
  { label: "Last used", hideBelow: "md" },
  { label: "Actions", actions: true },
];

export function GrantsSection() {
  const grants = useGrants();
  const [revoking, setRevoking] = useState<Grant | null>(null);
  const list = grants.data ?? [];
  return (
    <section aria-labelledby="grants-heading" className="space-y-3 pt-4">
      <h2 id="grants-heading" className="text-base font-semibold">
        Apps connected with OAuth
      </h2>
      {grants.isPending ? (
        <Skeletons rows={2} label="Loading connected apps" />
      ) : grants.isError ? (
        <ErrorCard error={grants.error} onRetry={() => void grants.refetch()} />
      ) : list.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          None yet. An app given the address <code className="font-mono text-xs">{window.location.origin}/mcp/&lt;folder&gt;</code> asks to connect, and you approve it in this browser.
        </p>
      ) : (
        <ListTable columns={GRANT_COLUMNS}>
          {list.map((g) => (
            <GrantRow key={g.id} grant={g} onRevoke={() => setRevoking(g)} />
          ))}
        </ListTable>
      )}
      <RevokeGrant grant={revoking} onClose={() => setRevoking(null)} />
    </section>
  );
}

function GrantRow({ grant: g, onRevoke }: { grant: Grant; onRevoke: () => void }) {
  return (
    <tr className="align-top">
      <td className="px-4 py-3">
        <div className="font-medium break-words">{g.client_name}</div>
        <div className="mt-0.5 font-mono text-xs break-all text-zinc-500 dark:text-zinc-400">{g.client_id}</div>
      </td>
      <td className="px-4 py-3 font-mono text-xs leading-5 break-all">{g.path}</td>
      <td className="hidden px-4 py-3 sm:table-cell">
        <Badge tone={g.access === "write" ? "amber" : "accent"}>{levelLabel(g.access)}</Badge>
      </td>
      <td className="hidden px-4 py-3 whitespace-nowrap text-zinc-700 md:table-cell dark:text-zinc-300">{new Date(g.created_ms).toLocaleDateString()}</td>
      <td className="hidden px-4 py-3 whitespace-nowrap text-zinc-700 md:table-cell dark:text-zinc-300">{lastUsedLabel(g.last_used_ms)}</td>
      <td className="px-2 py-2">
        <div className="flex justify-end">
          <IconButton label={`Revoke ${g.client_name}`} onClick={onRevoke} className="hover:bg-red-50! hover:text-red-700! dark:hover:bg-red-950/40! dark:hover:text-red-300!">
            <Trash2 aria-hidden />
          </IconButton>
        </div>
      </td>
    </tr>
  );
}

function RevokeGrant({ grant, onClose }: { grant: Grant | null; onClose: () => void }) {
  const revoke = useRevokeGrant();
  const confirm = () => {
    if (!grant) return;
    revoke.mutate(grant.id, {
      onSuccess: () => {
        notify.ok(`Revoked ${grant.client_name}`);
        onClose();
      },
      onError: (e) => notify.fail(`Could not revoke: ${messageOf(e)}`),
    });
  };
  return (
    <Confirm
      open={!!grant}
      onOpenChange={(open) => !open && onClose()}
      title={`Revoke ${grant?.client_name ?? "app"}?`}
      description="Its access and refresh tokens stop working at once; to use your notes again it must ask, and you approve it again."
      confirm="Revoke"
      busy={revoke.isPending}
      onConfirm={confirm}
    />
  );
}
