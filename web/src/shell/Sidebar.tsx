//! The sidebar (14 rem, medium screens up): brand, folders (MCP or human-only, with file counts),
//! the index status, Settings, Lock, and the theme toggle.
import { useState } from "react";
import { Link, useNavigate, useRouterState } from "@tanstack/react-router";
import { BookOpen, Lock, Plug, Plus, Settings, User } from "lucide-react";
import { clsx } from "clsx";
import { useFolders, useStatus, useWritable } from "../api/hooks";
import type { Folder } from "../api/client";
import { IconButton } from "../components/ui/button";
import { ErrorCard, Skeletons } from "../components/ui/states";
import { plural } from "../lib/time";
import { IndexStatus } from "./IndexStatus";
import { ThemeToggle } from "./ThemeToggle";
import { lock } from "./lock";
import { CreateFolderDialog } from "../components/CreateFolderDialog";

export function folderLabel(f: Folder): string {
  return `${f.title}: ${plural(f.files, "file")}, ${f.mcp ? "on MCP" : "human-only"}`;
}

export function FolderIcon({ mcp, className = "size-4" }: { mcp: boolean; className?: string }) {
  return mcp ? <Plug className={className} aria-hidden /> : <User className={className} aria-hidden />;
}

export function Brand() {
  return (
    <Link to="/" className="flex items-center gap-2 font-semibold tracking-tight">
      <BookOpen className="size-5 text-accent-600" aria-hidden />
      ragdown
    </Link>
  );
}

export function Sidebar() {
  const folders = useFolders();
  const status = useStatus();
  const writable = useWritable();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const current = pathname.startsWith("/f/") ? decodeURIComponent(pathname.slice(3).split("/")[0] ?? "") : undefined;

  return (
    <aside className="hidden w-56 shrink-0 flex-col border-r border-zinc-200 bg-zinc-50 md:flex dark:border-zinc-800 dark:bg-zinc-900/50">
      <div className="px-4 pt-4 pb-3">
        <Brand />
      </div>
      <nav aria-label="Folders" className="min-h-0 flex-1 overflow-y-auto px-2">
        <div className="flex items-center justify-between px-2 py-1">
          <h2 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">Folders</h2>
          {writable && (
            <IconButton label="Create folder" onClick={() => setCreating(true)} className="size-6">
              <Plus />
            </IconButton>
          )}
        </div>
        {folders.isPending ? (
          <Skeletons rows={3} label="Loading folders" />
        ) : folders.isError ? (
          <ErrorCard compact error={folders.error} onRetry={() => void folders.refetch()} />
        ) : folders.data.folders.length === 0 ? (
          <p className="px-2 py-1 text-sm text-zinc-500 dark:text-zinc-400">No folders yet.</p>
        ) : (
          <ul className="space-y-0.5">
            {folders.data.folders.map((f) => (
              <li key={f.name}>
                <Link
                  to="/f/$folder"
                  params={{ folder: f.name }}
                  title={folderLabel(f)}
                  aria-current={current === f.name ? "page" : undefined}
                  className={clsx(
                    "flex items-center gap-2 rounded-md px-2 py-1.5 text-sm",
                    current === f.name ? "bg-zinc-200 font-medium text-zinc-900 dark:bg-zinc-800 dark:text-zinc-50" : "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800/60",
                  )}
                >
                  <FolderIcon mcp={f.mcp} className={clsx("size-4 shrink-0", f.mcp ? "text-accent-600 dark:text-accent-500" : "text-zinc-500 dark:text-zinc-400")} />
                  {/* The name is the full sentence; the visible title and count are its short form. */}
                  <span className="sr-only">{folderLabel(f)}</span>
                  <span aria-hidden className="min-w-0 flex-1 truncate">
                    {f.title}
                  </span>
                  <span aria-hidden className="text-xs text-zinc-600 tabular-nums dark:text-zinc-400">
                    {f.files}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </nav>
      <div className="space-y-3 border-t border-zinc-200 p-3 dark:border-zinc-800">
        <IndexStatus />
        <div className="flex items-center gap-1">
          <Link
            to="/settings"
            className={clsx(
              "flex flex-1 items-center gap-2 rounded-md px-2 py-1.5 text-sm",
              pathname === "/settings" ? "bg-zinc-200 font-medium dark:bg-zinc-800" : "hover:bg-zinc-100 dark:hover:bg-zinc-800/60",
            )}
          >
            <Settings className="size-4" aria-hidden /> Settings
          </Link>
          {status.data?.auth_required && (
            <IconButton label="Lock: forget the token" onClick={lock}>
              <Lock />
            </IconButton>
          )}
        </div>
        <ThemeToggle />
      </div>
      <CreateFolderDialog
        open={creating}
        onOpenChange={setCreating}
        onCreated={(name) => void navigate({ to: "/f/$folder", params: { folder: name } })}
      />
    </aside>
  );
}
