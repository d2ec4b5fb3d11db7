import { test } from "./fixtures";
test.use({ serverEnv: { RAGDOWN_QUERY_LOG: "true" } });
test("shots", async ({ authed: page, server }) => {
  const now = Date.now();
  const hit = (path: string, similarity: number, outcome?: string) => ({ path, heading: "H", lines: [1, 2], similarity, score: 0.03, ...(outcome ? { outcome } : {}) });
  const lines: object[] = [];
  for (let d = 0; d < 20; d++) {
    const at = now - d * 86400000;
    for (let k = 0; k < (d * 7) % 5 + 1; k++) lines.push({ at_ms: at - k * 1000, kind: "recall", endpoint: "runbooks", query: `query ${d}-${k}`, min_score: 0.5, hits: [hit("runbooks/kafka.md", k === 0 ? 0.2 : 0.7)] });
    for (let k = 0; k < (d * 3) % 4; k++) lines.push({ at_ms: at - k * 900, kind: "context", endpoint: "runbooks", query: `prompt ${d}-${k}`, min_score: 0.5, hits: [hit("runbooks/kafka.md", 0.8, k % 2 ? "passed" : "under_floor")] });
    if (d % 3 === 0) lines.push({ at_ms: at, kind: "web_search", endpoint: "", query: "w", min_score: 0.5, hits: [hit("notes/a.md", 0.9)] });
    lines.push({ at_ms: at + 10, kind: "read", endpoint: "runbooks", path: "runbooks/kafka.md", lines: [1, 20] });
  }
  lines.sort((a: any, b: any) => a.at_ms - b.at_ms);
  server.write("../data/query-log.jsonl", lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  server.write("stray.md", "# x");
  await server.api("POST", "/api/folders", { name: "private", title: "Private", mcp: false });
  await server.api("PATCH", "/api/folders/notes", { hook: { min_score: 0.1 } });
  for (const theme of ["light", "dark"]) {
    await page.addInitScript((t) => localStorage.setItem("cubeui-theme", t), theme);
    for (const tab of ["", "device", "server", "usage"]) {
      await page.goto(tab ? `/settings?tab=${tab}` : "/settings");
      await page.waitForTimeout(1200);
      await page.screenshot({ path: `/tmp/shots/${theme}-${tab || "folders"}.png`, fullPage: true });
    }
  }
  await page.goto("/settings");
  await page.getByRole("button", { name: "Edit Notes" }).click();
  await page.waitForTimeout(500);
  await page.screenshot({ path: `/tmp/shots/edit-folder.png` });
  await page.keyboard.press("Escape");
  await page.goto("/settings?tab=server");
  await page.getByRole("button", { name: "Edit settings" }).click();
  await page.waitForTimeout(500);
  await page.screenshot({ path: `/tmp/shots/edit-settings.png` });
  await page.goto("/settings");
  await page.getByRole("button", { name: "Copy MCP config for Private" }).click();
  await page.waitForTimeout(500);
  await page.screenshot({ path: `/tmp/shots/mcp.png` });
  await page.setViewportSize({ width: 420, height: 900 });
  await page.goto("/settings");
  await page.waitForTimeout(800);
  await page.screenshot({ path: `/tmp/shots/narrow.png`, fullPage: true });
});
