//! Names for new files: a note's file name from its title (as Obsidian does it), a subfolder as
//! typed cleaned into a relative path, and the root-relative path the API wants.

/** The characters a title may hold but a file name should not: each becomes "-". */
const FORBIDDEN = /[\\/:*?"<>|#^[\]]/g;
const MARKDOWN = /\.(md|markdown|mdx)$/i;

/** The file name for a note titled `title`: "Kafka retention" → "Kafka retention.md"; "" when
 * nothing is left once the forbidden characters and the leading dots and dashes are gone. */
export function noteFileName(title: string): string {
  const stem = title.trim().replace(FORBIDDEN, "-").replace(/^[.-]+/, "").trim();
  if (!stem) return "";
  return MARKDOWN.test(stem) ? stem : `${stem}.md`;
}

/** Whether a file's name says it is Markdown (`.md`, `.markdown` or `.mdx`). */
export function isMarkdownName(name: string): boolean {
  return MARKDOWN.test(name);
}

/** A subfolder as typed ("/notes\\ideas/ ") as a clean relative path ("notes/ideas"). */
export function cleanSubfolder(typed: string): string {
  return typed
    .replace(/\\/g, "/")
    .split("/")
    .map((part) => part.trim())
    .filter((part) => part !== "" && part !== ".")
    .join("/");
}

/** The root-relative path of `file` in the subfolder `sub` (as typed) of `folder`. */
export function filePath(folder: string, sub: string, file: string): string {
  const dir = cleanSubfolder(sub);
  return dir ? `${folder}/${dir}/${file}` : `${folder}/${file}`;
}
