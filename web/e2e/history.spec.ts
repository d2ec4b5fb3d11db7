// History end to end, against a real ragdownd on a copy of examples/vault, with agents' changes
// made over real MCP: a document's History (who, when, the diff, Restore this version), a deleted
// document brought back from its page, a folder's Recent changes filtered by session with "Undo
// everything this session did" leaving the other session's change alone, an undo over a file
// changed since asking first, and a deleted subfolder restored. Every check is on the disk.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test, expect, type Server } from "./fixtures";
import { agentCall, agentEdit } from "./agent";

const KAFKA = "runbooks/kafka.md";

/** Waits until the server reads `path` as `text` (a change made behind its back). */
async function seen(server: Server, path: string, text: string) {
  await expect
    .poll(async () => (await server.api<{ text: string }>("GET", `/api/doc?path=${encodeURIComponent(path)}`)).text)
    .toBe(text);
}

/** Every file under `dir` of the docs with its bytes, but the history's own directory. */
function tree(server: Server, dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(server.docs, rel))) {
      const path = `${rel}/${name}`;
      if (name === ".ragdown-history") continue;
      if (statSync(join(server.docs, path)).isDirectory()) walk(path);
      else out[path] = readFileSync(join(server.docs, path)).toString("base64");
    }
  };
  walk(dir);
  return out;
}

test("a document's History shows who changed it and how, and restores a version", async ({ authed: page, server }) => {
  const original = server.read(KAFKA);
  await agentEdit(server, "runbooks", "agent-session-1", "kafka.md", "on three brokers", "on five brokers");
  const byAgent = server.read(KAFKA);
  expect(byAgent).not.toBe(original);
  const doc = await server.api<{ hash: string }>("GET", `/api/doc?path=${encodeURIComponent(KAFKA)}`);
  await server.api("POST", "/api/doc", { path: KAFKA, text: `${byAgent}\nA line saved in the web UI.\n`, base_hash: doc.hash });

  await page.goto("/f/runbooks?doc=kafka.md");
  await page.getByRole("button", { name: "History", exact: true }).click();
  await expect(page).toHaveURL(/history=true/);
  const changes = page.getByRole("list", { name: "Changes" });
  await expect(changes.getByRole("button")).toHaveCount(2);
  const saved = changes.getByRole("button").nth(0);
  const edited = changes.getByRole("button").nth(1);
  await expect(saved).toContainText("Saved kafka.md");
  await expect(saved).toContainText("Web UI");
  await expect(edited).toContainText("Edited kafka.md");
  await expect(edited).toContainText("ragdown_edit");
  await expect(edited).toContainText("agent-se…");

  // The newest is the file now: nothing to restore.
  await expect(saved).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByText("the file holds it now")).toBeVisible();
  await expect(page.getByRole("button", { name: "Restore this version" })).toBeDisabled();

  // The agent's version against now: the web UI's line is only in the file now.
  await edited.click();
  const diff = page.getByRole("table", { name: "Differences between this version and the file now" });
  await expect(diff.locator('tr[data-kind="add"]')).toContainText(["A line saved in the web UI."]);
  await expect(diff.locator('tr[data-kind="del"]')).toHaveCount(0);

  // What the agent's change itself did.
  await page.getByRole("button", { name: "What this change did" }).click();
  const change = page.getByRole("table", { name: "Differences between the file before and the file after" });
  await expect(change.locator('tr[data-kind="del"]')).toContainText(["on three brokers"]);
  await expect(change.locator('tr[data-kind="add"]')).toContainText(["on five brokers"]);

  await page.getByRole("button", { name: "Restore this version" }).click();
  await expect.poll(() => server.read(KAFKA)).toBe(byAgent);
  // The restore is a change of its own, at the top, and can be undone in turn.
  await expect(changes.getByRole("button")).toHaveCount(3);
  await expect(changes.getByRole("button").nth(0)).toContainText("Restored kafka.md");

  // The way back from the first recorded change: the version before the agent's, byte for byte.
  await changes.getByRole("button").nth(2).click();
  await page.getByRole("button", { name: "Restore the version before" }).click();
  await expect.poll(() => server.read(KAFKA)).toBe(original);
});

test("a deleted document is brought back from its page, byte for byte", async ({ authed: page, server }) => {
  const original = server.read("runbooks/deploy.md");
  await agentCall(server, "runbooks", "agent-session-2", "ragdown_delete", { path: "deploy.md" });
  expect(server.exists("runbooks/deploy.md")).toBe(false);

  // A link to it, followed after the agent deleted it.
  await page.goto("/f/runbooks?doc=deploy.md");
  await expect(page.getByText("This document is not there any more")).toBeVisible();
  await page.getByRole("button", { name: "Its history" }).click();
  const deleted = page.getByRole("list", { name: "Changes" }).getByRole("button").first();
  await expect(deleted).toContainText("Deleted deploy.md");
  await expect(page.getByText("The version this change removed")).toBeVisible();
  await page.getByRole("button", { name: "Restore this version" }).click();
  await expect.poll(() => server.exists("runbooks/deploy.md")).toBe(true);
  expect(server.read("runbooks/deploy.md")).toBe(original);
});

