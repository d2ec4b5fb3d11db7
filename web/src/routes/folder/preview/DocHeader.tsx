//! The preview's header: the path, the title, the description, "<modified ago> · <size> · N lines
//! · N chunks", who wrote it when an agent did, the actions, the chips (tags, aliases,
//! provenance) and a notice when other documents supersede this one.
import type { ReactNode } from "react";
import { Link } from "@tanstack/react-router";
import { Bot, History } from "lucide-react";
import type { Doc, DocInfo } from "../../../api/client";
import { docTitle } from "../../../markdown/docTitle";
import { splitPath } from "../../../lib/paths";
import { ago, plural, size } from "../../../lib/time";
import type { FrontMatter } from "../../../markdown/frontmatter";
import { DocLink, useListSearch } from "../../../markdown/resolved";
import { DocActions } from "./DocActions";

/** A front-matter date as "3 d ago", or as written when it is no date. */
function dated(written: string): string {
  const ms = Date.parse(written);
  return Number.isNaN(ms) ? written : ago(ms);
}

/** When an agent wrote it: the front matter's own date, else when the file last changed. */
function whenWritten(front: FrontMatter, mtime: number | undefined): string {
  if (front.created) return dated(front.created);
  if (front.updated) return `updated ${dated(front.updated)}`;
  return mtime ? `changed ${ago(mtime)}` : "";
}

/** Front-matter text with its `code spans` shown as code, as people write them there. */
function Inline({ text }: { text: string }) {
  return text.split(/(`[^`]+`)/).map((part, i) =>
    part.length > 2 && part.startsWith("`") && part.endsWith("`") ? (
      <code key={i} className="rounded bg-zinc-100 px-1 font-mono text-[0.9em] dark:bg-zinc-800">
        {part.slice(1, -1)}
      </code>
    ) : (
      part
    ),
  );
}

function Chip({ name, children }: { name: string; children: ReactNode }) {
  return (
    <span className="inline-flex max-w-full items-center gap-1 rounded-md border border-zinc-200 px-1.5 py-0.5 text-xs dark:border-zinc-700">
      <span className="text-zinc-500 dark:text-zinc-400">{name}</span>
      <span className="truncate text-zinc-800 dark:text-zinc-200">{children}</span>
    </span>
  );
}

function Superseded({ by, titles }: { by: string[]; titles: Map<string, string> }) {
  return (
    <div role="note" className="mt-3 flex items-start gap-2 rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-700/60 dark:bg-amber-500/10 dark:text-amber-100">
      <History className="mt-0.5 size-4 shrink-0" aria-hidden />
      <p>
        Superseded by{" "}
        {by.map((path, i) => (
          <span key={path}>
            {i > 0 && ", "}
            <DocLink path={path} className="font-medium underline underline-offset-2 hover:no-underline">
              {titles.get(path) ?? splitPath(path).doc}
            </DocLink>
          </span>
        ))}
        . Searches leave this document out.
      </p>
    </div>
  );
}

export interface DocHeaderProps {
  /** Root-relative. */
  path: string;
  doc: Doc;
  info: DocInfo | undefined;
  front: FrontMatter;
  /** Titles of the folder's documents by root-relative path, for links. */
  titles: Map<string, string>;
  onEdit: () => void;
  /** Opens the document's History. */
  onHistory: () => void;
}

export function DocHeader({ path, doc, info, front, titles, onEdit, onHistory }: DocHeaderProps) {
  const { folder, doc: inside } = splitPath(path);
  const { sort } = useListSearch();
  const description = info?.description || front.description;
  const createdBy = info?.created_by || front.createdBy;
  const session = info?.session || front.session;
  const bytes = info?.size ?? new TextEncoder().encode(doc.text).length;
  const facts = [
    info ? ago(info.mtime_ms) : null,
    size(bytes),
    plural(doc.total_lines, "line"),
    info ? plural(info.chunks, "chunk") : "not indexed yet",
  ].filter(Boolean);
  const superseded = doc.superseded_by ?? info?.superseded_by ?? [];
  const written = whenWritten(front, info?.mtime_ms);

  return (
    <header className="mb-6">
      {/* Narrow: the actions sit above the title, so the title keeps the width. */}
      <div className="flex flex-col-reverse gap-1 sm:flex-row sm:items-start sm:gap-4">
        <div className="min-w-0 flex-1">
          <p className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400" title={path}>
            {inside}
          </p>
          <h1 className="mt-1 text-xl font-semibold tracking-tight break-words">{docTitle(path, front, doc.text, info?.title)}</h1>
          {description && (
            <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-300">
              <Inline text={description} />
            </p>
          )}
          <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">{facts.join(" · ")}</p>
          {createdBy && (
            <p className="mt-1 flex items-start gap-1.5 text-sm text-violet-700 dark:text-violet-300">
              <Bot className="mt-0.5 size-4 shrink-0" aria-hidden />
              <span>
                Written by an agent with {createdBy}
                {session && (
                  <>
                    {" "}
                    <span className="whitespace-nowrap">· session {session}</span>
                  </>
                )}
                {written && (
                  <>
                    {" "}
                    <span className="whitespace-nowrap">· {written}</span>
                  </>
                )}
              </span>
            </p>
          )}
        </div>
        <DocActions path={path} onEdit={onEdit} onHistory={onHistory} />
      </div>
      {(doc.tags.length > 0 || doc.aliases.length > 0 || createdBy || session) && (
        <ul className="mt-3 flex flex-wrap gap-1.5" aria-label="Tags and properties">
          {doc.tags.map((tag) => (
            <li key={`#${tag}`}>
              <Link
                to="/f/$folder"
                params={{ folder }}
                search={{ doc: inside, tag, sort }}
                aria-label={`Show documents tagged #${tag}`}
                title={`Show documents tagged #${tag}`}
                className="inline-flex rounded-md bg-zinc-100 px-1.5 py-0.5 text-xs font-medium text-zinc-700 hover:bg-accent-100 hover:text-accent-700 dark:bg-zinc-800 dark:text-zinc-200 dark:hover:bg-accent-500/20 dark:hover:text-accent-100"
              >
                #{tag}
              </Link>
            </li>
          ))}
          {doc.aliases.map((alias) => (
            <li key={`alias ${alias}`}>
              <Chip name="alias">{alias}</Chip>
            </li>
          ))}
          {createdBy && (
            <li>
              <Chip name="created_by">{createdBy}</Chip>
            </li>
          )}
          {session && (
            <li>
              <Chip name="session">{session}</Chip>
            </li>
          )}
        </ul>
      )}
      {superseded.length > 0 && <Superseded by={superseded} titles={titles} />}
    </header>
  );
}
