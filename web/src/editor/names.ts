//! What a `[[wikilink]]` writes for a path: the path without its Markdown extension. (The
//! shortest unique name of each document is the server's: `GET /api/complete`.) Pure.

const MARKDOWN_EXT = /\.(md|markdown|mdx)$/i;

/** A path inside a folder without its Markdown extension: what a wikilink writes. */
export function linkTarget(path: string): string {
  return path.replace(MARKDOWN_EXT, "");
}
