// A folder too large to send whole, against a real server: the tree comes a directory at a time
// (`GET /api/browse`), 500 documents a page with "Show more"; the filter's matches come a page at
// a time too (`GET /api/find`), the tag menu from `GET /api/tags`, the quick switcher's from
// `GET /api/jump`, the editor's `[[` completion from `GET /api/complete`; and nothing on the way
// asks for the whole folder (`GET /api/docs`). A link to a document past a directory's first page
// shows it in the tree.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test, expect } from "./fixtures";

const ENTRIES = 1203;

test("a directory of 1,203 documents comes 500 at a time, and no view asks for the whole folder", async ({ authed: page, server }) => {
  test.slow();
  mkdirSync(join(server.docs, "runbooks/archive"), { recursive: true });
  for (let i = 1; i <= ENTRIES; i++) {
    const tags = i % 2 === 0 ? "---\ntags: [triage]\n---\n" : "";
    server.write(`runbooks/archive/entry ${i}.md`, `${tags}# Entry ${i}\n\nArchived note number ${i}.\n`);
  }
  type Folders = { folders: { name: string; files: number }[] };
  await expect
    .poll(async () => (await server.api<Folders>("GET", "/api/folders")).folders.find((f) => f.name === "runbooks")?.files, { timeout: 90_000 })
    .toBe(5 + ENTRIES);

  const asked: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith("/api/")) asked.push(`${url.pathname}${url.search}`);
  });
  await page.goto("/f/runbooks");
  const tree = page.getByRole("tree", { name: "Documents in Runbooks" });
  const rows = tree.getByRole("treeitem");
  const archive = tree.getByRole("treeitem", { name: "archive 1203 documents" });
  await expect(archive).toHaveAttribute("aria-expanded", "false");
  await expect(rows).toHaveCount(6);

  await archive.click();
  await expect(archive).toHaveAttribute("aria-expanded", "true");
  // The directory, its first 500 documents in natural order, its "more" row, then the five runbooks.
  await expect(rows).toHaveCount(1 + 500 + 1 + 5);
  await expect(rows.nth(1)).toHaveText(/^Entry 1(?!\d)/);
  await expect(rows.nth(2)).toHaveText(/^Entry 2(?!\d)/);
  const more = tree.getByRole("treeitem", { name: /^Show .* more documents/ });
  await expect(more).toHaveText("Show 500 more documents (500 of 1,203)");
  await more.click();
  await expect(more).toHaveText("Show 203 more documents (1,000 of 1,203)");
  await more.click();
  await expect(more).toHaveCount(0);
  await expect(rows).toHaveCount(1 + ENTRIES + 5);
  await expect(rows.nth(ENTRIES)).toHaveText(/^Entry 1203/);

  // The filter: 601 of the entries carry #triage, sent 500 at a time.
  await page.getByRole("searchbox", { name: "Filter by title, path or tag" }).fill("triage");
  await expect(page.getByText("Showing 500 of 601")).toBeVisible();
  await page.getByRole("button", { name: "Show more" }).click();
  await expect(page.getByText(/Showing \d+ of 601/)).toHaveCount(0);
  await expect(rows.filter({ hasText: /^Entry/ })).toHaveCount(601);
  await page.getByRole("button", { name: "Clear" }).click();

  // The tag menu lists the folder's tags from the server.
  await page.getByRole("button", { name: "Tags" }).click();
  await page.getByRole("menuitem", { name: "#triage", exact: true }).click();
  await expect(page.getByText("Showing 500 of 601")).toBeVisible();

  // The quick switcher asks the server, which ranks the five titles that start with "entry 120"
  // (120, 1200 to 1203) before the one that only holds both words (1120).
  await page.keyboard.press("Control+k");
  await page.getByRole("combobox").fill("entry 120");
  const options = page.getByRole("option");
  await expect(options).toHaveCount(6);
  for (let i = 0; i < 5; i++) await expect(options.nth(i)).toContainText(/^Entry 120\d?archive/);
  await expect(options.nth(5)).toContainText(/^Entry 1120archive/);

  await page.keyboard.press("Escape");

  // A link to an entry past the first page: its directory's pages come until it is there, in view.
  await page.goto(`/f/runbooks?doc=${encodeURIComponent("archive/entry 700.md")}`);
  const deep = tree.getByRole("treeitem", { name: /^Entry 700(?!\d)/ });
  await expect(deep).toHaveAttribute("aria-current", "page");
  await expect(deep).toBeInViewport();
  await expect(more).toHaveText("Show 203 more documents (1,000 of 1,203)");

  // The editor's `[[` completion asks the server, which names each entry by its shortest name.
  await page.goto(`/f/runbooks?doc=${encodeURIComponent("archive/entry 7.md")}`);
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  const text = page.getByRole("textbox", { name: /Markdown of/ });
  await text.click();
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.type("\nSee [[entry 1202");
  await expect(page.getByRole("listbox").getByRole("option")).toHaveCount(1);
  await expect(page.getByRole("listbox").getByRole("option")).toContainText("entry 1202");

  expect(asked.filter((a) => a.startsWith("/api/docs"))).toEqual([]);
  expect(asked.some((a) => a.startsWith("/api/browse") && a.includes("dir=archive") && a.includes("offset=1000"))).toBe(true);
  expect(asked.some((a) => a.startsWith("/api/jump") && a.includes("q=entry+120"))).toBe(true);
  expect(asked.some((a) => a.startsWith("/api/complete") && a.includes("q=entry+1202"))).toBe(true);
});
