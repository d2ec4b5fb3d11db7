//! The Markdown renderer (loaded lazily through `Markdown.tsx`) of the preview and of the editor's Preview tab: GitHub-flavoured
//! Markdown (tables, task lists, strikethrough, fenced code) without raw HTML, the front matter
//! stripped, slug ids on headings, and wikilinks, embeds and relative links resolved in the
//! folder (`resolved.tsx`).
//!
//! `from` is the root-relative path of the document the text belongs to: links are relative to it.
import { useState, type ComponentProps, type ReactNode } from "react";
import { Image as ImageIcon } from "lucide-react";
import ReactMarkdown, { type Components, type ExtraProps } from "react-markdown";
import remarkGfm from "remark-gfm";
import { stripFrontMatter } from "./frontmatter";
import { headingId, rehypeHeadingIds } from "./headings";
import { classifyHref, isImage, relativeTarget } from "./links";
import { remarkWikilinks, resolveTarget, wikilinkOf, type Wikilink } from "./wikilinks";
import { AnchorLink, EmbedLink, FolderImage, FolderLink, FromContext } from "./resolved";

const remarkPlugins = [remarkGfm, remarkWikilinks];
const rehypePlugins = [rehypeHeadingIds];

function WikiLink({ link, children }: { link: Wikilink; children: ReactNode }) {
  const target = resolveTarget(link);
  const written = `${link.embed ? "!" : ""}[[${link.target}${link.heading ? `#${link.heading}` : ""}]]`;
  if (!target) return <AnchorLink id={headingId(link.heading ?? "")}>{children}</AnchorLink>;
  if (link.embed && isImage(link.target)) {
    const alt = link.alias && link.width === undefined ? link.alias : link.target;
    return <FolderImage target={target} alt={alt} width={link.width} height={link.height} />;
  }
  const Shown = link.embed ? EmbedLink : FolderLink;
  return (
    <Shown target={target} written={written}>
      {children}
    </Shown>
  );
}

function Anchor({ node, href, children, ...rest }: ComponentProps<"a"> & ExtraProps) {
  const wiki = wikilinkOf(node?.properties);
  if (wiki) return <WikiLink link={wiki}>{children}</WikiLink>;
  if (!href) return <a {...rest}>{children}</a>;
  const kind = classifyHref(href);
  if (kind.kind === "external") {
    return (
      <a {...rest} href={href} target="_blank" rel="noreferrer noopener">
        {children}
      </a>
    );
  }
  // GFM footnotes and their back references link within the page as well.
  if (kind.kind === "anchor") return <AnchorLink id={kind.id}>{children}</AnchorLink>;
  return (
    <FolderLink target={relativeTarget(kind)} written={href}>
      {children}
    </FolderLink>
  );
}

function Image({ src, alt = "", title }: ComponentProps<"img"> & ExtraProps) {
  if (typeof src !== "string" || !src) return <FolderImage target="" alt={alt} />;
  const kind = classifyHref(src);
  if (kind.kind === "external") return <ExternalImage src={src} alt={alt} title={title} />;
  if (kind.kind === "anchor") return <FolderImage target="" alt={alt} />;
  return <FolderImage target={kind.path} alt={alt} title={title} />;
}

/**
 * An image from elsewhere on the web. The server's Content-Security-Policy may refuse it (it
 * admits only its own and blob images), so one that does not load becomes a link to it.
 */
function ExternalImage({ src, alt, title }: { src: string; alt: string; title?: string | undefined }) {
  const [failed, setFailed] = useState(false);
  if (!failed) return <img src={src} alt={alt} title={title} className="rounded" onError={() => setFailed(true)} />;
  return (
    <a href={src} target="_blank" rel="noreferrer noopener" className="not-prose inline-flex items-center gap-1.5 rounded border border-dashed border-zinc-400 px-2 py-1 text-xs text-zinc-600 dark:border-zinc-600 dark:text-zinc-300">
      <ImageIcon className="size-3.5" aria-hidden />
      {alt || "image"} (from {hostOf(src)}, opens in a new tab)
    </a>
  );
}

function hostOf(src: string): string {
  try {
    return new URL(src, location.href).host;
  } catch {
    return src;
  }
}

// Wide code and tables scroll sideways; they take focus so the keyboard can scroll them too.
function Table({ node: _node, ...props }: ComponentProps<"table"> & ExtraProps) {
  return (
    <div className="overflow-x-auto" tabIndex={0}>
      <table {...props} />
    </div>
  );
}

function Pre({ node: _node, ...props }: ComponentProps<"pre"> & ExtraProps) {
  return <pre tabIndex={0} {...props} />;
}

function Input({ node: _node, ...props }: ComponentProps<"input"> & ExtraProps) {
  // Task list items: a checkbox needs a name of its own.
  if (props.type === "checkbox") {
    return <input {...props} aria-label={props.checked ? "Done" : "Not done"} className="my-0 mr-1.5 size-3.5 align-[-2px] accent-accent-600" />;
  }
  return <input {...props} />;
}

const components: Components = { a: Anchor, img: Image, table: Table, pre: Pre, input: Input };

const prose = [
  "markdown prose prose-zinc dark:prose-invert max-w-[75ch] break-words",
  "prose-headings:scroll-mt-4 prose-headings:font-semibold prose-a:font-normal",
  "prose-h1:mb-4 prose-h1:text-[1.7rem] prose-h2:mt-8 prose-h2:mb-3 prose-h2:border-b prose-h2:border-zinc-200 prose-h2:pb-1 prose-h2:text-xl dark:prose-h2:border-zinc-800 prose-h3:mt-6 prose-h3:text-lg",
  "prose-p:my-3 prose-li:my-0.5 prose-table:my-4 prose-pre:my-4 prose-blockquote:font-normal prose-blockquote:not-italic [&_blockquote_p]:before:content-none [&_blockquote_p]:after:content-none",
  "prose-code:rounded prose-code:bg-zinc-100 prose-code:px-1 prose-code:py-0.5 prose-code:font-normal prose-code:before:content-none prose-code:after:content-none dark:prose-code:bg-zinc-800",
  "prose-pre:border prose-pre:border-zinc-200 prose-pre:bg-zinc-50 prose-pre:text-zinc-800 dark:prose-pre:border-zinc-800 dark:prose-pre:bg-zinc-900 dark:prose-pre:text-zinc-100",
  "[&_pre_code]:bg-transparent [&_pre_code]:p-0",
  "prose-table:text-sm prose-th:border prose-th:border-zinc-300 prose-th:bg-zinc-50 prose-th:px-3 prose-th:py-1.5 prose-td:border prose-td:border-zinc-200 prose-td:px-3 prose-td:py-1.5",
  "dark:prose-th:border-zinc-700 dark:prose-th:bg-zinc-900 dark:prose-td:border-zinc-800",
  "prose-img:my-2 prose-img:inline-block",
].join(" ");

/** Renders a document's Markdown; `from` is its root-relative path, which its links are relative to. */
export default function Renderer({ text, from }: { text: string; from: string }) {
  if (text.trim() === "") return <p className="text-sm text-zinc-500 italic dark:text-zinc-400">This file is empty.</p>;
  const body = stripFrontMatter(text);
  if (body.trim() === "") return <p className="text-sm text-zinc-500 italic dark:text-zinc-400">Nothing but front matter in this file.</p>;
  return (
    <FromContext.Provider value={from}>
      <div className={prose}>
        <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
          {body}
        </ReactMarkdown>
      </div>
    </FromContext.Provider>
  );
}
