// The source editor against a real server: saving (button and Ctrl+S) writes the file, a file
// changed behind the editor raises the conflict banner and nothing is written until the user
// picks, the leave guard holds navigation while edits are unsaved, and `[[` completes names.
import type { Page } from "@playwright/test";
import { test, expect, type Server } from "./fixtures";

const KAFKA = "runbooks/kafka.md";

const editorBox = (page: Page) => page.getByRole("textbox", { name: /Markdown of/ });

/** Opens `doc` of runbooks in the editor with the Edit button, the caret at the end of the text. */
async function openEditor(page: Page, doc = "kafka.md") {
  await page.goto(`/f/runbooks?doc=${encodeURIComponent(doc)}`);
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  await expect(editorBox(page)).toBeFocused();
  await expect(page.getByText("No unsaved changes")).toBeVisible();
}

async function typeAtEnd(page: Page, text: string) {
  await editorBox(page).click();
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.type(text);
}

/** Changes the file behind the editor's back, and waits until the server reads the new text. */
async function writeBehind(server: Server, text: string) {
  server.write(KAFKA, text);
  await expect
    .poll(async () => (await server.api<{ text: string }>("GET", `/api/doc?path=${encodeURIComponent(KAFKA)}`)).text)
    .toBe(text);
}

test("Ctrl+S saves the edits to disk and the editor stays open on the new version", async ({ authed: page, server }) => {
  const original = server.read(KAFKA);
  await openEditor(page);
  await expect(page.getByRole("button", { name: "Save", exact: true })).toBeDisabled();

  await typeAtEnd(page, "An edit made in the browser.");
  await expect(page.getByText("Unsaved changes", { exact: true })).toBeVisible();
  await page.keyboard.press("ControlOrMeta+s");

  await expect(page.getByText("Saved", { exact: true })).toBeVisible();
  expect(server.read(KAFKA)).toBe(`${original}An edit made in the browser.`);
  await expect(editorBox(page)).toBeVisible();
  await expect(page.getByText("No unsaved changes")).toBeVisible();

  // The editor took the new hash: a second save is not a conflict.
  await typeAtEnd(page, " Twice.");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect.poll(() => server.read(KAFKA)).toBe(`${original}An edit made in the browser. Twice.`);
  await expect(page.getByRole("alert").filter({ hasText: "was changed on disk" })).toHaveCount(0);
});

test("Ctrl+S with the focus on the header's buttons saves too, instead of the browser's save page", async ({ authed: page, server }) => {
  const original = server.read(KAFKA);
  await openEditor(page);
  await typeAtEnd(page, "Saved from the header.");
  await page.getByRole("tab", { name: "Preview" }).focus();
  await page.keyboard.press("ControlOrMeta+s");
  await expect.poll(() => server.read(KAFKA)).toBe(`${original}Saved from the header.`);
});

test("a file changed on disk behind the editor: Save mine anyway replaces it", async ({ authed: page, server }) => {
  const original = server.read(KAFKA);
  // Through the URL this time: `edit=true` opens the editor once the document loads.
  await page.goto("/f/runbooks?doc=kafka.md&edit=true");
  await expect(editorBox(page)).toBeFocused();
  await writeBehind(server, "# Kafka\n\nWritten behind the editor.\n");

  await typeAtEnd(page, "Mine.");
  await page.keyboard.press("ControlOrMeta+s");
  const banner = page.getByRole("alert").filter({ hasText: "was changed on disk since it was opened" });
  await expect(banner).toContainText(`${KAFKA} was changed on disk since it was opened. Saving yours replaces it`);
  // Nothing is written until the user picks, and the edits stay.
  expect(server.read(KAFKA)).toBe("# Kafka\n\nWritten behind the editor.\n");
  await expect(editorBox(page)).toContainText("Mine.");

  await banner.getByRole("button", { name: "Save mine anyway" }).click();
  await expect(page.getByText("Saved over the version on disk")).toBeVisible();
  expect(server.read(KAFKA)).toBe(`${original}Mine.`);
  await expect(banner).toHaveCount(0);
  await expect(page.getByText("No unsaved changes")).toBeVisible();
});

test("a file changed on disk behind the editor: Discard mine closes it and shows the disk's text", async ({ authed: page, server }) => {
  await openEditor(page);
  await writeBehind(server, "# Kafka\n\nWritten behind the editor.\n");
  await typeAtEnd(page, "Mine, to be thrown away.");
  await page.getByRole("button", { name: "Save", exact: true }).click();

  const banner = page.getByRole("alert").filter({ hasText: "was changed on disk since it was opened" });
  await banner.getByRole("button", { name: "Discard mine" }).click();
  // Closed without asking, and the preview shows the file as it is on disk now.
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(editorBox(page)).toHaveCount(0);
  await expect(page.getByText("Written behind the editor.")).toBeVisible();
  expect(server.read(KAFKA)).toBe("# Kafka\n\nWritten behind the editor.\n");
});

