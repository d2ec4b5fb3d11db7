// Settings end to end, against a real ragdownd on a copy of examples/vault: folders made, turned
// on for agents, renamed and deleted (checked on disk and over /mcp), the MCP config copied, a
// server setting saved and cleared, the theme and the token kept in this browser, and Usage.
import { test, expect, TOKEN, type Server } from "./fixtures";
import type { Page } from "@playwright/test";

/** `initialize` over a folder's MCP address, as an agent's first request. */
async function mcpInitialize(server: Server, folder: string): Promise<Response> {
  return fetch(`${server.url}/mcp/${folder}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${TOKEN}`, Accept: "application/json, text/event-stream", "Content-Type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "e2e", version: "1" } },
    }),
  });
}

const json = (server: Server, path: string) => JSON.parse(server.read(path)) as Record<string, unknown>;

async function openSettings(page: Page, tab?: string) {
  await page.goto(tab ? `/settings?tab=${tab}` : "/settings");
  await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
}

test("creates a folder through the dialog, with its .ragdown.json on disk", async ({ authed: page, server }) => {
  await openSettings(page);
  await expect(page).toHaveTitle("Settings · ragdown");
  await page.getByRole("main").getByRole("button", { name: "Create folder" }).click();
  const dialog = page.getByRole("dialog", { name: "Create folder" });
  const name = dialog.getByLabel("Name");

  // The server's rule, checked as it is typed; a taken name is refused before asking.
  await name.fill(" work");
  await expect(dialog.getByText("No spaces at the start or the end.")).toBeVisible();
  await name.fill("notes");
  await expect(dialog.getByText("A folder named notes already exists.")).toBeVisible();

  await name.fill("work-notes");
  await dialog.getByLabel("Title").fill("Work notes");
  await expect(dialog.getByText("Off, the folder is human-only: searchable here, but agents never see it.")).toBeVisible();
  await dialog.getByRole("button", { name: "Create folder" }).click();
  await expect(page.getByText("Created Work notes")).toBeVisible();
  await expect(dialog).toBeHidden();

  expect(server.exists("work-notes/.ragdown.json")).toBe(true);
  expect(json(server, "work-notes/.ragdown.json")).toMatchObject({ title: "Work notes", mcp: false });
  const row = page.getByRole("row").filter({ hasText: "Work notes" });
  await expect(row.getByText("Human-only").first()).toBeVisible();
});

