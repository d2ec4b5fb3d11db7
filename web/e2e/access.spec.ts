// Settings → Access end to end, against a real ragdownd on a copy of examples/vault: a read token
// for one folder made in the dialog and shown once, then used as an agent would (its folder's MCP
// lists no write tool, another folder is refused), kept on disk only as a hash, and revoked.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect } from "./fixtures";
import { toolsWith } from "./agent";

test("a read token for one folder is made, shown once, works only there, and is revoked", async ({ authed: page, server }) => {
  await page.goto("/settings?tab=access");
  await expect(page.getByText("No tokens yet")).toBeVisible();
  await page.getByRole("button", { name: "New token" }).click();
  const dialog = page.getByRole("dialog", { name: "New token" });
  await dialog.getByLabel("Name").fill("journal reader");
  await dialog.getByRole("checkbox", { name: /Notes/ }).check();
  await dialog.getByRole("button", { name: "Make token" }).click();

  const shown = page.getByRole("dialog", { name: "Token for journal reader" });
  await expect(shown).toContainText("it will not be shown again");
  const secret = (await shown.locator("pre").first().textContent())?.trim() ?? "";
  expect(secret).toMatch(/^rdt_[A-Za-z0-9_-]{40,}$/);
  await shown.getByRole("button", { name: "Done" }).click();
  await expect(page.getByText("journal reader")).toBeVisible();

  // As an agent: its folder without the write tools, another folder refused.
  const notes = await toolsWith(server, "notes", secret);
  expect(notes.status).toBe(200);
  expect(notes.tools).toContain("ragdown_recall");
  expect(notes.tools).not.toContain("ragdown_write");
  expect((await toolsWith(server, "runbooks", secret)).status).toBe(403);
  // Kept as a hash only.
  expect(readFileSync(join(server.docs, ".ragdown-access.json"), "utf8")).not.toContain(secret);

  await page.getByRole("button", { name: "Revoke journal reader" }).click();
  await page.getByRole("dialog", { name: "Revoke journal reader?" }).getByRole("button", { name: "Revoke" }).click();
  await expect(page.getByText("No tokens yet")).toBeVisible();
  expect((await toolsWith(server, "notes", secret)).status).toBe(401);
});
