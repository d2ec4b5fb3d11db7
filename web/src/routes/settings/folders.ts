//! The Folders tab's rules, pure: the server's folder-name rule (so the dialog can say what is
//! wrong before it asks), and which folders set a hook minimum score too low for the embedder.
import type { Folder, Status } from "../../api/client";

/** The server's rule (`ragdownd/src/folders.rs`), kept in step with it. */
const NAME = /^[A-Za-z0-9_][A-Za-z0-9 _.-]{0,63}$/;

/** Why `name` cannot name a new folder, or null when it can. `taken` lists the existing names. */
export function folderNameProblem(name: string, taken: readonly string[] = []): string | null {
  if (name === "") return "A name is required.";
  if (name.trim() !== name) return "No spaces at the start or the end.";
  if (name.length > 64) return "At most 64 characters.";
  if (name.startsWith(".")) return "It cannot start with a dot: dot-directories are never indexed.";
  if (!NAME.test(name)) return "Only letters, digits, spaces, '_', '.' and '-', starting with a letter, a digit or '_'.";
  if (name === "node_modules") return "node_modules is never indexed: pick another name.";
  if (taken.includes(name)) return `A folder named ${name} already exists.`;
  return null;
}

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
