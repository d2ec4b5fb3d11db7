//! The save cycle wired to the server: holds the `save.ts` state machine, sends
//! `POST /api/doc` when it moves to saving, feeds the answer back, says so in a toast, and
//! refreshes everything after a write (the server answers once the index has synced).
import { useCallback, useRef, useState } from "react";
import { ApiError, type Saved } from "../api/client";
import { request, useRefreshAll } from "../api/hooks";
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
        const saved = await request<Saved>("POST", "/api/doc", { body });
        send({ type: "saved", hash: saved.hash });
        notify.ok(body.overwrite ? "Saved over the version on disk" : "Saved");
        void refreshAll();
      } catch (e) {
        if (e instanceof ApiError && e.status === 409 && e.code === "changed") {
          send({ type: "conflict" });
        } else {
          send({ type: "failed" });
          notify.fail(messageOf(e));
        }
      }
    },
    [path, send, refreshAll],
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
