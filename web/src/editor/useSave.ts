//! The save cycle wired to the server: holds the `save.ts` state machine, sends
//! `POST /api/doc` (`useSaveDoc`, which refetches what the write changed) when it moves to
//! saving, feeds the answer back and says so in a toast; "Discard mine" reads everything again.
import { useCallback, useRef, useState } from "react";
import { ApiError } from "../api/client";
import { useRefreshAll } from "../api/hooks";
import { useSaveDoc } from "../api/mutations";
import { messageOf, notify } from "../lib/toast";
import { opened, saveBody, transition, type SaveEvent, type SaveState } from "./save";

export interface SaveCycle {
  state: SaveState;
  edit: (text: string) => void;
  /** Saves `text` against the version the editor read. */
  save: (text: string) => void;
  /** "Save mine anyway": replaces whatever the file holds now. */
  overwrite: (text: string) => void;
  /** "Discard mine": forgets the edits and refreshes what the preview shows. */
  discard: () => void;
}

export function useSave(path: string, initial: { text: string; hash: string }): SaveCycle {
  const refreshAll = useRefreshAll();
  const { mutateAsync: saveDoc } = useSaveDoc();
  const [state, setState] = useState(() => opened(initial.text, initial.hash));
  // The machine's state as of the last event, ahead of React's render, so two quick events
  // (a keystroke then Ctrl+S) never act on a stale state.
  const current = useRef(state);
  const send = useCallback((e: SaveEvent) => {
    current.current = transition(current.current, e);
    setState(current.current);
    return current.current;
  }, []);

  const write = useCallback(
    async (before: SaveState) => {
      const body = saveBody(current.current, path);
      if (!body || before.phase === "saving") return;
      try {
        const saved = await saveDoc(body);
        send({ type: "saved", hash: saved.hash });
        notify.ok(body.overwrite ? "Saved over the version on disk" : "Saved");
      } catch (e) {
        if (e instanceof ApiError && e.status === 409 && e.code === "changed") {
          send({ type: "conflict" });
        } else {
          send({ type: "failed" });
          notify.fail(messageOf(e));
        }
      }
    },
    [path, send, saveDoc],
  );

  const edit = useCallback((text: string) => void send({ type: "edit", text }), [send]);
  const save = useCallback(
    (text: string) => {
      const before = current.current;
      send({ type: "save", text });
      void write(before);
    },
    [send, write],
  );
  const overwrite = useCallback(
    (text: string) => {
      const before = current.current;
      send({ type: "overwrite", text });
      void write(before);
    },
    [send, write],
  );
  const discard = useCallback(() => {
    send({ type: "discard" });
    void refreshAll();
  }, [send, refreshAll]);

  return { state, edit, save, overwrite, discard };
}
