//! Settings → Server's notice when a folder is notably Chinese, Japanese or Korean and the
//! embedder reads English only (`/api/status`'s `language_notice`): which folders, and the one
//! setting that fixes it, applied here with one press (a new embedder rebuilds the index).
import type { Status } from "../../api/client";
import { useUpdateSettings } from "../../api/mutations";
import { Button } from "../../components/ui/button";
import { messageOf, notify } from "../../lib/toast";
import { Note } from "./parts";

/** The model the notice's setting names (`RAGDOWN_EMBEDDER=<model>`). */
export function suggestedEmbedder(setting: string): string {
  return setting.slice(setting.indexOf("=") + 1);
}

/** `notes (42%)`, `notes (42%) and work (11%)`. */
export function folderShares(folders: { folder: string; cjk_share: number }[]): string {
  const each = folders.map((f) => `${f.folder || "this folder"} (${Math.round(f.cjk_share * 100)}%)`);
  return each.length > 1 ? `${each.slice(0, -1).join(", ")} and ${each[each.length - 1]}` : (each[0] ?? "");
}

export function LanguageNoticeCard({ status: s, canEdit }: { status: Status; canEdit: boolean }) {
  const update = useUpdateSettings();
  const notice = s.language_notice;
  if (!notice) return null;
  const model = suggestedEmbedder(notice.setting);
  const several = notice.folders.length > 1;
  // A reader cannot change the embedder: the process that owns the index must.
  const canSwitch = canEdit && s.role !== "reader";
  const switchModel = () =>
    update.mutate(
      { embedder: model },
      {
        onSuccess: () => notify.ok(`Rebuilding the index with ${model}`),
        onError: (err) => notify.fail(`Could not switch to ${model}: ${messageOf(err)}`),
      },
    );
  return (
    <Note>
      <div className="min-w-0 flex-1 space-y-2">
        <p>
          {several ? "Folders" : "Folder"} {folderShares(notice.folders)} {several ? "are" : "is"} written partly in Chinese, Japanese or Korean (the share of letters), but the embedder{" "}
          <code className="font-mono text-xs">{notice.embedder}</code> reads English only: keywords are found, meaning is not.
        </p>
        <p>
          Set <code className="font-mono text-xs">{notice.setting}</code>
          {canSwitch ? ", or switch here (the index is rebuilt with it):" : "."}
        </p>
        {canSwitch && (
          <Button variant="primary" onClick={switchModel} disabled={update.isPending}>
            Use {model}
          </Button>
        )}
      </div>
    </Note>
  );
}