test("the leave guard holds another document's link while edits are unsaved", async ({ authed: page, server }) => {
  const original = server.read(KAFKA);
  await openEditor(page);
  await typeAtEnd(page, "Unsaved words.");

  const other = page.getByRole("treeitem", { name: /Deploying services/ });
  await other.click();
  const dialog = page.getByRole("dialog", { name: "Discard unsaved changes?" });
  await expect(dialog).toContainText("Your edits to this note have not been saved");
  // Keep editing is the default: Enter keeps the edits, and the URL never moved.
  await expect(dialog.getByRole("button", { name: "Keep editing" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(dialog).toHaveCount(0);
  await expect(editorBox(page)).toContainText("Unsaved words.");
  expect(new URL(page.url()).searchParams.get("doc")).toBe("kafka.md");

  // Close asks the same question; Discard leaves, and nothing was written.
  await page.getByRole("button", { name: "Close", exact: true }).click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(editorBox(page)).toBeVisible();

  await other.click();
  await dialog.getByRole("button", { name: "Discard" }).click();
  await expect(page).toHaveURL(/doc=deploy\.md/);
  await expect(editorBox(page)).toHaveCount(0);
  expect(server.read(KAFKA)).toBe(original);
});

test("Escape does not close the editor, and a clean editor closes without asking", async ({ authed: page }) => {
  await openEditor(page);
  await page.keyboard.press("Escape");
  await expect(editorBox(page)).toBeVisible();
  await page.getByRole("button", { name: "Close", exact: true }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(editorBox(page)).toHaveCount(0);
});

test("[[ offers the folder's documents by their shortest names and inserts the link", async ({ authed: page, server }) => {
  const original = server.read(KAFKA);
  await openEditor(page);
  await typeAtEnd(page, "See [[postgres backups and");
  const list = page.getByRole("listbox");
  // Matched on the title; offered by the shortest name, with the title beside it.
  const option = list.getByRole("option", { name: /^postgres-backups.*Postgres backups and restore/ });
  await expect(option).toBeVisible();
  await expect(list.getByRole("option")).toHaveCount(1);
  // CodeMirror ignores Enter for its `interactionDelay` (75 ms) after a list opens, so that fast
  // typing does not pick an option by accident; a person reads the list first, and so does this.
  // On a loaded machine the list can open late, just before the checks above pass.
  await page.waitForTimeout(150);
  await page.keyboard.press("Enter");
  await page.keyboard.type(" for restores.");
  await page.keyboard.press("ControlOrMeta+s");
  await expect.poll(() => server.read(KAFKA)).toBe(`${original}See [[postgres-backups]] for restores.`);

  // Past a `|` nothing is offered.
  await page.keyboard.type(" [[kafka|");
  await expect(page.getByRole("listbox")).toHaveCount(0);
});

test("Preview renders the unsaved text", async ({ authed: page }) => {
  await openEditor(page);
  await typeAtEnd(page, "\n\n## A heading typed just now\n");
  await page.getByRole("tab", { name: "Preview" }).click();
  await expect(page.getByRole("tabpanel").getByText("A heading typed just now")).toBeVisible();
  await page.getByRole("tab", { name: "Write" }).click();
  await expect(editorBox(page)).toContainText("A heading typed just now");
});

test("a failed save shows the server's message and keeps the edits", async ({ authed: page, server }) => {
  const original = server.read(KAFKA);
  await openEditor(page);
  await page.route("**/api/doc", (route) =>
    route.request().method() === "POST"
      ? route.fulfill({ status: 507, contentType: "application/json", body: JSON.stringify({ error: "No space left on device" }) })
      : route.fallback(),
  );
  await typeAtEnd(page, "Kept after a failure.");
  await page.keyboard.press("ControlOrMeta+s");
  await expect(page.getByText("No space left on device")).toBeVisible();
  await expect(page.getByText("Unsaved changes", { exact: true })).toBeVisible();
  await expect(editorBox(page)).toContainText("Kept after a failure.");
  expect(server.read(KAFKA)).toBe(original);

  // Once the server is back, the same edits save.
  await page.unroute("**/api/doc");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect.poll(() => server.read(KAFKA)).toBe(`${original}Kept after a failure.`);
});

test("closing the tab with unsaved edits raises the browser's own prompt", async ({ authed: page }) => {
  await openEditor(page);
  await typeAtEnd(page, "Unsaved.");
  const dialog = page.waitForEvent("dialog");
  void page.close({ runBeforeUnload: true });
  const prompt = await dialog;
  expect(prompt.type()).toBe("beforeunload");
  await prompt.dismiss();
  await expect(editorBox(page)).toContainText("Unsaved.");
});
