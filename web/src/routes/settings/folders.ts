//! The Folders tab's rules, pure: which folders set a hook minimum score too low for the embedder,
//! and how their titles are listed in the warning. (The folder-name rule is `lib/folderName.ts`.)
import type { Folder, Status } from "../../api/client";

/** The best score an unrelated prompt reached with the embedder in use, when it was measured. */
export function unrelatedScore(status: Status | undefined): number | null {
  if (!status) return null;
  const settings = status.settings;
  if (settings.hook.unrelated_score != null) return settings.hook.unrelated_score;
  const name = settings.embedder;
  return name ? (settings.embedders[name]?.unrelated_score ?? null) : null;
}

/** Whether a minimum score lets unrelated prompts through: at or below the unrelated score. */
export function floorTooLow(minScore: number | null | undefined, unrelated: number | null): boolean {
  return minScore != null && unrelated != null && minScore <= unrelated;
}

/** The folders whose own minimum score is too low, for the warning over the table. */
export function lowFloorFolders(folders: readonly Folder[], unrelated: number | null): Folder[] {
  return folders.filter((f) => floorTooLow(f.hook.min_score, unrelated));
}

/** "Notes", "Notes and Work", "Notes, Work and Ops". */
export function joinTitles(titles: readonly string[]): string {
  if (titles.length <= 1) return titles[0] ?? "";
  return `${titles.slice(0, -1).join(", ")} and ${titles[titles.length - 1]}`;
}
