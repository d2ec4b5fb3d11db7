//! Moving a document or subfolder by dropping it on a directory of the tree: `POST /api/move`
//! with root-relative paths, a toast with the links rewritten, the selection following the
//! moved file, and a refresh of everything but the paths that no longer exist.
import { useCallback } from "react";
import { useNavigate } from "@tanstack/react-router";
import type { Folder, Moved } from "../../../api/client";
import { request, useRefreshAll } from "../../../api/hooks";
import { basename, rootPath } from "../../../lib/paths";
import { plural } from "../../../lib/time";
import { messageOf, notify } from "../../../lib/toast";
import { moveTarget, movedPath } from "./tree";

/** Returns `move(from, dir)`: `from` and `dir` are paths inside the folder ("" is its top). */
export function useMove(folder: Folder, selected: string | undefined) {
  const refresh = useRefreshAll();
  const navigate = useNavigate({ from: "/f/$folder" });
  return useCallback(
    async (from: string, dir: string) => {
      const to = moveTarget(from, dir);
      if (!to) return;
      const name = basename(from);
      const oldRoot = rootPath(folder.name, from);
      try {
        const moved = await request<Moved>("POST", "/api/move", { body: { from: oldRoot, to: rootPath(folder.name, to) } });
        const links = moved.updated.length;
        notify.ok(`Moved ${name} to ${dir || folder.title}${links > 0 ? ` · ${plural(links, "link")} rewritten` : ""}`);
        const now = selected === undefined ? undefined : movedPath(selected, from, to);
        if (now !== selected) void navigate({ search: (s) => ({ ...s, doc: now, edit: undefined }), replace: true });
        const gone = (key: readonly unknown[]) =>
          (key[0] === "doc" || key[0] === "backlinks") && typeof key[1] === "string" && (key[1] === oldRoot || key[1].startsWith(`${oldRoot}/`));
        await refresh(gone);
      } catch (e) {
        notify.fail(`Could not move ${name}: ${messageOf(e)}`);
      }
    },
    [folder.name, folder.title, selected, navigate, refresh],
  );
}
