//! A text with the words typed to find it marked (`<mark>`), on whole characters: CJK, half-width
//! katakana, surrogate pairs and emoji included (`lib/fold.ts`'s `matchRanges`).
import { useMemo, type ReactNode } from "react";
import { matchRanges } from "../lib/fold";

export interface HighlightProps {
  text: string;
  /** The query's words, folded (`words()`); none shows the text as it is. */
  words: readonly string[];
}

export function Highlight({ text, words }: HighlightProps) {
  const parts = useMemo(() => {
    const out: ReactNode[] = [];
    let at = 0;
    for (const [start, end] of matchRanges(text, words)) {
      if (start > at) out.push(text.slice(at, start));
      out.push(
        <mark key={start} className="bg-transparent font-semibold text-accent-700 dark:text-accent-100">
          {text.slice(start, end)}
        </mark>,
      );
      at = end;
    }
    if (at < text.length) out.push(text.slice(at));
    return out;
  }, [text, words]);
  return <>{parts}</>;
}
