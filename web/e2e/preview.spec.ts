// The preview pane against a real server: wikilinks followed, broken ones marked, embedded
// images loaded through /api/file, backlinks and outgoing links, headings scrolled to, rename
// and delete checked on disk, the superseded notice, tags, attachments and copy path.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect, type Server } from "./fixtures";
import type { Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

const DEMO = `---
created_by: ragdown_remember
session: "min-agent:7"
---
# Links demo

See [[kafka]], [[missing note]] and [[deploy#Rolling back|how to roll back]].

![[pic.png]]

A [relative link](postgres-backups.md) and \`[[not a link]]\`.

![a diagram](img/nope.png)
`;

async function demo(server: Server): Promise<void> {
  writeFileSync(join(server.docs, "runbooks/pic.png"), PNG);
  await server.api("POST", "/api/doc", { path: "runbooks/links-demo.md", text: DEMO });
}

const body = (page: Page) => page.locator(".markdown");
const header = (page: Page) => page.getByRole("article", { name: "Document preview" }).locator("header");

test("follows a wikilink, marks a broken one, loads an embedded image, lists backlinks and outgoing links", async ({ authed: page, server }) => {
  await demo(server);
  await page.goto("/f/runbooks?doc=links-demo.md");

  await expect(header(page).getByRole("heading", { name: "Links demo" })).toBeVisible();
  await expect(header(page)).toContainText(/Written by an agent with ragdown_remember · session min-agent:7 · changed (just now|\d+ s ago)/);
  await expect(header(page)).toContainText(/\d+ lines · \d+ chunks?/);

  const broken = body(page).getByTitle("Nothing in this folder matches [[missing note]]");
  await expect(broken).toHaveText("missing note (broken link)");
  await expect(body(page).locator("code", { hasText: "[[not a link]]" })).toHaveCount(1);

  const img = body(page).getByRole("img", { name: "pic.png" });
  await expect(img).toBeVisible();
  await expect(img).toHaveAttribute("src", /^blob:/);
  expect(await img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(0);
  await expect(body(page).getByRole("img", { name: "missing image: a diagram" })).toBeVisible();

  const outgoing = page.getByRole("region", { name: "Outgoing links" });
  await expect(outgoing.getByRole("link", { name: "Kafka operations" })).toBeVisible();
  await expect(outgoing.getByRole("link", { name: "Deploying services › Rolling back" })).toBeVisible();
  await expect(outgoing.getByRole("link", { name: /Postgres backups and restore/ })).toBeVisible();
  await expect(outgoing).toContainText("missing note (broken link)");
  await expect(outgoing).toContainText("nothing matches");
  await expect(outgoing).not.toContainText("not a link");

  await body(page).getByRole("link", { name: "kafka", exact: true }).click();
  await expect(page).toHaveURL(/[?&]doc=kafka\.md/);
  await expect(header(page).getByRole("heading", { name: "Kafka operations" })).toBeVisible();
  await expect(header(page)).not.toContainText("Written by an agent");

  const backlinks = page.getByRole("region", { name: "Backlinks" });
  const fromDemo = backlinks.getByRole("link", { name: "Links demo" });
  await expect(fromDemo).toBeVisible();
  await expect(backlinks).toContainText("See [[kafka]]");
  await fromDemo.click();
  await expect(page).toHaveURL(/[?&]doc=links-demo\.md/);
});

test("a link to a heading opens the document scrolled to it", async ({ authed: page, server }) => {
  await page.goto("/f/runbooks?doc=incident-response.md");
  await body(page).getByRole("link", { name: "kafka › Consumer lag" }).click();
  await expect(page).toHaveURL(/[?&]doc=kafka\.md#consumer-lag$/);
  const heading = body(page).getByRole("heading", { name: "Consumer lag" });
  await expect(heading).toHaveAttribute("id", "consumer-lag");
  await expect(heading).toBeInViewport();

  // Straight from a URL with a hash, as search hits open.
  await page.goto("/f/runbooks?doc=deploy.md#rolling-back");
  const rollingBack = body(page).getByRole("heading", { name: "Rolling back" });
  await expect(rollingBack).toBeInViewport();

  // An image above the heading loads after the scroll and pushes it down: it is followed.
  writeFileSync(join(server.docs, "runbooks/pic.png"), PNG);
  await server.api("POST", "/api/doc", { path: "runbooks/tall.md", text: "# Tall\n\n![[pic.png|900]]\n\n## Below the picture\n\nText.\n" });
  await page.goto("/f/runbooks?doc=tall.md#below-the-picture");
  await expect(body(page).getByRole("img", { name: "pic.png" })).toHaveJSProperty("complete", true);
  await expect(body(page).getByRole("heading", { name: "Below the picture" })).toBeInViewport();

  // A `[x](#heading)` link within the page, from the top (in a window short enough to scroll).
  await page.setViewportSize({ width: 1360, height: 480 });
  await page.goto("/f/runbooks?doc=deploy.md");
  await expect(header(page).getByRole("heading", { name: "Deploying services" })).toBeInViewport();
  await expect(rollingBack).not.toBeInViewport();
  await body(page).getByRole("link", { name: "Rolling back", exact: true }).click();
  await expect(page).toHaveURL(/#rolling-back$/);
  await expect(rollingBack).toBeInViewport();
  await expect(header(page)).not.toBeInViewport();
});

test("rename or move: the file moves on disk and links to it are rewritten", async ({ authed: page, server }) => {
  await page.goto("/f/runbooks?doc=kafka.md");
  await header(page).getByRole("button", { name: "Rename or move" }).click();
  const dialog = page.getByRole("dialog", { name: "Rename or move" });
  await expect(dialog).toContainText("Links to this note from anywhere in the folder are rewritten to follow it.");
  const field = dialog.getByLabel("Path");
  await expect(field).toHaveValue("kafka.md");

  await field.fill("deploy.md");
  await dialog.getByRole("button", { name: "Move" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("Already exists.");
  expect(server.exists("runbooks/kafka.md")).toBe(true);

  await field.fill("streaming/kafka-ops");
  await expect(dialog).toContainText("Saved as streaming/kafka-ops.md");
  await dialog.getByRole("button", { name: "Move" }).click();
  await expect(page.getByText(/Moved to runbooks\/streaming\/kafka-ops\.md · links rewritten in \d+ documents?/)).toBeVisible();
  await expect(page).toHaveURL(/[?&]doc=streaming%2Fkafka-ops\.md|[?&]doc=streaming\/kafka-ops\.md/);
  await expect(header(page).getByRole("heading", { name: "Kafka operations" })).toBeVisible();

  expect(server.exists("runbooks/kafka.md")).toBe(false);
  expect(server.read("runbooks/streaming/kafka-ops.md")).toContain("# Kafka operations");
  const incident = server.read("runbooks/incident-response.md");
  expect(incident).not.toMatch(/\[\[kafka[#|\]]/);
  expect(incident).toMatch(/\[\[(streaming\/)?kafka-ops#Consumer lag\]\]/);
  expect(server.read("runbooks/postgres-backups.md")).toMatch(/\[\[(streaming\/)?kafka-ops\]\]/);
});

test("delete document: Cancel is the default, Delete removes the file from disk", async ({ authed: page, server }) => {
  await page.goto("/f/runbooks?doc=deploy.md");
  await header(page).getByRole("button", { name: "Delete document" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete this document?" });
  await expect(dialog).toContainText("runbooks/deploy.md is deleted from disk, not only from the index, and agents stop finding it.");
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(dialog).toBeHidden();
  expect(server.exists("runbooks/deploy.md")).toBe(true);

  await header(page).getByRole("button", { name: "Delete document" }).click();
  await page.getByRole("dialog", { name: "Delete this document?" }).getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("Deleted runbooks/deploy.md")).toBeVisible();
  await expect(page).not.toHaveURL(/doc=/);
  expect(server.exists("runbooks/deploy.md")).toBe(false);

  // A link to it now finds nothing there.
  await page.goto("/f/runbooks?doc=deploy.md");
  await expect(page.getByText("This document is not there any more")).toBeVisible();
  await page.getByRole("link", { name: "Back to Runbooks" }).click();
  await expect(page).not.toHaveURL(/doc=/);
});

test("a superseded document links to its replacement; tag chips filter by tag", async ({ authed: page }) => {
  await page.goto("/f/runbooks?doc=postgres-backups-2024.md");
  const notice = page.getByRole("note");
  await expect(notice).toContainText("Superseded by Postgres backups and restore");
  await notice.getByRole("link", { name: "Postgres backups and restore" }).click();
  await expect(page).toHaveURL(/[?&]doc=postgres-backups\.md/);
  await expect(header(page).getByRole("heading", { name: "Postgres backups and restore" })).toBeVisible();
  await expect(page.getByRole("note")).toHaveCount(0);

  await header(page).getByRole("link", { name: "Show documents tagged #oncall" }).click();
  await expect(page).toHaveURL(/[?&]tag=oncall/);
});

test("attachments: text opens in a new tab, SVG downloads", async ({ authed: page, server }) => {
  server.write("runbooks/notes.txt", "plain words\n");
  server.write("runbooks/diagram.svg", '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>');
  await server.api("POST", "/api/doc", { path: "runbooks/files.md", text: "# Files\n\n[the notes](notes.txt) and [the diagram](diagram.svg)\n" });
  await page.goto("/f/runbooks?doc=files.md");

  const tab = page.context().waitForEvent("page");
  await body(page).getByRole("link", { name: "the notes" }).click();
  const opened = await tab;
  expect(opened.url()).toMatch(/^blob:/);
  await expect(opened.locator("body")).toContainText("plain words");

  const download = page.waitForEvent("download");
  await body(page).getByRole("link", { name: "the diagram" }).click();
  expect((await download).suggestedFilename()).toBe("diagram.svg");
});

test("copy path puts the root-relative path on the clipboard; Download .md saves the file", async ({ authed: page, context, server }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto("/f/runbooks?doc=kafka.md");
  await header(page).getByRole("button", { name: "Copy path" }).click();
  await expect(header(page).getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("runbooks/kafka.md");
  await expect(header(page).getByRole("button", { name: "Copy path" })).toBeVisible({ timeout: 6000 });

  const download = page.waitForEvent("download");
  await header(page).getByRole("button", { name: "Download .md" }).click();
  const saved = await download;
  expect(saved.suggestedFilename()).toBe("kafka.md");
  expect(readFileSync(await saved.path(), "utf8")).toBe(server.read("runbooks/kafka.md"));
});

test("the preview passes axe, light and dark", async ({ authed: page, server }) => {
  await demo(server);
  for (const theme of ["light", "dark"]) {
    await page.addInitScript((t) => localStorage.setItem("cubeui-theme", t), theme);
    await page.goto("/f/runbooks?doc=links-demo.md");
    await expect(body(page).getByRole("img", { name: "pic.png" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Backlinks" })).toContainText("No document in this folder links here.");
    await expect(page.getByRole("region", { name: "Outgoing links" })).toContainText("nothing matches");
    const results = await new AxeBuilder({ page }).include("article").analyze();
    expect(results.violations.map((v) => `${theme}: ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
  }
});
