// The main screens, light and dark: no serious or critical axe-core violations on any of them,
// and a screenshot of each (into SCREENSHOTS_DIR, e.g. ../docs/screens for docs/web-ui.md and the
// README; else into the test's output).
import AxeBuilder from "@axe-core/playwright";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { test, expect, type Server } from "./fixtures";
import { addCjkNotes } from "./cjk";
import { agentCall, agentEdit } from "./agent";
import { authorizePath, connectApp, pkce, register } from "./oauth";

/** A morning of agents' work: two sessions editing runbooks, one writing a note and deleting one. */
async function agentsWorked(server: Server) {
  await agentEdit(server, "runbooks", "3f9c2a71-claude-code", "kafka.md", "on three brokers", "on five brokers");
  await agentEdit(server, "runbooks", "3f9c2a71-claude-code", "kafka.md", "Lag over 10,000 messages", "Lag over 50,000 messages");
  await agentEdit(server, "runbooks", "b41d07e2-desktop", "deploy.md", "read [Rolling back](#rolling-back) first", "ask in #platform first");
  await agentCall(server, "runbooks", "3f9c2a71-claude-code", "ragdown_write", { path: "kafka-upgrade.md", text: "# Kafka 3.9 upgrade\n\nRoll one broker at a time.\n" });
  await agentCall(server, "runbooks", "3f9c2a71-claude-code", "ragdown_delete", { path: "postgres-backups-2024.md" });
}

interface Screen {
  name: string;
  open: (page: Page, server: Server) => Promise<void>;
}

