//! A `DocInfo` for unit tests, with only what a test cares about spelled out.
import type { DocInfo } from "./client";

export function docInfo(path: string, fields: Partial<DocInfo> = {}): DocInfo {
  const name = path.slice(path.lastIndexOf("/") + 1).replace(/\.md$/, "");
  return { path, folder: path.split("/")[0]!, title: name, mtime_ms: 0, size: 1, chunks: 1, tags: [], aliases: [], superseded_by: [], ...fields };
}
