//! Rename or move: one field, the path inside the folder, sent as `POST /api/move` with
//! root-relative paths. The server rewrites every link to the note; a 409 means the target
//! exists. On success the new path opens, and everything but the old path is refetched.
import { useState, type FormEvent } from "react";
import { useNavigate } from "@tanstack/react-router";
import { useQueryClient } from "@tanstack/react-query";
import { ApiError, type Moved } from "../../../api/client";
import { request, useRefreshAll } from "../../../api/hooks";
import { Button } from "../../../components/ui/button";
import { Dialog, DialogFooter } from "../../../components/ui/dialog";
import { useDiscardGuard } from "../../../components/ui/discard";
import { Field, Input } from "../../../components/ui/form";
import { plural } from "../../../lib/time";
import { rootPath, splitPath } from "../../../lib/paths";
import { messageOf, notify } from "../../../lib/toast";
import { useListSearch } from "../../../markdown/resolved";
import { forgetPath, isOfPath } from "./forget";

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
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const navigate = useNavigate();
  const client = useQueryClient();
  const refreshAll = useRefreshAll();
  const current = useListSearch();
  const target = movedPath(value, doc);
  const changed = target !== doc;

  const close = () => {
    setValue(doc);
    setError(null);
    onOpenChange(false);
  };
  const { onOpenChange: guarded, guard } = useDiscardGuard(changed && !busy, close);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!target || !changed || busy) return;
    setBusy(true);
    setError(null);
    try {
      const moved = await request<Moved>("POST", "/api/move", { body: { from: path, to: rootPath(folder, target) } });
      // The server names the documents whose links it rewrote, not how many links.
      const rewritten = moved.updated.length ? ` · links rewritten in ${plural(moved.updated.length, "document")}` : "";
      notify.ok(`Moved to ${moved.to}${rewritten}`);
      onOpenChange(false);
      await navigate({ to: "/f/$folder", params: { folder }, search: { doc: splitPath(moved.to).doc, tag: current.tag, sort: current.sort } });
      forgetPath(client, path);
      await refreshAll((key) => isOfPath(key, path));
    } catch (err) {
      setError(err instanceof ApiError && err.status === 409 ? "Already exists." : messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Dialog
        open={open}
        onOpenChange={guarded}
        title="Rename or move"
        description="Links to this note from anywhere in the folder are rewritten to follow it."
      >
        <form onSubmit={(e) => void submit(e)} className="space-y-4">
          <Field
            label="Path"
            hint={target && target !== value.trim() ? `Saved as ${target}, in ${folder}.` : `Relative to ${folder}. Missing subfolders are created.`}
            error={error}
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
                  setError(null);
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
          <DialogFooter>
            <Button onClick={close}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={!target || !changed || busy}>
              {busy ? "Moving…" : "Move"}
            </Button>
          </DialogFooter>
        </form>
      </Dialog>
      {guard}
    </>
  );
}