const screens: Screen[] = [
  {
    name: "document",
    open: async (page) => {
      await page.goto("/f/runbooks?doc=kafka.md");
      await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
      await expect(page.getByText("Backlinks").first()).toBeVisible();
    },
  },
  {
    name: "search",
    open: async (page) => {
      await page.goto("/f/runbooks");
      await page.getByRole("radio", { name: "Search" }).click();
      await page.getByPlaceholder("Search what the notes say").fill("consumer lag");
      await expect(page.getByRole("list", { name: /results/i }).getByRole("link").first()).toBeVisible();
    },
  },
  {
    name: "editor",
    open: async (page) => {
      await page.goto("/f/runbooks?doc=kafka.md&edit=true");
      await expect(page.getByRole("textbox", { name: /Markdown of/ })).toBeVisible();
      await expect(page.locator(".cm-line").first()).toBeVisible();
    },
  },
  {
    // Chinese, Japanese and Korean notes: a Chinese document open, Filter marking a word inside titles.
    name: "cjk-filter",
    open: async (page, server) => {
      await addCjkNotes(server);
      await page.goto("/f/notes?doc=cjk/数据库备份.md");
      await expect(page.getByRole("heading", { level: 1, name: "数据库备份与恢复" }).first()).toBeVisible();
      await page.getByRole("searchbox", { name: "Filter by title, path or tag" }).fill("备份");
      await expect(page.getByRole("tree").locator("mark").first()).toBeVisible();
    },
  },
  {
    name: "cjk-switcher",
    open: async (page, server) => {
      await addCjkNotes(server);
      await page.goto("/f/notes?doc=cjk/障害対応手順.md");
      await expect(page.getByRole("heading", { level: 1, name: "障害対応手順" }).first()).toBeVisible();
      await page.keyboard.press("Control+k");
      await page.getByRole("dialog", { name: "Jump to a document" }).getByRole("combobox").fill("ﾊﾞｯｸ");
      await expect(page.getByRole("option").first().locator("mark")).toHaveText("バック");
    },
  },
  {
    // A document's History: an agent's edit against the file now.
    name: "history",
    open: async (page, server) => {
      await agentsWorked(server);
      await page.goto("/f/runbooks?doc=kafka.md&history=true");
      await page.getByRole("list", { name: "Changes" }).getByRole("button").nth(1).click();
      await page.getByRole("button", { name: "What this change did" }).click();
      await expect(page.getByRole("table", { name: /Differences/ })).toBeVisible();
    },
  },
  {
    // A folder's Recent changes, one agent session picked.
    name: "recent-changes",
    open: async (page, server) => {
      await agentsWorked(server);
      await page.goto("/f/runbooks/changes?session=3f9c2a71-claude-code");
      await expect(page.getByRole("list", { name: "Recent changes" }).getByRole("listitem")).toHaveCount(4);
    },
  },
  {
    // A directory too large to send whole: its first 500 documents, then the row that asks for more.
    name: "large-folder",
    open: async (page, server) => {
      mkdirSync(join(server.docs, "runbooks/archive"), { recursive: true });
      for (let i = 1; i <= 620; i++) server.write(`runbooks/archive/incident ${i}.md`, `# Incident ${i}\n\nArchived postmortem ${i}.\n`);
      type Folders = { folders: { name: string; files: number }[] };
      await expect
        .poll(async () => (await server.api<Folders>("GET", "/api/folders")).folders.find((f) => f.name === "runbooks")?.files, { timeout: 60_000 })
        .toBe(5 + 620);
      await page.goto("/f/runbooks?doc=kafka.md");
      const tree = page.getByRole("tree", { name: "Documents in Runbooks" });
      await tree.getByRole("treeitem", { name: "archive 620 documents" }).click();
      const more = tree.getByRole("treeitem", { name: /^Show .* more documents/ });
      await expect(more).toHaveText("Show 120 more documents (500 of 620)");
      await more.scrollIntoViewIfNeeded();
      // A row under the pointer, so the check covers a hovered row's file name too.
      await tree.getByRole("treeitem", { name: /^Incident 497(?!\d)/ }).hover();
    },
  },
  {
    name: "settings-folders",
    open: async (page) => {
      await page.goto("/settings");
      await expect(page.getByRole("table")).toBeVisible();
    },
  },
  {
    // Settings → Access: two agents' tokens, one read-only with an expiry, one for a subfolder.
    name: "settings-access",
    open: async (page, server) => {
      await server.api("POST", "/api/access/tokens", { name: "journal assistant", scope: ["notes"], access: "read", expires_ms: Date.now() + 30 * 86_400_000 });
      await server.api("POST", "/api/access/tokens", { name: "claude code: oncall", scope: ["runbooks"], access: "write" });
      await page.goto("/settings?tab=access");
      await expect(page.getByText("journal assistant")).toBeVisible();
    },
  },
  {
    // Settings → Access with two apps connected with OAuth (one has used its token), under one agent's token.
    name: "settings-access-apps",
    open: async (page, server) => {
      await server.api("POST", "/api/access/tokens", { name: "claude code: oncall", scope: ["runbooks"], access: "write" });
      const claude = await connectApp(server, { name: "Claude", redirectUri: "https://claude.ai/api/mcp/auth_callback", folder: "notes", access: "write" });
      // Used once, so Last used has something to say.
      await fetch(`${server.url}/mcp/notes`, {
        method: "POST",
        headers: { Authorization: `Bearer ${claude.access_token}`, Accept: "application/json, text/event-stream", "Content-Type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      await connectApp(server, { name: "Journal helper", redirectUri: "http://127.0.0.1:53682/callback", folder: "notes", access: "read" });
      await page.goto("/settings?tab=access");
      await expect(page.getByRole("region", { name: "Apps connected with OAuth" }).getByRole("row")).toHaveCount(3);
    },
  },
  {
    // The consent page: an app on this computer asks to read and write one folder.
    name: "oauth-consent",
    open: async (page, server) => {
      const redirect = "http://127.0.0.1:53682/callback";
      const client = await register(server, "Claude Code", redirect);
      await page.goto(authorizePath(client, redirect, pkce().challenge, `${server.url}/mcp/notes`));
      await expect(page.getByRole("button", { name: "Allow" })).toBeVisible();
    },
  },
  {
    name: "settings-server",
    open: async (page) => {
      await page.goto("/settings?tab=server");
      await expect(page.getByText("Search defaults").first()).toBeVisible();
    },
  },
  {
    name: "settings-usage",
    open: async (page, server) => {
      await server.api("PATCH", "/api/settings", { query_log: true });
      for (const q of ["kafka consumer lag", "postgres restore", "rotate the on-call pager", "zebra migration"]) {
        await server.api("GET", `/api/search?folder=runbooks&q=${encodeURIComponent(q)}`);
      }
      await page.goto("/settings?tab=usage");
      await expect(page.locator("svg[role=img]").first()).toBeVisible();
    },
  },
];

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help}\n  ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join("\n  ")}`);
}

for (const theme of ["light", "dark"] as const) {
  test.describe(`${theme} theme`, () => {
    test.use({ colorScheme: theme });
    for (const screen of screens) {
      test(`${screen.name}: no serious accessibility violations`, async ({ authed: page, server }, info) => {
        await screen.open(page, server);
        expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(theme === "dark");
        // Let transitions and the first poll settle, so the picture is what a person sees.
        await page.waitForTimeout(400);
        const dir = process.env.SCREENSHOTS_DIR ?? info.outputDir;
        mkdirSync(dir, { recursive: true });
        await page.screenshot({ path: join(dir, `${screen.name}-${theme}.png`) });
        expect(await seriousViolations(page)).toEqual([]);
      });
    }
    test("token gate: no serious accessibility violations", async ({ page }, info) => {
      await page.goto("/");
      await expect(page.getByRole("heading", { name: "Token required" })).toBeVisible();
      const dir = process.env.SCREENSHOTS_DIR ?? info.outputDir;
      mkdirSync(dir, { recursive: true });
      await page.screenshot({ path: join(dir, `token-gate-${theme}.png`) });
      expect(await seriousViolations(page)).toEqual([]);
    });
  });
}
