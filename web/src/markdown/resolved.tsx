//! Links and images that the server resolves (`GET /api/resolve`, cached 30 s): wikilinks,
//! embeds and relative Markdown links and images. A document found stays in the app, any other
//! file is an attachment opened through `/api/file`, a miss is drawn broken, and when the server
//! failed the link resolves again on click.
import { createContext, useContext, type ReactNode } from "react";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { useQueryClient } from "@tanstack/react-query";
import { FileText, ImageOff, Paperclip } from "lucide-react";
import { resolveQuery, useResolve } from "../api/hooks";
import { fileUrl, type Resolved } from "../api/client";
import { splitPath } from "../lib/paths";
import type { FolderSearch } from "../lib/routeSearch";
import { messageOf, notify } from "../lib/toast";
import { headingId, hashTarget } from "./headings";
import { isMarkdown } from "./links";
import { openAttachment, useBlobUrl } from "./useBlobUrl";

/** The root-relative path of the document being rendered, which links are relative to. */
export const FromContext = createContext("");
export const useFrom = () => useContext(FromContext);

const linkClass = "text-accent-700 underline decoration-accent-500/40 underline-offset-2 hover:decoration-accent-500 dark:text-indigo-300 dark:decoration-indigo-300/40";
const brokenClass = "cursor-help rounded-sm border-b border-dashed border-red-500 text-red-700 no-underline dark:border-red-400 dark:text-red-300";

/** The folder list's own URL state (tag and sort), which a link to another document keeps. */
export function useListSearch(): Pick<FolderSearch, "tag" | "sort"> {
  const { tag, sort } = useSearch({ strict: false }) as FolderSearch;
  return { tag, sort };
}

/** Where an in-app link to a resolved document goes: its folder, its path inside, its heading. */
export function docTarget(resolved: Resolved): { folder: string; doc: string; hash: string | undefined } {
  const { folder, doc } = splitPath(resolved.path);
  return { folder, doc, hash: resolved.anchor ? headingId(resolved.anchor) : undefined };
}

/** An in-app link to a document of a folder (keeping the list's tag and sort). */
export function DocLink({ path, hash, className, children, title }: { path: string; hash?: string | undefined; className?: string; children: ReactNode; title?: string }) {
  const { folder, doc } = splitPath(path);
  const current = useListSearch();
  const here = useFrom() === path;
  return (
    <Link
      to="/f/$folder"
      params={{ folder }}
      search={{ doc, tag: current.tag, sort: current.sort }}
      hash={hash}
      title={title}
      className={className ?? linkClass}
      // The same document at the same hash is no navigation: scroll there anyway.
      onClick={() => here && hash && hashTarget(hash)?.scrollIntoView({ block: "start" })}
    >
      {children}
    </Link>
  );
}

/** A link to a heading of this document. */
export function AnchorLink({ id, children }: { id: string; children: ReactNode }) {
  return (
    <DocLink path={useFrom()} hash={id}>
      {children}
    </DocLink>
  );
}

/** A link to an attachment: fetched with the token on click, then opened or downloaded. */
export function AttachmentLink({ path, children }: { path: string; children: ReactNode }) {
  const client = useQueryClient();
  return (
    <a
      href={fileUrl(path)}
      className={linkClass}
      onClick={(e) => {
        e.preventDefault();
        openAttachment(client, path).catch((err: unknown) => notify.fail(`Could not open ${path}: ${messageOf(err)}`));
      }}
    >
      <Paperclip className="mr-0.5 inline size-3.5 align-[-2px]" aria-hidden />
      {children}
    </a>
  );
}

/** Goes where `resolved` points: a document in the app, any other file as an attachment. */
function ResolvedLink({ resolved, children }: { resolved: Resolved; children: ReactNode }) {
  if (!isMarkdown(resolved.path)) return <AttachmentLink path={resolved.path}>{children}</AttachmentLink>;
  const { hash } = docTarget(resolved);
  return (
    <DocLink path={resolved.path} hash={hash}>
      {children}
    </DocLink>
  );
}

