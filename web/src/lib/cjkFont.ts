//! Which CJK fonts draw Han characters. One code point (骨, 直, 今) is drawn differently in Japan,
//! mainland China, Taiwan and Hong Kong, and Korea, and a note's text says nothing of its
//! language, so the fonts follow the reader's: the first Chinese, Japanese or Korean language in
//! the browser's preferences picks `--font-cjk` (index.css) through `data-cjk` on the root element.
//! No such language keeps the default order (simplified Chinese, then Japanese, then Korean).

/** The CJK font family set for these language preferences (BCP 47 tags), if any. */
export type CjkFonts = "zh-hans" | "zh-hant" | "ja" | "ko";

export function cjkFonts(languages: readonly string[]): CjkFonts | undefined {
  for (const tag of languages) {
    const t = tag.toLowerCase();
    if (t === "ja" || t.startsWith("ja-")) return "ja";
    if (t === "ko" || t.startsWith("ko-")) return "ko";
    if (t === "zh" || t.startsWith("zh-")) return /^zh-(hant|tw|hk|mo)\b/.test(t) ? "zh-hant" : "zh-hans";
  }
  return undefined;
}

/** Marks the root element with the reader's CJK fonts (before the first render). */
export function applyCjkFonts(root: HTMLElement = document.documentElement, languages: readonly string[] = navigator.languages ?? [navigator.language]): void {
  const fonts = cjkFonts(languages);
  if (fonts) root.dataset.cjk = fonts;
}
