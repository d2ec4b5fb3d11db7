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

/** How long a heading is followed while images above it load and push it down. */
const FOLLOW_MS = 3_000;

/**
 * Scrolls the heading the URL hash names into view once `ready` (the document has rendered),
 * again whenever the hash or the document (`key`) changes. Images above it load later and push
 * it down, so for a few seconds each image load scrolls it back, until the reader scrolls.
 */
export function useScrollToHash(hash: string, ready: boolean, key: string): void {
  useEffect(() => {
    if (!ready || !hash) return;
    const go = () => hashTarget(hash)?.scrollIntoView({ block: "start" });
    go();
    const stop = () => {
      clearTimeout(timer);
      document.removeEventListener("load", go, true);
      READER.forEach((type) => window.removeEventListener(type, stop, true));
    };
    document.addEventListener("load", go, true);
    READER.forEach((type) => window.addEventListener(type, stop, { capture: true, passive: true }));
    const timer = setTimeout(stop, FOLLOW_MS);
    return stop;
  }, [hash, ready, key]);
}
