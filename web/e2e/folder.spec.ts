// The folder page against a real server: the tree, Filter and its tag, Search opening a hit at
// its heading, New note (and a taken name), Upload (and Overwrite, and a refused file), moving by
// drag and drop, the quick switcher, and the URL state around them. Each test has its own server
// on a fresh copy of examples/vault, and checks the disk, not only the page.
import { test, expect } from "./fixtures";
import type { Page } from "@playwright/test";

const tree = (page: Page) => page.getByRole("tree", { name: "Documents in Runbooks" });
const rows = (page: Page) => tree(page).getByRole("treeitem");
/** The open document (`?doc=`), decoded. */
const doc = (page: Page) => () => new URL(page.url()).searchParams.get("doc");
const RUNBOOK_TITLES = ["Deploying services", "Incident response", "Kafka operations", "Postgres backups (2024, pg_dump cron)", "Postgres backups and restore"];

test("a folder shows its tree, and Filter narrows it word by word", async ({ authed: page }) => {
  await page.goto("/f/runbooks");
  await expect(page.getByRole("heading", { name: "Runbooks" })).toBeVisible();
  await expect(page.getByText(/5 files · \d+ chunks · on MCP/)).toBeVisible();
  await expect(page.getByText("Pick a document to preview it")).toBeVisible();
  await expect(rows(page)).toHaveCount(5);
  for (const title of RUNBOOK_TITLES) await expect(tree(page).getByText(title, { exact: true })).toBeVisible();
  await expect(page).toHaveTitle("Runbooks · ragdown");

  const filter = page.getByRole("searchbox", { name: "Filter by title, path or tag" });
  await filter.fill("kafka");
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page)).toHaveText(/Kafka operations/);
  // Every word must match, in any field: "oncall" is a tag, "rollback" only a description word.
  await filter.fill("oncall");
  await expect(rows(page)).toHaveCount(4);
  await filter.fill("oncall roll back");
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page)).toHaveText(/Deploying services/);
  await filter.fill("oncall zebra");
  await expect(page.getByText("Nothing in this folder matches that.")).toBeVisible();
  await page.getByRole("button", { name: "Clear" }).click();
  await expect(filter).toHaveValue("");
  await expect(rows(page)).toHaveCount(5);

  await tree(page).getByText("Kafka operations").click();
  await expect(page).toHaveURL(/\/f\/runbooks\?doc=kafka\.md$/);
  await expect(tree(page).getByRole("treeitem", { name: /Kafka operations/ })).toHaveAttribute("aria-current", "page");
  await expect(page).toHaveTitle("Kafka operations · ragdown");
});

test("the tree is keyboard-usable", async ({ authed: page }) => {
  await page.goto("/f/runbooks");
  await rows(page).first().focus();
  await page.keyboard.press("ArrowDown");
  await expect(rows(page).nth(1)).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/doc=incident-response\.md/);
  await page.keyboard.press("End");
  await expect(rows(page).last()).toBeFocused();
  await page.keyboard.press("Home");
  await page.keyboard.press("k");
  await expect(rows(page).filter({ hasText: "Kafka operations" })).toBeFocused();
});

test("?tag= filters the list, and the Tags menu sets and clears it", async ({ authed: page }) => {
  await page.goto("/f/runbooks?tag=postgres");
  await expect(page.getByRole("button", { name: "Tag filter: #postgres" })).toBeVisible();
  await expect(rows(page)).toHaveCount(2);
  await expect(rows(page).filter({ hasText: "Kafka" })).toHaveCount(0);

  await page.getByRole("button", { name: "Tag filter: #postgres" }).click();
  await page.getByRole("menuitem", { name: "All tags" }).click();
  await expect(page).not.toHaveURL(/tag=/);
  await expect(rows(page)).toHaveCount(5);

  await page.getByRole("button", { name: "Tags" }).click();
  await page.getByRole("menuitem", { name: "#kafka", exact: true }).click();
  await expect(page).toHaveURL(/tag=kafka/);
  await expect(rows(page)).toHaveCount(1);
  // The tag and the filter words apply together.
  await page.getByRole("searchbox", { name: "Filter by title, path or tag" }).fill("deploy");
  await expect(page.getByText("Nothing in this folder matches that.")).toBeVisible();
});

test("Recently changed lists the documents newest first", async ({ authed: page, server }) => {
  await server.api("POST", "/api/doc", { path: "runbooks/deploy.md", text: server.read("runbooks/deploy.md") + "\nTouched.\n", overwrite: true });
  await page.goto("/f/runbooks");
  await page.getByRole("button", { name: "Sort: By path" }).click();
  await page.getByRole("menuitem", { name: "Recently changed" }).click();
  await expect(page).toHaveURL(/sort=recent/);
  await expect(rows(page).first()).toHaveText(/Deploying services/);
  await expect(rows(page)).toHaveCount(5);
});

