//! The editor's save cycle as a pure state machine: clean → (edit) dirty → (save) saving →
//! clean with the new hash, or conflict when the file changed on disk behind the editor, from
//! which the user either overwrites or discards. It only decides; the component sends requests.

export type Phase = "clean" | "dirty" | "saving" | "conflict";

export interface SaveState {
  phase: Phase;
  /** The hash of the file as this editor last read or wrote it: the next save's `base_hash`. */
  base: string;
  /** The text that `base` belongs to, as the editor holds it (`\n` line ends). */
  saved: string;
  /** The editor's text now. */
  text: string;
  /** The text of the save in flight, if any. */
  sending: string | null;
  /** Whether the save in flight replaces the file whatever it holds now. */
  overwrite: boolean;
}

export type SaveEvent =
  /** The text in the editor changed. */
  | { type: "edit"; text: string }
  /** The user asked to save (button or Ctrl/Cmd+S). */
  | { type: "save"; text: string }
  /** "Save mine anyway" in a conflict. */
  | { type: "overwrite"; text: string }
  /** The server wrote it; `hash` is the file's new version. */
  | { type: "saved"; hash: string }
  /** 409 `changed`: the file is not the version the editor read. */
  | { type: "conflict" }
  /** Any other failure: nothing was written. */
  | { type: "failed" }
  /** "Discard mine": the edits are thrown away. */
  | { type: "discard" };

/** The editor holds `\n` line ends whatever the file has; the server keeps the file's own. */
export function normalize(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** The state of an editor just opened on `text` at version `hash`. */
export function opened(text: string, hash: string): SaveState {
  const t = normalize(text);
  return { phase: "clean", base: hash, saved: t, text: t, sending: null, overwrite: false };
}

const settle = (s: SaveState): Phase => (s.text === s.saved ? "clean" : "dirty");

export function transition(s: SaveState, e: SaveEvent): SaveState {
  switch (e.type) {
    case "edit": {
      const next = { ...s, text: e.text };
      // A save in flight or an open conflict stays as it is; typing does not decide for the user.
      return s.phase === "saving" || s.phase === "conflict" ? next : { ...next, phase: settle(next) };
    }
    case "save":
      if (s.phase === "saving" || s.phase === "conflict") return s;
      if (e.text === s.saved) return { ...s, text: e.text, phase: "clean" };
      return { ...s, text: e.text, phase: "saving", sending: e.text, overwrite: false };
    case "overwrite":
      if (s.phase !== "conflict") return s;
      return { ...s, text: e.text, phase: "saving", sending: e.text, overwrite: true };
    case "saved": {
      if (s.phase !== "saving" || s.sending === null) return s;
      const next = { ...s, base: e.hash, saved: s.sending, sending: null, overwrite: false };
      return { ...next, phase: settle(next) };
    }
    case "conflict":
      if (s.phase !== "saving") return s;
      return { ...s, phase: "conflict", sending: null, overwrite: false };
    case "failed": {
      if (s.phase !== "saving") return s;
      const next = { ...s, sending: null, overwrite: false };
      return { ...next, phase: settle(next) };
    }
    case "discard":
      return { ...s, phase: "clean", text: s.saved, sending: null, overwrite: false };
  }
}

/** Whether leaving now would lose edits. */
export function unsaved(s: SaveState): boolean {
  return s.phase !== "clean";
}

/** The body of `POST /api/doc` for the save in flight; `null` when none is. */
export function saveBody(s: SaveState, path: string): { path: string; text: string; base_hash?: string; overwrite?: boolean } | null {
  if (s.phase !== "saving" || s.sending === null) return null;
  return s.overwrite ? { path, text: s.sending, overwrite: true } : { path, text: s.sending, base_hash: s.base };
}

/** The header's status line. */
export function statusText(s: SaveState): string {
  if (s.phase === "saving") return "Saving…";
  return s.phase === "clean" ? "No unsaved changes" : "Unsaved changes";
}
