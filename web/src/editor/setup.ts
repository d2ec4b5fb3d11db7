//! The editor's CodeMirror extensions: Markdown (with YAML front matter and fenced code in its
//! own language), wrapped lines, the active line, history, the default keys (Tab is left to move
//! focus, so the editor never traps the keyboard), bracket closing, `[[` completion, and a light
//! and a dark theme swapped through a compartment.
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap, type CompletionSource } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { markdown, markdownLanguage } from "@codemirror/lang-markdown";
import { yamlFrontmatter } from "@codemirror/lang-yaml";
import { HighlightStyle, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { languages } from "@codemirror/language-data";
import { Compartment, type Extension } from "@codemirror/state";
import { drawSelection, EditorView, highlightActiveLine, highlightSpecialChars, keymap, placeholder } from "@codemirror/view";
import { tags as t } from "@lezer/highlight";

/** Colours per theme; the Tailwind palette the rest of the UI uses. */
interface Palette {
  dark: boolean;
  bg: string;
  fg: string;
  muted: string;
  faint: string;
  activeLine: string;
  selection: string;
  cursor: string;
  border: string;
  popup: string;
  picked: string;
  accent: string;
  keyword: string;
  string: string;
  number: string;
  fn: string;
  type: string;
  code: string;
}

const light: Palette = {
  dark: false,
  bg: "#ffffff",
  fg: "#18181b",
  muted: "#71717a",
  faint: "#a1a1aa",
  activeLine: "#f4f4f580",
  selection: "#c7d2fe",
  cursor: "#18181b",
  border: "#e4e4e7",
  popup: "#ffffff",
  picked: "#e0e7ff",
  accent: "#4f46e5",
  keyword: "#7c3aed",
  string: "#047857",
  number: "#b45309",
  fn: "#1d4ed8",
  type: "#0e7490",
  code: "#be185d",
};

const dark: Palette = {
  dark: true,
  bg: "#09090b",
  fg: "#f4f4f5",
  muted: "#a1a1aa",
  faint: "#71717a",
  activeLine: "#ffffff08",
  selection: "#4338ca80",
  cursor: "#f4f4f5",
  border: "#27272a",
  popup: "#18181b",
  picked: "#312e81",
  accent: "#a5b4fc",
  keyword: "#c4b5fd",
  string: "#6ee7b7",
  number: "#fcd34d",
  fn: "#93c5fd",
  type: "#67e8f9",
  code: "#f9a8d4",
};

function chrome(p: Palette): Extension {
  return EditorView.theme(
    {
      "&": { height: "100%", color: p.fg, backgroundColor: p.bg, fontSize: "13.5px" },
      "&.cm-focused": { outline: "none" },
      ".cm-scroller": { fontFamily: "var(--font-mono)", lineHeight: "1.65", overflow: "auto" },
      ".cm-content": { padding: "12px 0 40vh", caretColor: p.cursor, maxWidth: "56rem" },
      ".cm-line": { padding: "0 24px" },
      ".cm-activeLine": { backgroundColor: p.activeLine },
      ".cm-cursor, .cm-dropCursor": { borderLeftColor: p.cursor, borderLeftWidth: "2px" },
      "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, ::selection": {
        backgroundColor: p.selection,
      },
      ".cm-placeholder": { color: p.faint, fontStyle: "italic" },
      ".cm-tooltip": { backgroundColor: p.popup, color: p.fg, border: `1px solid ${p.border}`, borderRadius: "8px", boxShadow: "0 8px 24px #0000001f" },
      ".cm-tooltip.cm-tooltip-autocomplete > ul": { fontFamily: "var(--font-sans)", maxHeight: "18rem", padding: "4px" },
      ".cm-tooltip.cm-tooltip-autocomplete > ul > li": { padding: "3px 8px", borderRadius: "5px", lineHeight: "1.5" },
      ".cm-tooltip-autocomplete ul li[aria-selected]": { backgroundColor: p.picked, color: p.fg },
      ".cm-completionLabel": { fontFamily: "var(--font-mono)", fontSize: "12.5px" },
      ".cm-completionDetail": { marginLeft: "12px", color: p.muted, fontStyle: "normal", fontSize: "12px" },
      ".cm-completionMatchedText": { textDecoration: "none", color: p.accent, fontWeight: "600" },
      ".cm-completionIcon": { display: "none" },
      ".cm-tooltip.cm-completionInfo": { fontFamily: "var(--font-mono)", fontSize: "12px", color: p.muted, padding: "4px 8px" },
    },
    { dark: p.dark },
  );
}

function highlight(p: Palette): Extension {
  return syntaxHighlighting(
    HighlightStyle.define([
      { tag: t.heading, fontWeight: "700" },
      { tag: t.heading1, fontWeight: "700", fontSize: "1.15em" },
      { tag: t.strong, fontWeight: "700" },
      { tag: t.emphasis, fontStyle: "italic" },
      { tag: t.strikethrough, textDecoration: "line-through" },
      { tag: [t.link, t.url], color: p.accent, textDecoration: "underline", textUnderlineOffset: "2px" },
      { tag: t.monospace, color: p.code },
      { tag: t.quote, color: p.muted, fontStyle: "italic" },
      { tag: [t.processingInstruction, t.contentSeparator, t.meta], color: p.faint },
      { tag: t.list, color: p.muted },
      { tag: [t.comment, t.lineComment, t.blockComment], color: p.faint, fontStyle: "italic" },
      { tag: [t.keyword, t.controlKeyword, t.moduleKeyword, t.operatorKeyword], color: p.keyword },
      { tag: [t.string, t.special(t.string), t.regexp], color: p.string },
      { tag: [t.number, t.bool, t.null, t.atom], color: p.number },
      { tag: [t.function(t.variableName), t.function(t.propertyName), t.macroName], color: p.fn },
      { tag: [t.typeName, t.className, t.namespace, t.tagName], color: p.type },
      { tag: [t.propertyName, t.attributeName, t.definition(t.propertyName)], color: p.fn },
      { tag: t.invalid, color: "#dc2626" },
    ]),
  );
}

/** Theme colours for the page's light or dark mode. */
export function themeFor(isDark: boolean): Extension {
  const p = isDark ? dark : light;
  return [chrome(p), highlight(p)];
}

export interface SetupOptions {
  /** The accessible name of the text area. */
  label: string;
  isDark: boolean;
  /** The compartment holding `themeFor(…)`, so the theme can follow the page live. */
  theme: Compartment;
  complete: CompletionSource;
  onChange: (text: string) => void;
}

export function setup(o: SetupOptions): Extension {
  return [
    highlightSpecialChars(),
    history(),
    drawSelection(),
    indentOnInput(),
    closeBrackets(),
    highlightActiveLine(),
    EditorView.lineWrapping,
    placeholder("Write Markdown…"),
    yamlFrontmatter({ content: markdown({ base: markdownLanguage, codeLanguages: languages }) }),
    autocompletion({ override: [o.complete], icons: false }),
    keymap.of([...closeBracketsKeymap, ...completionKeymap, ...historyKeymap, ...defaultKeymap]),
    EditorView.contentAttributes.of({ "aria-label": o.label, spellcheck: "true", tabindex: "0" }),
    o.theme.of(themeFor(o.isDark)),
    EditorView.updateListener.of((u) => {
      if (u.docChanged) o.onChange(u.state.doc.toString());
    }),
  ];
}
