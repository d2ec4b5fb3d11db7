//! A document's title as the server gives it (`chunker.rs`): front-matter `title`, else the first
//! `# heading`, else the file name without its extension. The index's own title is used wherever
//! there is one, so the header, the file list, the quick switcher and search hits agree; this rule
//! covers a document the index does not hold yet.
import type { FrontMatter } from "./frontmatter";
import { basename } from "../lib/paths";

/** The first `# heading` of a Markdown text, outside its front matter and code fences. */
export function firstHeading(text: string): string | undefined {
  const lines = text.split(/\r?\n/);
  let start = 0;
  if (lines[0] === "---") {
    const end = lines.findIndex((line, i) => i > 0 && (line === "---" || line === "..."));
    if (end > 0) start = end + 1;
  }
  let fence: string | null = null;
  for (const line of lines.slice(start)) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence === null ? marker : null;
      continue;
    }
    if (fence !== null) continue;
    const heading = /^ {0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/.exec(line)?.[1];
    if (heading) return heading;
  }
  return undefined;
}

/** The title to show: the index's when it has one, else the same rule read from the text. */
export function docTitle(path: string, front: FrontMatter, text: string, indexed: string | undefined): string {
  return indexed || front.title || firstHeading(text) || basename(path).replace(/\.(md|markdown|mdx)$/i, "");
}
