//! "Files outside every folder": Markdown directly in the docs directory, which serve never
//! indexes; each can be deleted from disk (writable only) after a confirmation.
import { useState } from "react";
import { FileX, Trash2 } from "lucide-react";
import { useDeleteLoose } from "../../api/mutations";
import { IconButton } from "../../components/ui/button";
import { Confirm } from "../../components/ui/dialog";
import { messageOf, notify } from "../../lib/toast";

export function LooseFiles({ files, writable }: { files: readonly string[]; writable: boolean }) {
  const remove = useDeleteLoose();
  const [deleting, setDeleting] = useState<string | null>(null);
  if (files.length === 0) return null;

  // The list goes once its last file does: the toast follows the promise, not this component.
  const confirm = (name: string) =>
    void remove.mutateAsync(name).then(
      () => {
        notify.ok(`Deleted ${name}`);
        setDeleting(null);
      },
      (e: unknown) => notify.fail(messageOf(e)),
    );

  return (
    <section aria-labelledby="loose-files" className="space-y-2 pt-2">
      <h2 id="loose-files" className="text-sm font-semibold">
        Files outside every folder
      </h2>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">Markdown directly in the docs directory is never indexed: move it into a folder to search it.</p>
      <ul className="divide-y divide-zinc-100 rounded-xl border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
        {files.map((name) => (
          <li key={name} className="flex items-center gap-2 px-4 py-1.5 text-sm">
            <FileX className="size-4 shrink-0 text-zinc-500 dark:text-zinc-400" aria-hidden />
            <span className="min-w-0 flex-1 truncate font-mono text-xs">{name}</span>
            {writable && (
              <IconButton label={`Delete ${name}`} onClick={() => setDeleting(name)}>
                <Trash2 aria-hidden />
              </IconButton>
            )}
          </li>
        ))}
      </ul>
      <Confirm
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title={`Delete ${deleting ?? ""}?`}
        description={`${deleting ?? ""} is deleted from the docs directory on disk. It was never indexed, so no folder or agent loses anything.`}
        confirm="Delete"
        busy={remove.isPending}
        onConfirm={() => deleting && confirm(deleting)}
      />
    </section>
  );
}
