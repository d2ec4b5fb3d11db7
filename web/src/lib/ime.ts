//! Inputs that drive a query (the list's Filter and Search, the quick switcher) while a person
//! types through an input method (a Chinese, Japanese or Korean IME): the box shows every
//! keystroke of a composition, but the query it drives changes only when the composition ends,
//! so nothing is filtered or searched for the pinyin or kana on the way to 备份. The Enter that
//! confirms a composition is no command for the page either (`isImeKey`).
import { useRef, useState } from "react";

/**
 * Whether a key belongs to an IME composition, and so is not a command (Enter to open, arrows to
 * move): Chrome and Firefox mark it `isComposing`; Safari sends the confirming Enter after
 * `compositionend`, with keyCode 229.
 */
export function isImeKey(e: { isComposing?: boolean; keyCode?: number; nativeEvent?: { isComposing?: boolean } }): boolean {
  return !!(e.isComposing || e.nativeEvent?.isComposing) || e.keyCode === 229;
}

/** The props a text box spreads (`text` as its value) to drive a query through `useComposedInput`. */
export interface ComposedInput {
  /** What the box shows: the query, or the composition under way. */
  text: string;
  /** Every edit of the box's text (a plain input's `onChange` hands over `e.target.value`). */
  onText: (text: string) => void;
  onCompositionStart: () => void;
  onCompositionEnd: (e: { currentTarget: { value: string } }) => void;
}

/**
 * A text box for `value` that calls `onCommit` on each edit made outside a composition, and
 * once when a composition ends (with what it confirmed), never during one. A change of `value`
 * from outside (a Clear button) shows at once.
 */
export function useComposedInput(value: string, onCommit: (value: string) => void): ComposedInput {
  const [text, setText] = useState(value);
  const [committed, setCommitted] = useState(value);
  // Only the event handlers read it; a ref, so a composition's start re-renders nothing.
  const composing = useRef(false);
  if (value !== committed) {
    setCommitted(value);
    setText(value);
  }
  return {
    text,
    onText: (next) => {
      setText(next);
      if (!composing.current) onCommit(next);
    },
    onCompositionStart: () => {
      composing.current = true;
    },
    onCompositionEnd: (e) => {
      composing.current = false;
      const next = e.currentTarget.value;
      setText(next);
      onCommit(next);
    },
  };
}
