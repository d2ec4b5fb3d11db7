//! Home `/`: opens the folder last opened in this browser (or the first), replacing itself in
//! the history; with no folders, offers to create one.
import { useEffect, useState } from "react";
import { useNavigate } from "@tanstack/react-router";
import { FolderPlus } from "lucide-react";
import { useFolders, useWritable } from "../api/hooks";
import { Button } from "../components/ui/button";
import { Empty, ErrorCard, Skeletons } from "../components/ui/states";
import { useTitle } from "../lib/title";
import { CreateFolderDialog } from "../components/CreateFolderDialog";

export const LAST_FOLDER_KEY = "ragdown.folder";

export function Home() {
  const folders = useFolders();
  const writable = useWritable();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  useTitle(undefined);

  useEffect(() => {
    const list = folders.data?.folders;
    if (!list?.length) return;
    const last = localStorage.getItem(LAST_FOLDER_KEY);
    const target = list.find((f) => f.name === last) ?? list[0]!;
    void navigate({ to: "/f/$folder", params: { folder: target.name }, replace: true });
  }, [folders.data, navigate]);

  if (folders.isPending) return <Skeletons rows={4} label="Loading folders" />;
  if (folders.isError)
    return (
      <div className="p-6">
        <ErrorCard error={folders.error} onRetry={() => void folders.refetch()} />
      </div>
    );
  if (folders.data.folders.length > 0) return null;
  return (
    <Empty title="No folders yet">
      <p>A folder is a top-level directory of the docs directory, with its own search and MCP address.</p>
      {writable && (
        <Button variant="primary" className="mt-4" onClick={() => setCreating(true)}>
          <FolderPlus className="size-4" aria-hidden /> Create folder
        </Button>
      )}
      <CreateFolderDialog open={creating} onOpenChange={setCreating} onCreated={(name) => void navigate({ to: "/f/$folder", params: { folder: name } })} />
    </Empty>
  );
}
