//! PLACEHOLDER, replaced by the Settings work: the Create folder dialog.
export function CreateFolderDialog(_props: { open: boolean; onOpenChange: (open: boolean) => void; onCreated: (name: string) => void }) {
  return null;
}
