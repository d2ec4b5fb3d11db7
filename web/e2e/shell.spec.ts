// The shell in a real browser: the token gate, Lock, the theme before the first paint and its
// toggle, the sidebar's folders and index status, the window title, and the not-found page.
import { test, expect } from "./fixtures";

test("the gate asks for the token, keeps it, and Lock forgets it", async ({ page, server }) => {
  await page.goto("/f/runbooks");
  await expect(page.getByRole("heading", { name: "Token required" })).toBeVisible();
  const unlock = page.getByRole("button", { name: "Unlock" });
  await expect(unlock).toBeDisabled();

  await page.getByLabel("Bearer token").fill("wrong-token");
  await unlock.click();
  // A wrong token is refused by the server, so the gate comes back.
  await expect(page.getByRole("heading", { name: "Token required" })).toBeVisible();
  await expect(page.getByLabel("Bearer token")).toHaveValue("");

  await page.getByLabel("Bearer token").fill(server.token);
  await page.getByLabel("Bearer token").press("Enter");
  await expect(page.getByRole("navigation", { name: "Folders" }).getByRole("link", { name: /Runbooks/ })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem("ragdown.token"))).toBe(server.token);

  // Kept across a reload: no gate.
  await page.reload();
  await expect(page.getByRole("navigation", { name: "Folders" }).getByRole("link", { name: /Runbooks/ })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Token required" })).toHaveCount(0);

  await page.getByRole("button", { name: /Lock/ }).first().click();
  await expect(page.getByRole("heading", { name: "Token required" })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem("ragdown.token"))).toBeNull();
});

test("the sidebar lists the folders with their MCP state and the index status", async ({ authed: page, server }) => {
  await server.api("PATCH", "/api/folders/notes", { mcp: false });
  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "Folders" });
  const folders = (await server.api<{ folders: { name: string; title: string; files: number }[] }>("GET", "/api/folders")).folders;
  for (const f of folders) {
    const state = f.name === "notes" ? "human-only" : "on MCP";
    await expect(nav.getByRole("link", { name: `${f.title}: ${f.files} files, ${state}` })).toBeVisible();
  }
  // Home opens the first folder, replacing itself in the history.
  await expect(page).toHaveURL(/\/f\/[^/]+$/);
  const status = await server.api<{ files: number; chunks: number }>("GET", "/api/status");
  await expect(page.getByText(`${status.files} files · ${status.chunks} chunks`)).toBeVisible();
  await expect(page.getByText(/Synced|Idle/)).toBeVisible();
});

test("home reopens the folder last opened in this browser", async ({ authed: page }) => {
  await page.goto("/f/notes");
  await expect(page).toHaveTitle(/Notes/);
  await page.goto("/");
  await expect(page).toHaveURL(/\/f\/notes$/);
});

test("the theme applies before the first paint and the toggle switches it", async ({ authed: page }) => {
  await page.addInitScript(() => localStorage.setItem("cubeui-theme", "dark"));
  await page.goto("/settings");
  // Set by the inline script in index.html, before React has run.
  expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(true);
  const toggle = page.getByRole("navigation", { name: "Folders" }).locator("..").getByRole("radiogroup", { name: "Theme" });
  await toggle.getByRole("radio", { name: "Light" }).click();
  await expect(page.locator("html")).not.toHaveClass(/dark/);
  expect(await page.evaluate(() => localStorage.getItem("cubeui-theme"))).toBe("light");
  await page.emulateMedia({ colorScheme: "dark" });
  await toggle.getByRole("radio", { name: "Match the system" }).click();
  await expect(page.locator("html")).toHaveClass(/dark/);
  await page.emulateMedia({ colorScheme: "light" });
  await expect(page.locator("html")).not.toHaveClass(/dark/);
});

test("an unknown page says so and links home", async ({ authed: page }) => {
  await page.goto("/no/such/page");
  await expect(page.getByText("Nothing here")).toBeVisible();
  await page.getByRole("link", { name: "Open your folders" }).click();
  await expect(page).toHaveURL(/\/f\//);
});