/** "Nothing in this folder matches …", drawn dashed and red, and named broken for screen readers. */
export function BrokenLink({ written, children }: { written: string; children: ReactNode }) {
  return (
    <span className={brokenClass} title={`Nothing in this folder matches ${written}`}>
      {children}
      <span className="sr-only"> (broken link)</span>
    </span>
  );
}

/** A link the server could not resolve just now (it failed): resolved again when clicked. */
function LateLink({ target, written, children }: { target: string; written: string; children: ReactNode }) {
  const from = useFrom();
  const client = useQueryClient();
  const navigate = useNavigate();
  const list = useListSearch();
  const follow = async () => {
    try {
      const resolved = await client.fetchQuery({ ...resolveQuery(from, target), staleTime: 0 });
      if (!resolved) return notify.fail(`Nothing in this folder matches ${written}`);
      if (!isMarkdown(resolved.path)) return await openAttachment(client, resolved.path);
      const { folder, doc, hash } = docTarget(resolved);
      await navigate({ to: "/f/$folder", params: { folder }, search: { ...list, doc }, hash });
    } catch (err) {
      notify.fail(`Could not follow ${written}: ${messageOf(err)}`);
    }
  };
  return (
    <a
      href="#"
      className={linkClass}
      onClick={(e) => {
        e.preventDefault();
        void follow();
      }}
    >
      {children}
    </a>
  );
}

/**
 * A link to `target` (what `/api/resolve` is asked) in this folder; `written` is how the document
 * wrote it, for the broken link's tooltip.
 */
export function FolderLink({ target, written, children }: { target: string; written: string; children: ReactNode }) {
  const { data, isPending, isError } = useResolve(useFrom(), target);
  if (isPending) return <span className="text-accent-700/70 underline decoration-dotted underline-offset-2 dark:text-indigo-300/70">{children}</span>;
  if (isError) return <LateLink target={target} written={written}>{children}</LateLink>;
  if (!data) return <BrokenLink written={written}>{children}</BrokenLink>;
  return <ResolvedLink resolved={data}>{children}</ResolvedLink>;
}

/** The dashed box an image that cannot be shown leaves. */
export function MissingImage({ alt }: { alt: string }) {
  return (
    <span role="img" aria-label={`missing image: ${alt}`} className="not-prose inline-flex items-center gap-1.5 rounded border border-dashed border-zinc-400 px-2 py-1 text-xs text-zinc-500 dark:border-zinc-600 dark:text-zinc-400">
      <ImageOff className="size-3.5" aria-hidden />
      missing image: {alt}
    </span>
  );
}

function BlobImage({ path, alt, title, width, height }: { path: string; alt: string; title?: string | undefined; width?: number | undefined; height?: number | undefined }) {
  const blob = useBlobUrl(path);
  if (blob.error) return <MissingImage alt={alt} />;
  if (!blob.url) return <span aria-busy className="inline-block h-24 w-40 animate-pulse rounded bg-zinc-100 align-middle dark:bg-zinc-800" />;
  return <img src={blob.url} alt={alt} title={title} width={width} height={height} className="rounded" />;
}

/** An image in the folder (a relative `![](img/a.png)` or an embed), shown from a blob URL. */
export function FolderImage({ target, alt, title, width, height }: { target: string; alt: string; title?: string | undefined; width?: number | undefined; height?: number | undefined }) {
  const { data, isPending, isError } = useResolve(useFrom(), target);
  if (isPending) return <span aria-busy className="inline-block h-24 w-40 animate-pulse rounded bg-zinc-100 align-middle dark:bg-zinc-800" />;
  if (isError || !data) return <MissingImage alt={alt || target} />;
  return <BlobImage path={data.path} alt={alt} title={title} width={width} height={height} />;
}

/** An embed of something that is not an image (`![[Note]]`): a link, marked as an embed. */
export function EmbedLink({ target, written, children }: { target: string; written: string; children: ReactNode }) {
  return (
    <span className="inline-flex items-baseline gap-1">
      <FileText className="size-3.5 self-center text-zinc-500 dark:text-zinc-400" aria-hidden />
      <FolderLink target={target} written={written}>
        {children}
      </FolderLink>
    </span>
  );
}
