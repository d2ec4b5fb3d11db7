//! Settings → Folders: a table of the docs directory's top-level folders (title and badges, what
//! they hold, whether agents reach them, and their actions), the warnings about them, and the
//! Markdown loose outside every folder, which is never indexed.
import { useState } from "react";
import { Bot, FileText, FolderPlus, Pencil, Plug, PlugZap, TextCursorInput, Trash2, User } from "lucide-react";
import { useFolders, useStatus, useWritable } from "../../api/hooks";
import type { Folder } from "../../api/client";
import { Button, IconButton } from "../../components/ui/button";
import { Badge, Empty, ErrorCard, Skeletons } from "../../components/ui/states";
import { plural } from "../../lib/time";
import { CreateFolderDialog } from "../../components/CreateFolderDialog";
import { DeleteFolderDialog } from "./DeleteFolderDialog";
import { EditFolderDialog } from "./EditFolderDialog";
import { joinTitles, lowFloorFolders, unrelatedScore } from "./folders";
import { LooseFiles } from "./LooseFiles";
import { McpConfigDialog } from "./McpConfigDialog";
import { ListTable, Note, type Column } from "./parts";
import { RenameFolderDialog } from "./RenameFolderDialog";

type Action = "mcp" | "edit" | "rename" | "delete";

const FOLDER_COLUMNS: readonly Column[] = [{ label: "Folder" }, { label: "Documents", hideBelow: "sm" }, { label: "Agents", hideBelow: "md" }, { label: "Actions", actions: true }];

export function FoldersTab() {
  const folders = useFolders();
  const status = useStatus();
  const writable = useWritable();
  const [creating, setCreating] = useState(false);
  const [open, setOpen] = useState<{ action: Action; folder: Folder } | null>(null);
  const dialog = (action: Action) => (open?.action === action ? open.folder : null);
  const close = (next: boolean) => !next && setOpen(null);

  const list = folders.data?.folders ?? [];
  const unrelated = unrelatedScore(status.data);
  const low = lowFloorFolders(list, unrelated);
  const folderErrors = Object.entries(status.data?.settings.folder_errors ?? {});

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-start gap-3">
        <p className="min-w-0 flex-1 text-sm text-zinc-600 dark:text-zinc-400">
          Top-level folders of the docs directory. Each has its own search, and its own MCP address while MCP is on for it.
        </p>
        {writable && (
          <Button variant="primary" onClick={() => setCreating(true)}>
            <FolderPlus className="size-4" aria-hidden /> Create folder
          </Button>
        )}
      </div>

      {list.length > 0 && !list.some((f) => f.mcp) && <Note tone="info">MCP is off in every folder, so agents see nothing until one is turned on.</Note>}
      {low.length > 0 && (
        <Note>
          {joinTitles(low.map((f) => f.title))}: the minimum score is too low. At or below {unrelated}, what unrelated prompts reach with this embedder, the hook injects documents that do not answer.
        </Note>
      )}
      {folderErrors.map(([name, error]) => (
        <Note key={name}>
          {name}: {error}. It runs with the defaults (titled by its name, MCP off) until its .ragdown.json is fixed.
        </Note>
      ))}

      {folders.isPending ? (
        <Skeletons rows={4} label="Loading folders" />
      ) : folders.isError ? (
        <ErrorCard error={folders.error} onRetry={() => void folders.refetch()} />
      ) : list.length === 0 ? (
        <Empty title="No folders yet">A folder is a top-level directory of the docs directory.{writable ? " Create one to start." : ""}</Empty>
      ) : (
        <ListTable columns={FOLDER_COLUMNS}>
          {list.map((f) => (
            <FolderRow key={f.name} folder={f} writable={writable} onAction={(action) => setOpen({ action, folder: f })} />
          ))}
        </ListTable>
      )}

      <LooseFiles files={folders.data?.loose_files ?? []} writable={writable} />

      <CreateFolderDialog open={creating} onOpenChange={setCreating} onCreated={() => undefined} />
      <McpConfigDialog folder={dialog("mcp")} onOpenChange={close} />
      <EditFolderDialog folder={dialog("edit")} onOpenChange={close} />
      <RenameFolderDialog folder={dialog("rename")} onOpenChange={close} />
      <DeleteFolderDialog folder={dialog("delete")} onOpenChange={close} />
    </div>
  );
}

function FolderRow({ folder: f, writable, onAction }: { folder: Folder; writable: boolean; onAction: (a: Action) => void }) {
  return (
    <tr className="align-top">
      <td className="px-4 py-3">
        <div className="flex flex-wrap items-center gap-2">
          <span className="font-medium">{f.title}</span>
          {f.mcp ? (
            <Badge tone="accent">
              <Plug className="size-3" aria-hidden /> MCP
            </Badge>
          ) : (
            <Badge>
              <User className="size-3" aria-hidden /> Human-only
            </Badge>
          )}
          {f.created_by && (
            <Badge tone="amber" title={`Made by ${f.created_by}`}>
              <Bot className="size-3" aria-hidden /> Made by an agent
            </Badge>
          )}
        </div>
        <div className="mt-0.5 font-mono text-xs text-zinc-500 dark:text-zinc-400">{f.name}</div>
        <div className="mt-0.5 text-xs text-zinc-500 dark:text-zinc-400 sm:hidden">
          {plural(f.files, "file")} · {plural(f.chunks, "chunk")}
        </div>
      </td>
      <td className="hidden px-4 py-3 whitespace-nowrap text-zinc-700 sm:table-cell dark:text-zinc-300">
        <div className="flex items-center gap-1.5">
          <FileText className="size-3.5 text-zinc-500 dark:text-zinc-400" aria-hidden /> {plural(f.files, "file")}
        </div>
        <div className="text-xs text-zinc-500 dark:text-zinc-400">{plural(f.chunks, "chunk")}</div>
      </td>
      <td className="hidden px-4 py-3 text-zinc-700 md:table-cell dark:text-zinc-300">
        {f.mcp ? (
          <span>
            On MCP at <code className="font-mono text-xs">{f.mcp_path}</code>
          </span>
        ) : (
          <span className="text-zinc-500 dark:text-zinc-400">Human-only</span>
        )}
      </td>
      <td className="px-2 py-2">
        <div className="flex justify-end gap-0.5">
          <IconButton label={`Copy MCP config for ${f.title}`} onClick={() => onAction("mcp")}>
            <PlugZap aria-hidden />
          </IconButton>
          <IconButton label={`Edit ${f.title}`} onClick={() => onAction("edit")}>
            <Pencil aria-hidden />
          </IconButton>
          {writable && (
            <>
              <IconButton label={`Rename ${f.title}`} onClick={() => onAction("rename")}>
                <TextCursorInput aria-hidden />
              </IconButton>
              <IconButton label={`Delete ${f.title}`} onClick={() => onAction("delete")} className="hover:bg-red-50! hover:text-red-700! dark:hover:bg-red-950/40! dark:hover:text-red-300!">
                <Trash2 aria-hidden />
              </IconButton>
            </>
          )}
        </div>
      </td>
    </tr>
  );
}
