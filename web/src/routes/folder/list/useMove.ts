//! Moving a document or subfolder by dropping it on a directory of the tree: `POST /api/move`
//! with root-relative paths, a toast with the links rewritten, the selection following the
//! moved file (`useMoveDoc` refetches everything but the paths that no longer exist).
import { useCallback } from "react";
import { useNavigate } from "@tanstack/react-router";
import type { Folder } from "../../../api/client";
import { useMoveDoc } from "../../../api/mutations";
import { basename, rootPath } from "../../../lib/paths";
import { plural } from "../../../lib/time";
import { messageOf, notify } from "../../../lib/toast";
import { moveTarget, movedPath } from "./tree";

/** Returns `move(from, dir)`: `from` and `dir` are paths inside the folder ("" is its top). */
export function useMove(folder: Folder, selected: string | undefined) {
  const { mutateAsync: moveDoc } = useMoveDoc();
  const navigate = useNavigate({ from: "/f/$folder" });
  return useCallback(
    async (from: string, dir: string) => {
      const to = moveTarget(from, dir);
      if (!to) return;
      const name = basename(from);
      const oldRoot = rootPath(folder.name, from);
      try {
        const moved = await moveDoc({ from: oldRoot, to: rootPath(folder.name, to) });
        const links = moved.updated.length;
        notify.ok(`Moved ${name} to ${dir || folder.title}${links > 0 ? ` · ${plural(links, "link")} rewritten` : ""}`);
        const now = selected === undefined ? undefined : movedPath(selected, from, to);
        if (now !== selected) void navigate({ search: (s) => ({ ...s, doc: now, edit: undefined }), replace: true });
      } catch (e) {
        notify.fail(`Could not move ${name}: ${messageOf(e)}`);
      }
    },
    [folder.name, folder.title, selected, navigate, moveDoc],
  );
}
