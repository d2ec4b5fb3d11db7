//! PLACEHOLDER, replaced by the preview work.
import type { Folder } from "../../api/client";
export function Preview(_props: { folder: Folder; path: string; onEdit: () => void }) {
  return null;
}
