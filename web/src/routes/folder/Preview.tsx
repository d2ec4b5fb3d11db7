//! The preview pane: one document as it is on disk (`GET /api/doc`, polled), with what the index
//! knows of it (its `info`: modified, size, chunks, provenance), its actions, the rendered
//! Markdown scrolled to the URL's heading, and its backlinks and outgoing links.
import { useEffect, useMemo, useRef } from "react";
import { Link, useLocation } from "@tanstack/react-router";
import { FileQuestion, History } from "lucide-react";
import { ApiError, type Folder } from "../../api/client";
import { useDoc } from "../../api/hooks";
import { Button } from "../../components/ui/button";
import { ErrorCard, Skeleton } from "../../components/ui/states";
import { rootPath, splitPath } from "../../lib/paths";
import { Markdown } from "../../markdown/Markdown";
import { readFrontMatter } from "../../markdown/frontmatter";
import { useScrollToHash } from "../../markdown/headings";
import { DocHeader } from "./preview/DocHeader";
import { Links } from "./preview/Links";

function Loading() {
  return (
    <div role="status" aria-label="Loading the document" className="space-y-3">
      <Skeleton className="h-3 w-40" />
      <Skeleton className="h-6 w-72" />
      <Skeleton className="h-3 w-56" />
      <div className="space-y-2 pt-6">
        {Array.from({ length: 8 }, (_, i) => (
          <Skeleton key={i} className={`h-4 ${i % 3 === 2 ? "w-3/5" : "w-full"}`} />
        ))}
      </div>
    </div>
  );
}

/** A document that is not on disk: back to the folder, or its History, where a deletion can be undone. */
function Gone({ folder, path, onHistory }: { folder: Folder; path: string; onHistory: () => void }) {
  return (
    <div className="mx-auto max-w-md py-12 text-center">
      <FileQuestion className="mx-auto size-8 text-zinc-500 dark:text-zinc-400" aria-hidden />
      <p className="mt-3 text-base font-medium">This document is not there any more</p>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        <code className="font-mono text-[0.9em] break-all">{splitPath(path).doc}</code> was moved, renamed or deleted since the link was made.
      </p>
      <div className="mt-4 flex flex-wrap justify-center gap-2">
        <Link
          to="/f/$folder"
          params={{ folder: folder.name }}
          className="inline-flex h-9 items-center rounded-md border border-zinc-300 px-3.5 text-sm font-medium hover:bg-zinc-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
        >
          Back to {folder.title}
        </Link>
        <Button onClick={onHistory}>
          <History className="size-4" aria-hidden /> Its history
        </Button>
      </div>
    </div>
  );
}

/**
 * The document at `path` in `folder`. `path` is root-relative (`<folder>/<path inside>`); a path
 * inside the folder is taken too.
 */
export function Preview({ folder, path, onEdit, onHistory }: { folder: Folder; path: string; onEdit: () => void; onHistory: () => void }) {
  const root = path.startsWith(`${folder.name}/`) ? path : rootPath(folder.name, path);
  const doc = useDoc(root);
  const info = doc.data?.info ?? undefined;
  const text = doc.data?.text;
  const front = useMemo(() => readFrontMatter(text ?? ""), [text]);
  const titles = useMemo(() => new Map(Object.entries(doc.data?.titles ?? {})), [doc.data?.titles]);
  const hash = useLocation({ select: (l) => l.hash });
  // Each navigation's own key: a second click on the same hit scrolls to its heading again.
  const visit = useLocation({ select: (l) => l.state.__TSR_key ?? l.state.key ?? "" });
  const pane = useRef<HTMLDivElement>(null);

  // A new document starts at its top, unless the URL names a heading (scrolled to below).
  useEffect(() => {
    if (!hash) pane.current?.scrollTo({ top: 0 });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the document changes
  }, [root]);
  useScrollToHash(hash, text !== undefined, `${root}\n${visit}`);

  let body;
  if (doc.isPending) body = <Loading />;
  else if (doc.error instanceof ApiError && doc.error.status === 404) body = <Gone folder={folder} path={root} onHistory={onHistory} />;
  // A failed refetch keeps what was read before on screen; only a first failure shows the error.
  else if (!doc.data) body = <ErrorCard error={doc.error} onRetry={() => void doc.refetch()} />;
  else {
    const data = doc.data;
    body = (
      <>
        <DocHeader path={root} doc={data} info={info} front={front} titles={titles} onEdit={onEdit} onHistory={onHistory} />
        <Markdown text={data.text} from={root} />
        <Links path={root} text={data.text} />
      </>
    );
  }

  return (
    <div ref={pane} className="h-full overflow-y-auto">
      <article aria-label="Document preview" className="mx-auto max-w-5xl px-5 py-5 sm:px-8">
        {body}
      </article>
    </div>
  );
}
