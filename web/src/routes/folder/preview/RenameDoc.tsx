//! Rename or move: one field, the path inside the folder, sent as `POST /api/move` with
//! root-relative paths. The server rewrites every link to the note; a 409 means the target
//! exists. On success the new path opens, and everything but the old path is refetched.
import { useState } from "react";
import { useNavigate } from "@tanstack/react-router";
import { ApiError } from "../../../api/client";
import { useForgetPath, useMoveDoc } from "../../../api/mutations";
import { Dialog } from "../../../components/ui/dialog";
import { FormFooter, onSubmit, useDialogForm } from "../../../components/ui/dialogForm";
import { Field, Input } from "../../../components/ui/form";
import { plural } from "../../../lib/time";
import { rootPath, splitPath } from "../../../lib/paths";
import { messageOf, notify } from "../../../lib/toast";
import { useListSearch } from "../../../markdown/resolved";

const MARKDOWN = /\.(md|markdown|mdx)$/i;

/** The path a typed value moves to: trimmed, no leading `/`, and the old extension kept when left off. */
export function movedPath(value: string, old: string): string {
  const cleaned = value.trim().replace(/\\/g, "/").replace(/^\/+/, "").replace(/\/{2,}/g, "/");
  if (!cleaned || MARKDOWN.test(cleaned)) return cleaned;
  return cleaned + (MARKDOWN.exec(old)?.[0] ?? ".md");
}

export function RenameDoc({ path, open, onOpenChange }: { path: string; open: boolean; onOpenChange: (open: boolean) => void }) {
  const { folder, doc } = splitPath(path);
  const [value, setValue] = useState(doc);
  const move = useMoveDoc();
  const forget = useForgetPath();
  const navigate = useNavigate();
  const current = useListSearch();
  const target = movedPath(value, doc);
  const changed = target !== doc;

  const close = () => {
    setValue(doc);
    onOpenChange(false);
  };
  const form = useDialogForm(move, {
    dirty: changed && !move.isPending,
    close,
    describe: (err) => (err instanceof ApiError && err.status === 409 ? "Already exists." : messageOf(err)),
  });

  const submit = () => {
    if (!target || !changed || form.busy) return;
    return form.run({ from: path, to: rootPath(folder, target) }, async (moved) => {
      // The server names the documents whose links it rewrote, not how many links.
      const rewritten = moved.updated.length ? ` · links rewritten in ${plural(moved.updated.length, "document")}` : "";
      notify.ok(`Moved to ${moved.to}${rewritten}`);
      onOpenChange(false);
      await navigate({ to: "/f/$folder", params: { folder }, search: { doc: splitPath(moved.to).doc, tag: current.tag, sort: current.sort } });
      // Only once the old path is off screen: drop what is left of it.
      forget(path);
    });
  };

  return (
    <>
      <Dialog
        open={open}
        onOpenChange={form.onOpenChange}
        title="Rename or move"
        description="Links to this note from anywhere in the folder are rewritten to follow it."
      >
        <form onSubmit={onSubmit(submit)} className="space-y-4">
          <Field
            label="Path"
            hint={target && target !== value.trim() ? `Saved as ${target}, in ${folder}.` : `Relative to ${folder}. Missing subfolders are created.`}
            error={form.error}
          >
            {(ids) => (
              <Input
                {...ids}
                autoFocus
                value={value}
                spellCheck={false}
                className="font-mono"
                onChange={(e) => {
                  setValue(e.target.value);
                  form.clearError();
                }}
                onFocus={(e) => {
                  // Select the name, not the folders or the extension, as file managers do.
                  const start = doc.lastIndexOf("/") + 1;
                  const end = doc.length - (MARKDOWN.exec(doc)?.[0].length ?? 0);
                  if (e.target.value === doc) e.target.setSelectionRange(start, end);
                }}
              />
            )}
          </Field>
          <FormFooter onCancel={() => {
              form.clearError();
              close();
            }} busy={form.busy} label="Move" busyLabel="Moving…" disabled={!target || !changed || form.busy} />
        </form>
      </Dialog>
      {form.guard}
    </>
  );
}
