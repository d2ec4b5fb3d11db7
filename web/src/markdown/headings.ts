//! Heading anchors: every heading gets GitHub's slug as its id (a rehype plugin), a heading named
//! in a link (`Note#Some Heading`, the server's `anchor`) becomes that slug, and the URL's hash
//! scrolls its heading into view once the document has rendered.
import GithubSlugger, { slug } from "github-slugger";
import type { Element, ElementContent, Root } from "hast";
import { useEffect } from "react";
import { visit } from "unist-util-visit";
import { decode } from "./links";

function text(node: ElementContent): string {
  if (node.type === "text") return node.value;
  if (node.type === "element") return node.children.map(text).join("");
  return "";
}

/** The rehype plugin: `id`s on h1–h6, unique within the document as GitHub makes them. */
export function rehypeHeadingIds() {
  return (tree: Root) => {
    const slugger = new GithubSlugger();
    visit(tree, "element", (node: Element) => {
      if (/^h[1-6]$/.test(node.tagName) && node.properties.id === undefined) {
        node.properties.id = slugger.slug(node.children.map(text).join(""));
      }
    });
  };
}

/** The id of the heading a link names: `Heading` or `A#B` (the last part counts, as on the server). */
export function headingId(anchor: string): string {
  return slug(anchor.split("#").at(-1)!.trim());
}

/** The element a URL hash names: an id as written, else the slug of a heading's name. */
export function hashTarget(hash: string): HTMLElement | null {
  const id = decode(hash.replace(/^#/, ""));
  if (!id) return null;
  return document.getElementById(id) ?? document.getElementById(headingId(id));
}

/** What the reader does that ends following a heading: they scroll or move on their own. */
const READER = ["wheel", "keydown", "touchstart", "pointerdown"] as const;

/** How long a heading is followed while the renderer loads and images above it push it down. */
const FOLLOW_MS = 3_000;

/** How long a heading scrolled to stays marked (`data-flash`, styled in index.css). */
export const FLASH_MS = 1_600;

/** Marks `heading` briefly, so the eye finds it after the jump. */
function flash(heading: HTMLElement): () => void {
  heading.removeAttribute("data-flash");
  // A fresh attribute restarts the animation when the same heading is marked again.
  void heading.offsetWidth;
  heading.setAttribute("data-flash", "");
  const timer = setTimeout(() => heading.removeAttribute("data-flash"), FLASH_MS);
  return () => {
    clearTimeout(timer);
    heading.removeAttribute("data-flash");
  };
}

/**
 * Scrolls the heading the URL hash names into view and marks it briefly, once `ready` (the
 * document is there), again whenever the hash or `key` changes (another document, or another
 * navigation to the same place). The heading may not be in the page yet (the Markdown renderer
 * loads on first use) and images above it load later and push it down, so for a few seconds every
 * change to the page and every image load scrolls it back, until the reader scrolls.
 */
export function useScrollToHash(hash: string, ready: boolean, key: string): void {
  useEffect(() => {
    if (!ready || !hash) return;
    let marked: HTMLElement | null = null;
    let unmark = () => {};
    const go = () => {
      const target = hashTarget(hash);
      if (!target) return;
      target.scrollIntoView({ block: "start" });
      if (target !== marked) {
        unmark();
        marked = target;
        unmark = flash(target);
      }
    };
    const observer = new MutationObserver(go);
    const stop = () => {
      clearTimeout(timer);
      observer.disconnect();
      document.removeEventListener("load", go, true);
      READER.forEach((type) => window.removeEventListener(type, stop, true));
    };
    go();
    observer.observe(document.body, { childList: true, subtree: true });
    document.addEventListener("load", go, true);
    READER.forEach((type) => window.addEventListener(type, stop, { capture: true, passive: true }));
    const timer = setTimeout(stop, FOLLOW_MS);
    return () => {
      stop();
      unmark();
    };
  }, [hash, ready, key]);
}
