//! Delete document: a confirmation whose safe button is the default, then `DELETE /api/doc`
//! (`useDeleteDoc`, which refetches what it changed), a toast, and the folder without `?doc=`.
import { useNavigate } from "@tanstack/react-router";
import { useDeleteDoc, useForgetPath } from "../../../api/mutations";
import { Confirm } from "../../../components/ui/dialog";
import { splitPath } from "../../../lib/paths";
import { messageOf, notify } from "../../../lib/toast";
import { useListSearch } from "../../../markdown/resolved";

export function DeleteDoc({ path, open, onOpenChange }: { path: string; open: boolean; onOpenChange: (open: boolean) => void }) {
  const deleteDoc = useDeleteDoc();
  const forget = useForgetPath();
  const navigate = useNavigate();
  const current = useListSearch();
  const busy = deleteDoc.isPending;

  const remove = async () => {
    try {
      await deleteDoc.mutateAsync(path);
      notify.ok(`Deleted ${path}`);
      onOpenChange(false);
      await navigate({ to: "/f/$folder", params: { folder: splitPath(path).folder }, search: { tag: current.tag, sort: current.sort } });
      // Only once the document is off screen: drop what is left of it.
      forget(path);
    } catch (err) {
      notify.fail(`Could not delete ${path}: ${messageOf(err)}`);
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