test("Recent changes undoes everything one agent session did and leaves the other session's change", async ({ authed: page, server }) => {
  const before = tree(server, "runbooks");
  await agentEdit(server, "runbooks", "session-a", "kafka.md", "on three brokers", "on five brokers");
  await agentEdit(server, "runbooks", "session-b", "deploy.md", "Argo CD", "Flux");
  await agentCall(server, "runbooks", "session-a", "ragdown_write", { path: "scratch.md", text: "# Scratch\n\nWritten by session a.\n" });
  await agentCall(server, "runbooks", "session-a", "ragdown_delete", { path: "postgres-backups-2024.md" });
  const byB = server.read("runbooks/deploy.md");

  await page.goto("/f/runbooks");
  await page.getByRole("link", { name: "Recent changes" }).click();
  await expect(page).toHaveURL(/\/f\/runbooks\/changes/);
  const list = page.getByRole("list", { name: "Recent changes" });
  await expect(list.getByRole("listitem")).toHaveCount(4);
  await expect(list.getByRole("listitem").first()).toContainText("Deleted postgres-backups-2024.md");

  await page.getByRole("button", { name: "Session: all" }).click();
  await page.getByRole("menuitem", { name: "session-a" }).click();
  await expect(page).toHaveURL(/session=session-a/);
  await expect(list.getByRole("listitem")).toHaveCount(3);
  await page.getByRole("button", { name: "Undo everything this session did" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Undo everything" }).click();
  const report = page.getByRole("dialog", { name: "Undid 3 changes" });
  await expect(report).toContainText("Everything this session did is undone.");
  await report.getByRole("button", { name: "Done" }).click();

  // Session a's changes are gone, byte for byte; session b's edit stays.
  const after = tree(server, "runbooks");
  expect(server.read("runbooks/deploy.md")).toBe(byB);
  expect({ ...after, "runbooks/deploy.md": before["runbooks/deploy.md"] }).toEqual(before);
  await expect(list.getByRole("listitem").filter({ hasText: "undone" })).toHaveCount(3);
});

test("an entry's agent session is a link to everything that session did, from Recent changes and from a document's History", async ({ authed: page, server }) => {
  await agentEdit(server, "runbooks", "session-long-name-a", "kafka.md", "on three brokers", "on five brokers");
  await agentEdit(server, "runbooks", "session-b", "deploy.md", "Argo CD", "Flux");
  await agentCall(server, "runbooks", "session-long-name-a", "ragdown_write", { path: "scratch.md", text: "# Scratch\n\nWritten by session a.\n" });

  await page.goto("/f/runbooks/changes");
  const list = page.getByRole("list", { name: "Recent changes" });
  await expect(list.getByRole("listitem")).toHaveCount(3);
  // Session b's entry: its session names it in full (short enough); clicking filters to it.
  await list.getByRole("listitem").filter({ hasText: "deploy.md" }).getByRole("link", { name: "Changes of agent session session-b" }).click();
  await expect(page).toHaveURL(/session=session-b/);
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Session: session-b" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Undo everything this session did" })).toBeEnabled();

  // From a document's History: the chosen change's session, to everything it did in the folder.
  await page.goto("/f/runbooks?doc=kafka.md&history=true");
  await expect(page.getByRole("list", { name: "Changes" }).getByRole("button")).toHaveCount(1);
  await page.getByRole("link", { name: "Everything this session did" }).click();
  await expect(page).toHaveURL(/\/f\/runbooks\/changes\?session=session-long-name-a/);
  await expect(list.getByRole("listitem")).toHaveCount(2);
  await expect(list).toContainText("scratch.md");
  await expect(list).not.toContainText("deploy.md");
});

test("an undo over a file changed since asks first: Keep them changes nothing, Overwrite them undoes", async ({ authed: page, server }) => {
  const original = server.read(KAFKA);
  await agentEdit(server, "runbooks", "session-a", "kafka.md", "on three brokers", "on five brokers");
  const handEdited = `${server.read(KAFKA)}\nEdited in another editor.\n`;
  server.write(KAFKA, handEdited);
  await seen(server, KAFKA, handEdited);

  await page.goto("/f/runbooks/changes");
  const undo = page.getByRole("button", { name: "Undo: Edited kafka.md" });
  await undo.click();
  const asked = page.getByRole("dialog", { name: "Changed since this change" });
  await expect(asked).toContainText(KAFKA);
  await asked.getByRole("button", { name: "Keep them" }).click();
  await expect(asked).toBeHidden();
  expect(server.read(KAFKA)).toBe(handEdited);

  await undo.click();
  await asked.getByRole("button", { name: "Overwrite them" }).click();
  await expect.poll(() => server.read(KAFKA)).toBe(original);
});

test("a deleted subfolder comes back whole from Recent changes", async ({ authed: page, server }) => {
  const before = tree(server, "notes");
  await agentCall(server, "notes", "session-c", "ragdown_delete", { path: "cjk", recursive: true });
  expect(server.exists("notes/cjk")).toBe(false);

  await page.goto("/f/notes/changes");
  await page.getByRole("button", { name: /^Restore: Deleted cjk \(3 files\)/ }).click();
  await expect.poll(() => server.exists("notes/cjk")).toBe(true);
  await expect.poll(() => tree(server, "notes")).toEqual(before);
});
