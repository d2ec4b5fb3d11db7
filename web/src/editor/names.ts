//! The shortest name a `[[wikilink]]` can use for each document of a folder: the file name
//! without its Markdown extension when no other document shares it, else with as many parent
//! directories as it takes to tell it apart (the server resolves a name by its trailing path
//! segments, ignoring case). Pure: it knows paths, nothing about the editor.

const MARKDOWN_EXT = /\.(md|markdown|mdx)$/i;

/** A path inside a folder without its Markdown extension: what a wikilink writes. */
export function linkTarget(path: string): string {
  return path.replace(MARKDOWN_EXT, "");
}

/**
 * The shortest unique wikilink name of each path (paths inside one folder, `/`-separated).
 *
 * A name finds a document when it equals, or is a `/`-separated suffix of, that document's path
 * without extension, ignoring case. A document whose every suffix also finds another (`x.md`
 * beside `a/x.md`) gets its whole path, which the server matches exactly before any name.
 */
export function shortestNames(paths: readonly string[]): Map<string, string> {
  const targets = paths.map((path) => ({ path, parts: linkTarget(path).split("/") }));
  // How many documents each lowercased suffix finds.
  const counts = new Map<string, number>();
  for (const { parts } of targets) {
    for (let i = 0; i < parts.length; i++) {
      const suffix = parts.slice(i).join("/").toLowerCase();
      counts.set(suffix, (counts.get(suffix) ?? 0) + 1);
    }
  }
  const names = new Map<string, string>();
  for (const { path, parts } of targets) {
    let name = parts.join("/");
    for (let i = parts.length - 1; i >= 0; i--) {
      const suffix = parts.slice(i).join("/");
      if (counts.get(suffix.toLowerCase()) === 1) {
        name = suffix;
        break;
      }
    }
    names.set(path, name);
  }
  return names;
}
