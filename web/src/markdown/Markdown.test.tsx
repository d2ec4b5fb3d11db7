//! Renders a document with a wikilink (found and broken), a table, a task list, a heading, code
//! and raw HTML, with the resolutions seeded in the query cache and `fetch` refusing anything else.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createMemoryHistory, createRootRoute, createRoute, createRouter, Outlet, RouterProvider } from "@tanstack/react-router";
import { keys } from "../api/hooks";
import { notify } from "../lib/toast";
import Markdown from "./Renderer";

const FROM = "runbooks/note.md";
const TEXT = `---
title: A note
tags: [x]
---
# Heading One

See [[kafka]], [[kafka#Consumer lag|lag]] and [[missing note]]; not \`[[in code]]\`.

| Setting | Default |
| ------- | ------- |
| PORT    | 3000    |

- [x] done
- [ ] to do

~~gone~~ <b>raw</b>

\`\`\`
[[in a fence]]
\`\`\`
`;

async function renderDoc(text: string, seed = true) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  if (seed) {
    client.setQueryData(keys.resolve(FROM, "kafka"), { path: "runbooks/kafka.md", anchor: null });
    client.setQueryData(keys.resolve(FROM, "kafka#Consumer lag"), { path: "runbooks/kafka.md", anchor: "Consumer lag" });
    client.setQueryData(keys.resolve(FROM, "missing note"), null);
  }
  const root = createRootRoute({ component: Outlet });
  const folder = createRoute({ getParentRoute: () => root, path: "/f/$folder", component: () => <Markdown text={text} from={FROM} /> });
  const router = createRouter({
    routeTree: root.addChildren([folder]),
    history: createMemoryHistory({ initialEntries: ["/f/runbooks?doc=note.md"] }),
  });
  await act(async () => {
    render(
      <QueryClientProvider client={client}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
    await router.load();
  });
  return router;
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

describe("Markdown", () => {
  beforeEach(() => {
    // The router restores scroll on load, which jsdom does not implement.
    vi.stubGlobal("scrollTo", () => {});
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response(JSON.stringify({ error: "not in this test" }), { status: 500 })),
    );
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it("links a wikilink that resolves in the app, with its heading's slug", async () => {
    await renderDoc(TEXT);
    const kafka = await screen.findByRole("link", { name: "kafka" });
    expect(kafka.getAttribute("href")).toBe("/f/runbooks?doc=kafka.md");
    const lag = screen.getByRole("link", { name: "lag" });
    expect(lag.getAttribute("href")).toBe("/f/runbooks?doc=kafka.md#consumer-lag");
    expect(fetch).not.toHaveBeenCalled();
  });

  it("draws a wikilink that matches nothing as broken, for eyes and screen readers", async () => {
    await renderDoc(TEXT);
    const broken = screen.getByTitle("Nothing in this folder matches [[missing note]]");
    expect(broken.textContent).toBe("missing note (broken link)");
    expect(broken.closest("a")).toBeNull();
  });

  it("renders a GFM table and a task list, strikethrough, and heading ids", async () => {
    await renderDoc(TEXT);
    expect(screen.getAllByRole("columnheader").map((th) => th.textContent)).toEqual(["Setting", "Default"]);
    expect(screen.getByRole("cell", { name: "3000" })).toBeTruthy();
    const boxes = screen.getAllByRole("checkbox") as HTMLInputElement[];
    expect(boxes.map((b) => b.checked)).toEqual([true, false]);
    expect(boxes.map((b) => b.getAttribute("aria-label"))).toEqual(["Done", "Not done"]);
    expect(document.querySelector("del")?.textContent).toBe("gone");
    expect(screen.getByRole("heading", { level: 1, name: "Heading One" }).id).toBe("heading-one");
  });

  it("keeps code, front matter and raw HTML as text", async () => {
    await renderDoc(TEXT);
    expect(screen.getByText("[[in code]]").tagName).toBe("CODE");
    expect(screen.getByText("[[in a fence]]").closest("pre")).toBeTruthy();
    expect(document.body.textContent).not.toContain("title: A note");
    expect(document.querySelector("b")).toBeNull();
    expect(document.body.textContent).toContain("<b>raw</b>");
  });

  it("resolves a link on click when the server failed, and says when nothing matches", async () => {
    const fail = vi.spyOn(notify, "fail").mockImplementation(() => "");
    const router = await renderDoc("[[kafka]] and [[gone]]", false);
    const kafka = await screen.findByRole("link", { name: "kafka" });
    await waitFor(() => expect(kafka.getAttribute("href")).toBe("#"));
    vi.mocked(fetch).mockImplementation(async (input) => {
      const link = new URL(String(input), "http://x").searchParams.get("link");
      return link === "kafka" ? json(200, { path: "runbooks/kafka.md" }) : json(404, { error: "no document or file matches" });
    });
    await act(async () => fireEvent.click(kafka));
    await waitFor(() => expect(router.state.location.search).toEqual({ doc: "kafka.md" }));
    await act(async () => fireEvent.click(screen.getByRole("link", { name: "gone" })));
    await waitFor(() => expect(fail).toHaveBeenCalledWith("Nothing in this folder matches [[gone]]"));
  });

  it("says when a file is empty", async () => {
    await renderDoc("  \n");
    expect(screen.getByText("This file is empty.")).toBeTruthy();
  });
});