test("turns MCP on for a human-only folder, so its address answers", async ({ authed: page, server }) => {
  await server.api("POST", "/api/folders", { name: "private", title: "Private", mcp: false });
  expect((await mcpInitialize(server, "private")).status).toBe(404);

  await openSettings(page);
  await page.getByRole("button", { name: "Edit Private" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit Private" });
  await dialog.getByRole("switch", { name: "Serve over MCP" }).click();
  await expect(dialog.getByText("Agents reach it at /mcp/private.")).toBeVisible();
  // The folder's own search default, with the server's value as the placeholder.
  const topK = dialog.getByLabel("Sections per prompt");
  await expect(topK).toHaveAttribute("placeholder", "Server: 4");
  await topK.fill("6");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Saved Private")).toBeVisible();

  expect(json(server, "private/.ragdown.json")).toMatchObject({ title: "Private", mcp: true, hook: { top_k: 6 } });
  const answer = await mcpInitialize(server, "private");
  expect(answer.status).toBe(200);
  expect(JSON.stringify(await answer.json())).toContain("ragdown-private");

  // Clearing the field takes the folder's own value away again.
  await page.getByRole("button", { name: "Edit Private" }).click();
  await page.getByRole("dialog", { name: "Edit Private" }).getByLabel("Sections per prompt").fill("");
  await page.getByRole("dialog", { name: "Edit Private" }).getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("dialog")).toBeHidden();
  expect(json(server, "private/.ragdown.json").hook).toBeUndefined();
});

test("copies a folder's MCP config with the token", async ({ authed: page, server, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  await openSettings(page);
  await page.getByRole("button", { name: "Copy MCP config for Runbooks" }).click();
  const dialog = page.getByRole("dialog", { name: "Connect an agent to Runbooks" });
  await dialog.getByRole("button", { name: "Copy the claude code command" }).click();
  const line = await page.evaluate(() => navigator.clipboard.readText());
  expect(line).toBe(`claude mcp add --transport http ragdown-runbooks ${server.url}/mcp/runbooks --header "Authorization: Bearer ${TOKEN}"`);

  await dialog.getByRole("button", { name: "Copy the mcpservers entry" }).click();
  const entry = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
  expect(entry).toEqual({ mcpServers: { "ragdown-runbooks": { type: "http", url: `${server.url}/mcp/runbooks`, headers: { Authorization: `Bearer ${TOKEN}` } } } });
});

test("saves a server setting over its variable, then clears it", async ({ authed: page, server }) => {
  await openSettings(page, "server");
  const row = page.getByRole("definition").filter({ hasText: "2,000" });
  await expect(row).toBeVisible();
  await expect(page.getByText("From RAGDOWN_TEXT_LIMIT")).toBeVisible();

  await page.getByRole("button", { name: "Edit settings" }).click();
  let dialog = page.getByRole("dialog", { name: "Edit settings" });
  await dialog.getByLabel("Characters per search hit").fill("800");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Saved the server settings")).toBeVisible();
  await expect(page.getByText("Saved here, over RAGDOWN_TEXT_LIMIT")).toBeVisible();

  const status = await server.api<{ settings: { text_limit: number; saved: { text_limit?: number } } }>("GET", "/api/status");
  expect(status.settings.text_limit).toBe(800);
  expect(json(server, ".ragdown-server.json")).toEqual({ text_limit: 800 });

  await page.getByRole("button", { name: "Edit settings" }).click();
  dialog = page.getByRole("dialog", { name: "Edit settings" });
  await expect(dialog.getByLabel("Characters per search hit")).toHaveValue("800");
  await dialog.getByLabel("Characters per search hit").fill("");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("From RAGDOWN_TEXT_LIMIT")).toBeVisible();
  const after = await server.api<{ settings: { text_limit: number } }>("GET", "/api/status");
  expect(after.settings.text_limit).toBe(2000);
  // Emptied, the saved file goes; if it stays, it no longer sets the value.
  expect(!server.exists(".ragdown-server.json") || !("text_limit" in json(server, ".ragdown-server.json"))).toBe(true);
});

test("saves Follow links over its variable from the Server tab", async ({ authed: page, server }) => {
  await openSettings(page, "server");
  await expect(page.getByText("From RAGDOWN_FOLLOW_LINKS")).toBeVisible();
  await page.getByRole("button", { name: "Edit settings" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit settings" });
  await dialog.getByLabel("Follow links").fill("2");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Saved here, over RAGDOWN_FOLLOW_LINKS")).toBeVisible();
  const status = await server.api<{ settings: { follow_links: number } }>("GET", "/api/status");
  expect(status.settings.follow_links).toBe(2);
  expect(json(server, ".ragdown-server.json")).toEqual({ follow_links: 2 });
});

test("checks values before saving, and shows the server's refusal inside the dialog", async ({ authed: page, server }) => {
  await openSettings(page, "server");
  await page.getByRole("button", { name: "Edit settings" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit settings" });
  await dialog.getByLabel("Sections per prompt").fill("0");
  await expect(dialog.getByText("From 1 to 50.")).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Save" })).toBeDisabled();
  await dialog.getByLabel("Sections per prompt").fill("");

  // A model that is not in this server's (empty, offline) cache cannot load: 503, nothing saved.
  await dialog.getByLabel("Embedder").selectOption("minilm");
  await expect(dialog.getByText(/rebuilds the whole index/)).toBeVisible();
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog.getByRole("alert").filter({ hasText: "cannot load the embedder minilm" })).toBeVisible({ timeout: 30_000 });
  await expect(dialog).toBeVisible();
  expect(server.exists(".ragdown-server.json")).toBe(false);
});

test("renames a folder on disk, and deletes one once its name is typed", async ({ authed: page, server }) => {
  await openSettings(page);
  await page.getByRole("button", { name: "Rename Runbooks" }).click();
  const rename = page.getByRole("dialog", { name: "Rename Runbooks" });
  await rename.getByLabel("New name").fill("ops");
  await rename.getByRole("button", { name: "Rename" }).click();
  await expect(page.getByText("Renamed runbooks to ops")).toBeVisible();
  expect(server.exists("ops/kafka.md")).toBe(true);
  expect(server.exists("runbooks")).toBe(false);

  await page.getByRole("button", { name: "Delete Notes" }).click();
  const remove = page.getByRole("dialog", { name: "Delete Notes?" });
  await expect(remove).toContainText("The notes directory is deleted from disk with its 6 files");
  const button = remove.getByRole("button", { name: "Delete" });
  await expect(button).toBeDisabled();
  await remove.getByLabel("Type notes to confirm").fill("note");
  await expect(button).toBeDisabled();
  await remove.getByLabel("Type notes to confirm").fill("notes");
  await button.click();
  await expect(page.getByText("Deleted notes")).toBeVisible();
  expect(server.exists("notes")).toBe(false);
  await expect(page.getByRole("button", { name: "Delete Notes" })).toBeHidden();
});

test("switches to the dark theme, which survives a reload", async ({ authed: page }) => {
  await openSettings(page, "device");
  const dark = page.getByRole("radio", { name: "Dark: Always dark" });
  await dark.click();
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  await expect(dark).toHaveAttribute("aria-checked", "true");
  await page.reload();
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  await expect(page.getByRole("radio", { name: "Dark: Always dark" })).toHaveAttribute("aria-checked", "true");
  // The arrows move and select, as in any radio group.
  await page.getByRole("radio", { name: "Dark: Always dark" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("radio", { name: "System: Follow the device" })).toHaveAttribute("aria-checked", "true");
});

test("Forget token brings the gate back", async ({ authed: page }) => {
  await openSettings(page, "device");
  await expect(page.getByText("Stored in this browser")).toBeVisible();
  await page.getByRole("button", { name: "Forget token" }).click();
  const confirm = page.getByRole("dialog", { name: "Forget the token?" });
  await expect(confirm).toContainText("Keep a copy: the server cannot show it to you.");
  await confirm.getByRole("button", { name: "Forget" }).click();
  await expect(page.getByRole("heading", { name: "Token required" })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem("ragdown.token"))).toBeNull();
});

test("offers to turn the query log on when it is off", async ({ authed: page, server }) => {
  await openSettings(page, "usage");
  await expect(page.getByText("The query log is off")).toBeVisible();
  await page.getByRole("button", { name: "Turn the query log on" }).click();
  await expect(page.getByText("Nothing logged yet")).toBeVisible();
  expect(json(server, ".ragdown-server.json")).toEqual({ query_log: true });
});

test.describe("with the query log on", () => {
  test.use({ serverEnv: { RAGDOWN_QUERY_LOG: "true" } });

  test("Usage charts the searches per day, and lists what found nothing", async ({ authed: page, server }) => {
    await server.api("GET", "/api/search?folder=runbooks&q=kafka");
    // Lines as ragdownd writes them, so the charts have agents' searches and hook calls to draw
    // whichever calls the server logs itself.
    const now = Date.now();
    const hit = (path: string, similarity: number, outcome?: string) => ({ path, heading: "H", lines: [1, 2], similarity, score: 0.03, ...(outcome ? { outcome } : {}) });
    const lines = [
      { at_ms: now - 2000, kind: "recall", endpoint: "runbooks", query: "kafka lag", min_score: 0.5, hits: [hit("runbooks/kafka.md", 0.7)] },
      { at_ms: now - 1500, kind: "recall", endpoint: "runbooks", query: "pasta recipe", min_score: 0.5, hits: [hit("runbooks/kafka.md", 0.1)] },
      { at_ms: now - 1000, kind: "context", endpoint: "runbooks", query: "how do I restart kafka", min_score: 0.5, hits: [hit("runbooks/kafka.md", 0.8, "passed")] },
      { at_ms: now - 500, kind: "read", endpoint: "runbooks", path: "runbooks/kafka.md", lines: [1, 20] },
    ];
    server.write("../data/query-log.jsonl", lines.map((l) => JSON.stringify(l)).join("\n") + "\n");

    await openSettings(page, "usage");
    const chart = page.getByRole("img", { name: /Searches per day/ });
    await expect(chart).toBeVisible();
    expect(await chart.locator("rect").count()).toBeGreaterThan(1);
    const today = new Date(now).toISOString().slice(0, 10);
    const table = page.locator("table", { has: page.locator("caption", { hasText: "Searches per day" }) });
    await expect(table.getByRole("row", { name: new RegExp(`^${today}`) })).toHaveCount(1);
    const cells = await table.getByRole("row", { name: new RegExp(`^${today}`) }).getByRole("cell").allTextContents();
    expect(Number(cells[0])).toBe(2); // the two agent searches
    expect(Number(cells[1])).toBe(1); // the hook call
    await expect(page.getByRole("img", { name: /Hook injections per day/ })).toBeVisible();
    await expect(page.getByText("Hook injection rate")).toBeVisible();
    await expect(page.getByRole("cell", { name: "pasta recipe" })).toBeVisible();
    await expect(page.getByRole("link", { name: "runbooks/kafka.md" })).toBeVisible();

    await page.getByRole("button", { name: "Empty the log" }).click();
    await page.getByRole("dialog", { name: "Empty the query log?" }).getByRole("button", { name: "Empty the log" }).click();
    await expect(page.getByText("Nothing logged yet")).toBeVisible();
    expect(server.exists("../data/query-log.jsonl")).toBe(false);
  });
});
