//! Under the document: its backlinks (`GET /api/backlinks`: the folder's documents that link
//! here, with their linking lines) beside its outgoing links (parsed from its text, each resolved
//! like a link in the body and shown as found or broken). Two columns, stacked when narrow.
import { useMemo, type ReactNode } from "react";
import { ArrowDownLeft, ArrowUpRight } from "lucide-react";
import { useBacklinks, useResolve } from "../../../api/hooks";
import { ErrorCard, Skeletons } from "../../../components/ui/states";
import { splitPath } from "../../../lib/paths";
import { findLinks, isMarkdown } from "../../../markdown/links";
import { AttachmentLink, BrokenLink, DocLink, docTarget, FromContext } from "../../../markdown/resolved";

function Section({ icon, title, count, children }: { icon: ReactNode; title: string; count?: string | undefined; children: ReactNode }) {
  return (
    <section aria-label={title} className="min-w-0">
      <h2 className="mb-2 flex items-center gap-1.5 text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
        {icon}
        {title}
        {count && <span className="font-normal tracking-normal normal-case">· {count}</span>}
      </h2>
      {children}
    </section>
  );
}

const none = "text-sm text-zinc-500 dark:text-zinc-400";
const rowLink = "font-medium text-zinc-900 hover:text-accent-700 hover:underline dark:text-zinc-100 dark:hover:text-indigo-300";

function Backlinks({ path }: { path: string }) {
  const { data, error, isPending, refetch } = useBacklinks(path);
  const list = data?.backlinks;
  return (
    <Section icon={<ArrowDownLeft className="size-3.5" aria-hidden />} title="Backlinks" count={list ? String(list.length) : undefined}>
      {isPending ? (
        <Skeletons rows={3} label="Loading backlinks" />
      ) : error ? (
        <ErrorCard compact error={error} onRetry={() => void refetch()} />
      ) : !list?.length ? (
        <p className={none}>No document in this folder links here.</p>
      ) : (
        <ul className="space-y-3">
          {list.map((b) => (
            <li key={b.path} className="min-w-0">
              <div className="flex min-w-0 items-baseline gap-1.5">
                <DocLink path={b.path} className={`${rowLink} truncate text-sm`}>
                  {b.title}
                </DocLink>
                <span className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400">{splitPath(b.path).doc}</span>
              </div>
              <ul className="mt-1 space-y-0.5 border-l border-zinc-200 pl-2 dark:border-zinc-800">
                {b.lines.map((l) => (
                  <li key={l.line} className="flex gap-2 text-xs text-zinc-600 dark:text-zinc-400">
                    <span className="w-8 shrink-0 text-right font-mono text-zinc-500 dark:text-zinc-400 tabular-nums" aria-label={`line ${l.line}`}>
                      {l.line}
                    </span>
                    <span className="min-w-0 truncate" title={l.text}>
                      {l.text.trim()}
                    </span>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

interface Outgoing {
  target: string;
  label: string;
  lines: number[];
}

/** One outgoing link: where it goes, once the server says, and where the document makes it. */
function OutgoingRow({ link, from }: { link: Outgoing; from: string }) {
  const { data, isPending, isError } = useResolve(from, link.target);
  let shown: ReactNode;
  let note = "";
  if (isPending) shown = <span className="text-zinc-500 dark:text-zinc-400">{link.label}</span>;
  else if (isError) {
    shown = <span className="text-zinc-500 dark:text-zinc-400">{link.label}</span>;
    note = "not resolved: the server failed";
  } else if (!data) {
    shown = <BrokenLink written={link.target}>{link.label}</BrokenLink>;
    note = "nothing matches";
  } else if (!isMarkdown(data.path)) {
    shown = (
      <AttachmentLink path={data.path}>
        <span className="font-mono text-xs">{splitPath(data.path).doc}</span>
      </AttachmentLink>
    );
  } else {
    const { hash } = docTarget(data);
    const title = data.title ?? splitPath(data.path).doc;
    shown = (
      <DocLink path={data.path} hash={hash} className={rowLink}>
        {title}
        {data.anchor ? ` › ${data.anchor}` : ""}
      </DocLink>
    );
    if (title !== link.label) note = `as “${link.label}”`;
  }
  return (
    <li className="min-w-0">
      <div className="truncate text-sm">{shown}</div>
      <div className="truncate text-xs text-zinc-500 dark:text-zinc-400">
        {note && `${note} · `}
        {link.lines.length === 1 ? "line" : "lines"} {link.lines.join(", ")}
      </div>
    </li>
  );
}

function OutgoingLinks({ path, text }: { path: string; text: string }) {
  const links = useMemo(() => {
    const byTarget = new Map<string, Outgoing>();
    for (const link of findLinks(text)) {
      const seen = byTarget.get(link.target);
      if (seen) {
        if (!seen.lines.includes(link.line)) seen.lines.push(link.line);
      } else byTarget.set(link.target, { target: link.target, label: link.label, lines: [link.line] });
    }
    return [...byTarget.values()];
  }, [text]);
  return (
    <Section icon={<ArrowUpRight className="size-3.5" aria-hidden />} title="Outgoing links" count={String(links.length)}>
      {links.length === 0 ? (
        <p className={none}>This document links to nothing in the folder.</p>
      ) : (
        <FromContext.Provider value={path}>
          <ul className="space-y-2">
            {links.map((link) => (
              <OutgoingRow key={link.target} link={link} from={path} />
            ))}
          </ul>
        </FromContext.Provider>
      )}
    </Section>
  );
}

/**
 * Backlinks and outgoing links of the document at `path` (root-relative) whose text is `text`;
 * each outgoing link shows the title the server resolved it to (`GET /api/resolve`).
 */
export function Links({ path, text }: { path: string; text: string }) {
  return (
    <div className="mt-10 grid gap-8 border-t border-zinc-200 pt-6 md:grid-cols-2 dark:border-zinc-800">
      <Backlinks path={path} />
      <OutgoingLinks path={path} text={text} />
    </div>
  );
}
