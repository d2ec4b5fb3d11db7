//! PLACEHOLDER, replaced by the folder page work.
export function FolderPage() {
  return <p className="p-6">Folder</p>;
}
