//! `Markdown`: the renderer of `Renderer.tsx`, loaded on first use, so the Markdown parser
//! (micromark, mdast, GFM) stays out of the first page's JavaScript.
import { lazy, Suspense } from "react";
import { Skeletons } from "../components/ui/states";

const Renderer = lazy(() => import("./Renderer"));

/** Renders a document's Markdown; `from` is its root-relative path, which its links are relative to. */
export function Markdown(props: { text: string; from: string }) {
  return (
    <Suspense fallback={<Skeletons rows={6} label="Rendering" />}>
      <Renderer {...props} />
    </Suspense>
  );
}
