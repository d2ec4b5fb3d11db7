//! Delete document: a confirmation whose safe button is the default, then `DELETE /api/doc`, a
//! toast, the folder without `?doc=`, and everything refetched (the server answers once the index
//! has synced).
import { useState } from "react";
import { useNavigate } from "@tanstack/react-router";
import { useQueryClient } from "@tanstack/react-query";
import { request, useRefreshAll } from "../../../api/hooks";
import { Confirm } from "../../../components/ui/dialog";
import { splitPath } from "../../../lib/paths";
import { messageOf, notify } from "../../../lib/toast";
import { useListSearch } from "../../../markdown/resolved";
import { forgetPath, isOfPath } from "./forget";

export function DeleteDoc({ path, open, onOpenChange }: { path: string; open: boolean; onOpenChange: (open: boolean) => void }) {
  const [busy, setBusy] = useState(false);
  const navigate = useNavigate();
  const client = useQueryClient();
  const refreshAll = useRefreshAll();
  const current = useListSearch();

  const remove = async () => {
    setBusy(true);
    try {
      await request("DELETE", "/api/doc", { query: { path } });
      notify.ok(`Deleted ${path}`);
      onOpenChange(false);
      await navigate({ to: "/f/$folder", params: { folder: splitPath(path).folder }, search: { tag: current.tag, sort: current.sort } });
      forgetPath(client, path);
      await refreshAll((key) => isOfPath(key, path));
    } catch (err) {
      notify.fail(`Could not delete ${path}: ${messageOf(err)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Confirm
      open={open}
      onOpenChange={onOpenChange}
      title="Delete this document?"
      description={
        <>
          <code className="font-mono text-[0.9em] break-all text-zinc-800 dark:text-zinc-200">{path}</code> is deleted from disk, not only from
          the index, and agents stop finding it.
        </>
      }
      confirm={busy ? "Deleting…" : "Delete"}
      busy={busy}
      onConfirm={() => void remove()}
    />
  );
}
