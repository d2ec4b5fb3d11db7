//! PLACEHOLDER, replaced by the editor work. Loaded lazily: `lazy(() => import("./Editor"))`.
import type { Folder } from "../../api/client";
export default function Editor(_props: { folder: Folder; path: string; onClose: () => void }) {
  return null;
}
