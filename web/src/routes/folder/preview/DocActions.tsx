//! The preview's actions, as icon buttons: Copy path, Edit, Rename or move, History, Download .md
//! and Delete document; the writes only while the server is writable.
import { useEffect, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Check, Copy, Download, FolderInput, History, Pencil, Trash2 } from "lucide-react";
import { useWritable } from "../../../api/hooks";
import { IconButton } from "../../../components/ui/button";
import { basename } from "../../../lib/paths";
import { messageOf, notify } from "../../../lib/toast";
import { blobQuery, downloadBlob } from "../../../markdown/useBlobUrl";
import { DeleteDoc } from "./DeleteDoc";
import { RenameDoc } from "./RenameDoc";

const COPIED_MS = 1_500;

function CopyPath({ path }: { path: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), COPIED_MS);
    return () => clearTimeout(t);
  }, [copied]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(path);
      setCopied(true);
    } catch (err) {
      notify.fail(`Could not copy the path: ${messageOf(err)}`);
    }
  };
  return (
    <IconButton label={copied ? "Copied" : "Copy path"} onClick={() => void copy()}>
      {copied ? <Check className="text-emerald-600 dark:text-emerald-400" aria-hidden /> : <Copy aria-hidden />}
    </IconButton>
  );
}

/** The actions on the document at `path` (root-relative). */
export function DocActions({ path, onEdit, onHistory }: { path: string; onEdit: () => void; onHistory: () => void }) {
  const writable = useWritable();
  const client = useQueryClient();
  const [renaming, setRenaming] = useState(false);
  const [deleting, setDeleting] = useState(false);

  const download = async () => {
    try {
      downloadBlob(await client.fetchQuery(blobQuery(path)), basename(path));
    } catch (err) {
      notify.fail(`Could not download ${path}: ${messageOf(err)}`);
    }
  };

  return (
    <div className="flex shrink-0 items-center gap-0.5 self-end sm:self-start" role="group" aria-label="Document actions">
      <CopyPath path={path} />
      {writable && (
        <IconButton label="Edit" onClick={onEdit}>
          <Pencil aria-hidden />
        </IconButton>
      )}
      {writable && (
        <IconButton label="Rename or move" onClick={() => setRenaming(true)}>
          <FolderInput aria-hidden />
        </IconButton>
      )}
      <IconButton label="History" onClick={onHistory}>
        <History aria-hidden />
      </IconButton>
      <IconButton label="Download .md" onClick={() => void download()}>
        <Download aria-hidden />
      </IconButton>
      {writable && (
        <IconButton label="Delete document" onClick={() => setDeleting(true)} className="hover:text-red-600 dark:hover:text-red-400">
          <Trash2 aria-hidden />
        </IconButton>
      )}
      {renaming && <RenameDoc path={path} open onOpenChange={setRenaming} />}
      <DeleteDoc path={path} open={deleting} onOpenChange={setDeleting} />
    </div>
  );
}
