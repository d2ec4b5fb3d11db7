//! The questions and reports around undoing: an undo refused over files changed since (keep them,
//! or overwrite them, as the editor asks), and what "Undo everything this session did" did and
//! could not do.
import type { Schemas } from "../../../api/client";
import type { UndoConflict } from "../../../api/mutations";
import { Button } from "../../../components/ui/button";
import { Dialog, DialogFooter } from "../../../components/ui/dialog";
import { plural } from "../../../lib/time";

function Conflicts({ conflicts }: { conflicts: readonly Schemas["Conflict"][] }) {
  return (
    <ul className="space-y-1.5 text-sm">
      {conflicts.map((c) => (
        <li key={c.path} className="rounded-md bg-zinc-50 px-2.5 py-1.5 dark:bg-zinc-800/60">
          <code className="font-mono text-[0.9em] break-all">{c.path}</code>
          <span className="block text-xs text-zinc-600 dark:text-zinc-400">{c.reason}</span>
        </li>
      ))}
    </ul>
  );
}

/** An undo refused because files changed since the entry: keep them (nothing happens) or overwrite them. */
export function ConflictDialog({ conflict, busy, onKeep, onOverwrite }: { conflict: UndoConflict | null; busy: boolean; onKeep: () => void; onOverwrite: () => void }) {
  return (
    <Dialog
      open={!!conflict}
      onOpenChange={(open) => !open && onKeep()}
      title="Changed since this change"
      description="Nothing was undone. These files changed after it, in ragdown or in another editor. Overwrite them to undo anyway: what they hold now is kept in the history, so that can be undone too."
    >
      {conflict && <Conflicts conflicts={conflict.conflicts} />}
      <DialogFooter>
        <Button autoFocus onClick={onKeep}>
          Keep them
        </Button>
        <Button variant="danger" disabled={busy} onClick={onOverwrite}>
          Overwrite them
        </Button>
      </DialogFooter>
    </Dialog>
  );
}

/** What undoing a session did: how many changes it undid, and each it left, with why. */
export function SessionReport({ report, describe, onClose }: { report: Schemas["SessionUndo"] | null; describe: (id: string) => string; onClose: () => void }) {
  const failed = report?.failed ?? [];
  return (
    <Dialog open={!!report} onOpenChange={(open) => !open && onClose()} title={`Undid ${plural(report?.undone.length ?? 0, "change")}`} wide>
      {failed.length === 0 ? (
        <p className="text-sm text-zinc-700 dark:text-zinc-300">Everything this session did is undone. Each undo is in the history, so it can be redone.</p>
      ) : (
        <>
          <p className="mb-3 text-sm text-zinc-700 dark:text-zinc-300">
            {plural(failed.length, "change")} could not be undone, since what it wrote changed after it. {failed.length === 1 ? "It was" : "They were"} left as{" "}
            {failed.length === 1 ? "it is" : "they are"}:
          </p>
          <ul className="space-y-3">
            {failed.map((f) => (
              <li key={f.undid}>
                <p className="mb-1 text-sm font-medium">{describe(f.undid)}</p>
                <Conflicts conflicts={f.conflicts} />
              </li>
            ))}
          </ul>
        </>
      )}
      <DialogFooter>
        <Button variant="primary" autoFocus onClick={onClose}>
          Done
        </Button>
      </DialogFooter>
    </Dialog>
  );
}
