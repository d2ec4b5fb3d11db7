//! A thin React wrapper over a CodeMirror 6 `EditorView`: created once in an effect with the
//! opening text, reporting each change, following the page's theme live, and focused when it
//! mounts. It does not own the text: the parent keeps what `onChange` reports.
import { Compartment, EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { useEffect, useRef, type RefObject } from "react";
import { wikiCompletions, type WikiEntry } from "./completion";
import { setup, themeFor } from "./setup";

export interface CodeEditorProps {
  /** The text it opens with; later changes to this prop are ignored. */
  initial: string;
  /** The accessible name of the text area. */
  label: string;
  isDark: boolean;
  /** What `[[` offers for the target typed so far; read when completion runs, so it may change
   * between renders. */
  offers: (query: string) => Promise<readonly WikiEntry[]>;
  onChange: (text: string) => void;
  /** Receives the view, for reading the text at the moment of a save. */
  viewRef?: RefObject<EditorView | null>;
  className?: string;
}

export function CodeEditor({ initial, label, isDark, offers, onChange, viewRef, className }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const theme = useRef(new Compartment());
  // The latest props, read by the extensions without rebuilding the editor.
  const latest = useRef({ offers, onChange, isDark, initial, label });
  useEffect(() => {
    latest.current = { offers, onChange, isDark, initial, label };
  });

  useEffect(() => {
    const { initial, label, isDark } = latest.current;
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: initial,
        extensions: setup({
          label,
          isDark,
          theme: theme.current,
          complete: wikiCompletions((query) => latest.current.offers(query)),
          onChange: (text) => latest.current.onChange(text),
        }),
      }),
    });
    view.current = v;
    if (viewRef) viewRef.current = v;
    v.focus();
    return () => {
      v.destroy();
      view.current = null;
      if (viewRef) viewRef.current = null;
    };
  }, [viewRef]);

  useEffect(() => {
    view.current?.dispatch({ effects: theme.current.reconfigure(themeFor(isDark)) });
  }, [isDark]);

  return <div ref={host} className={className} />;
}
