//! Paths: the API speaks root-relative paths (`<folder>/<path inside it>`); the URL's `?doc=` is
//! the path inside the folder.
export function rootPath(folder: string, doc: string): string {
  return `${folder}/${doc}`;
}

/** The path inside `folder` of a root-relative path. */
export function insidePath(folder: string, path: string): string {
  return path.startsWith(`${folder}/`) ? path.slice(folder.length + 1) : path;
}

/** Splits a root-relative path into its folder and the path inside it. */
export function splitPath(path: string): { folder: string; doc: string } {
  const i = path.indexOf("/");
  return i < 0 ? { folder: path, doc: "" } : { folder: path.slice(0, i), doc: path.slice(i + 1) };
}

/** The directory part of a path ("" at the top). */
export function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/** The last part of a path. */
export function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