test("a search hit opens its document at its heading", async ({ authed: page }) => {
  await page.goto("/f/runbooks");
  await page.getByRole("radio", { name: "Search" }).click();
  await page.getByRole("searchbox", { name: "Search what the notes say" }).fill("consumer lag kafka-consumer-groups search-indexer");
  const hit = page.getByRole("list", { name: "Search results" }).getByRole("link").filter({ hasText: "Kafka operations › Consumer lag" }).first();
  await expect(hit).toBeVisible();
  await expect(hit).toContainText("changed");
  await hit.click();
  await expect(page).toHaveURL(/\?doc=kafka\.md#consumer-lag$/);
  await expect(page.getByRole("heading", { name: "Consumer lag" })).toBeInViewport();
});

test("a search hit scrolls a long document to its heading and marks it, opened fresh or already open", async ({ authed: page, server }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const filler = Array.from({ length: 30 }, (_, i) => `Line ${i + 1} of the nightly backup notes.`).join("\n\n");
  await server.api("POST", "/api/doc", { path: "runbooks/backups.md", text: `# Backups\n\n${filler}\n\n## Restore\n\nRun pg_restore --jobs=4 from the newest dump.\n` });
  const preview = page.getByRole("article", { name: "Document preview" });
  const restore = preview.locator(".markdown").getByRole("heading", { name: "Restore" });
  const search = async () => {
    await page.getByRole("radio", { name: "Search" }).click();
    await page.getByRole("searchbox", { name: "Search what the notes say" }).fill("pg_restore");
    const hit = page.getByRole("list", { name: "Search results" }).getByRole("link").filter({ hasText: "Backups › Restore" }).first();
    await hit.click();
    await expect(page).toHaveURL(/\?doc=backups\.md.*#restore$/);
  };

  // Fresh: the renderer itself loads after the click.
  await page.goto("/f/runbooks");
  await search();
  await expect(restore).toBeInViewport();
  await expect(restore).toHaveAttribute("data-flash", "");
  await expect(restore).not.toHaveAttribute("data-flash", "");
  // The header's title is the one the list and the hit show, not the file name.
  await expect(preview.locator("header").getByRole("heading", { level: 1 })).toHaveText("Backups");

  // Already open, at its top.
  await page.goto("/f/runbooks?doc=backups.md");
  await expect(preview.locator("header").getByRole("heading", { level: 1 })).toHaveText("Backups");
  await expect(restore).toBeAttached();
  await expect(restore).not.toBeInViewport();
  await search();
  await expect(restore).toBeInViewport();
  await expect(restore).toHaveAttribute("data-flash", "");
});

test("New note writes # Title to disk and opens it; a taken name offers to open it", async ({ authed: page, server }) => {
  await page.goto("/f/runbooks");
  await page.getByRole("button", { name: "New note" }).first().click();
  const dialog = page.getByRole("dialog", { name: "New note" });
  await expect(dialog.getByText("A Markdown file in Runbooks, opened in the editor once it is created.")).toBeVisible();
  await dialog.getByLabel("Title").fill("Kafka: retention?");
  await expect(dialog.getByText("Saved as Kafka- retention-.md")).toBeVisible();
  await dialog.getByLabel("Subfolder").fill("ideas/2026");
  await expect(dialog.getByText("Saved as ideas/2026/Kafka- retention-.md")).toBeVisible();
  await dialog.getByLabel("Title").press("Enter");
  await expect(dialog).toBeHidden();
  await expect.poll(doc(page)).toBe("ideas/2026/Kafka- retention-.md");
  // ?edit=true opened the editor and then left the URL.
  await expect(page.getByRole("textbox", { name: /Markdown of .*Kafka- retention-\.md/ })).toBeVisible();
  await expect(page).not.toHaveURL(/edit=/);
  // Another document closes the editor.
  await tree(page).getByText("Kafka operations").click();
  await expect(page.getByRole("textbox", { name: /Markdown of/ })).toBeHidden();
  await expect(page.getByRole("heading", { name: "Consumer lag" })).toBeVisible();
  expect(server.exists("runbooks/ideas/2026/Kafka- retention-.md")).toBe(true);
  expect(server.read("runbooks/ideas/2026/Kafka- retention-.md")).toBe("# Kafka: retention?\n\n");

  await page.goto("/f/runbooks");
  await page.getByRole("button", { name: "New note" }).first().click();
  await dialog.getByLabel("Title").fill("kafka");
  await dialog.getByRole("button", { name: "Create" }).click();
  await expect(dialog.getByText("Already exists.")).toBeVisible();
  expect(server.read("runbooks/kafka.md")).toContain("# Kafka operations");
  await dialog.getByRole("button", { name: "Open it" }).click();
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/\?doc=kafka\.md$/);
});

test("New document in a subfolder starts New note there", async ({ authed: page, server }) => {
  await server.api("POST", "/api/doc", { path: "runbooks/archive/old.md", text: "# Old\n" });
  await page.goto("/f/runbooks");
  const archive = rows(page).filter({ hasText: "archive" });
  await archive.hover();
  await archive.getByRole("button", { name: "New document in archive" }).click();
  const dialog = page.getByRole("dialog", { name: "New note" });
  await expect(dialog.getByLabel("Subfolder")).toHaveValue("archive");
  await dialog.getByLabel("Title").fill("Later");
  await dialog.getByRole("button", { name: "Create" }).click();
  await expect.poll(doc(page)).toBe("archive/Later.md");
  expect(server.read("runbooks/archive/Later.md")).toBe("# Later\n\n");
  // The new document's directory opened in the tree.
  await expect(tree(page).getByRole("treeitem", { name: /Later/ })).toHaveAttribute("aria-current", "page");
});

test("Upload writes files, offers Overwrite for one that exists, and refuses what is not Markdown", async ({ authed: page, server }) => {
  await page.goto("/f/runbooks");
  const open = async () => {
    await page.getByRole("button", { name: "Upload Markdown files" }).click();
    return page.getByRole("dialog", { name: "Upload Markdown files" });
  };
  let dialog = await open();
  await expect(dialog.getByText("Files are written into Runbooks and indexed before the upload finishes.")).toBeVisible();
  await dialog.getByLabel("Subfolder").fill("imported");
  await dialog.locator("input[type=file]").setInputFiles([
    { name: "first.md", mimeType: "text/markdown", buffer: Buffer.from("# First\n\nOne.\n") },
    { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("plain") },
  ]);
  await expect(dialog.getByText("notes.txt is not a Markdown file")).toBeVisible();
  await expect(dialog.getByRole("list", { name: "Files to upload" }).getByRole("listitem")).toHaveCount(1);
  await dialog.getByRole("button", { name: "Upload", exact: true }).click();
  await expect(page.getByText("Uploaded 1 file")).toBeVisible();
  await expect(dialog).toBeHidden();
  expect(server.read("runbooks/imported/first.md")).toBe("# First\n\nOne.\n");
  await expect(rows(page).filter({ hasText: "imported" })).toBeVisible();

  dialog = await open();
  await dialog.getByLabel("Subfolder").fill("imported");
  await dialog.locator("input[type=file]").setInputFiles({ name: "first.md", mimeType: "text/markdown", buffer: Buffer.from("# First, again\n") });
  await dialog.getByRole("button", { name: "Upload", exact: true }).click();
  await expect(dialog.getByText("Already exists.")).toBeVisible();
  expect(server.read("runbooks/imported/first.md")).toBe("# First\n\nOne.\n");
  await dialog.getByRole("button", { name: "Overwrite" }).click();
  await expect(dialog).toBeHidden();
  expect(server.read("runbooks/imported/first.md")).toBe("# First, again\n");

  dialog = await open();
  await dialog.locator("input[type=file]").setInputFiles({ name: "x.md", mimeType: "text/markdown", buffer: Buffer.from("x") });
  await dialog.getByRole("button", { name: "Remove x.md" }).click();
  await expect(dialog.getByRole("button", { name: "Upload", exact: true })).toBeDisabled();
});

test("dropping a document on a subfolder moves it on disk", async ({ authed: page, server }) => {
  await server.api("POST", "/api/doc", { path: "runbooks/archive/old.md", text: "# Old\n" });
  await page.goto("/f/runbooks?doc=postgres-backups-2024.md");
  const source = rows(page).filter({ hasText: "Postgres backups (2024, pg_dump cron)" });
  const target = rows(page).filter({ hasText: "archive" });
  await source.dragTo(target);
  await expect(page.getByText(/Moved postgres-backups-2024\.md to archive/)).toBeVisible();
  await expect.poll(() => server.exists("runbooks/archive/postgres-backups-2024.md")).toBe(true);
  expect(server.exists("runbooks/postgres-backups-2024.md")).toBe(false);
  // The selection followed the file, and the document that linked to it was rewritten.
  await expect.poll(doc(page)).toBe("archive/postgres-backups-2024.md");
  expect(server.read("runbooks/postgres-backups.md")).toContain("archive/postgres-backups-2024.md");
});

test("Ctrl+K jumps to any document of any folder", async ({ authed: page }) => {
  await page.goto("/f/notes");
  await expect(page.getByRole("tree", { name: "Documents in Notes" })).toBeVisible();
  await page.keyboard.press("Control+k");
  const palette = page.getByRole("dialog", { name: "Jump to a document" });
  await expect(palette).toBeVisible();
  await palette.getByRole("combobox").fill("kafka oper");
  await expect(palette.getByRole("option").first()).toContainText("Kafka operations");
  await page.keyboard.press("Enter");
  await expect(palette).toBeHidden();
  await expect(page).toHaveURL(/\/f\/runbooks\?doc=kafka\.md$/);

  await page.getByRole("button", { name: /Jump to/ }).click();
  await palette.getByRole("combobox").fill("settings");
  await palette.getByRole("option", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings$/);
});

test("an unknown folder says so; Home reopens the folder last opened", async ({ authed: page }) => {
  await page.goto("/f/nope");
  await expect(page.getByText("There is no folder called nope")).toBeVisible();
  await page.goto("/f/runbooks");
  await expect(tree(page)).toBeVisible();
  await page.goto("/");
  await expect(page).toHaveURL(/\/f\/runbooks$/);
  await page.goto("/f/nope");
  await page.getByRole("link", { name: "Open another folder" }).click();
  await expect(page).toHaveURL(/\/f\/runbooks$/);
});
