// Chinese, Japanese and Korean in a real Chromium: the Filter and the quick switcher find a word
// inside a CJK title and mark it, full-width and half-width forms included; and typing through
// an IME (Chrome DevTools Protocol `Input.imeSetComposition` / `Input.insertText`, as an input
// method drives the page) sends no `/api/search` during a composition and exactly one after it.
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { addCjkNotes } from "./cjk";

const tree = (page: Page) => page.getByRole("tree", { name: "Documents in Notes" });
/** The documents listed (the subfolders, also tree items, are not links). */
const docs = (page: Page) => tree(page).locator("a[role=treeitem]");

test("Filter finds a word inside a CJK title and marks it, width folded", async ({ authed: page, server }) => {
  await addCjkNotes(server);
  await page.goto("/f/notes");
  const filter = page.getByRole("searchbox", { name: "Filter by title, path or tag" });

  await filter.fill("备份");
  await expect(docs(page)).toHaveCount(1);
  await expect(docs(page)).toContainText("数据库备份");
  // Marked in the title (数据库备份与恢复) and in the file name (数据库备份.md).
  await expect(tree(page).locator("mark")).toHaveText(["备份", "备份"]);

  await filter.fill("障害");
  await expect(docs(page)).toHaveCount(1);
  await expect(docs(page)).toContainText("障害対応手順");

  await filter.fill("백업");
  await expect(docs(page)).toHaveCount(1);
  await expect(docs(page)).toContainText("백업 절차");

  // Half-width katakana finds the full-width title, and the mark covers the whole characters.
  await filter.fill("ﾊﾞｯｸｱｯﾌﾟ");
  await expect(docs(page)).toHaveCount(1);
  await expect(tree(page).locator("mark")).toHaveText(["バックアップ"]);

  // Full-width Latin finds the path's half-width folder name.
  await filter.fill("ＣＪＫ/백업");
  await expect(docs(page)).toHaveCount(1);
  await expect(docs(page)).toContainText("백업 절차");
});

test("the quick switcher finds a CJK title by a word inside it and opens it", async ({ authed: page, server }) => {
  await addCjkNotes(server);
  await page.goto("/f/runbooks");
  await page.keyboard.press("Control+k");
  const palette = page.getByRole("dialog", { name: "Jump to a document" });
  await palette.getByRole("combobox").fill("対応");
  await expect(palette.getByRole("option").first()).toContainText("障害対応手順");
  // Marked in the title and in the path (cjk/障害対応手順.md).
  await expect(palette.getByRole("option").first().locator("mark")).toHaveText(["対応", "対応"]);
  await page.keyboard.press("Enter");
  await expect.poll(() => decodeURIComponent(page.url())).toMatch(/\/f\/notes\?doc=cjk\/障害対応手順\.md$/);
});

/** An input method on `page`: `compose` shows a composition's text so far, `confirm` ends it with `text`. */
async function ime(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  return {
    compose: async (...steps: string[]) => {
      for (const step of steps) await cdp.send("Input.imeSetComposition", { text: step, selectionStart: step.length, selectionEnd: step.length });
    },
    confirm: async (text: string) => {
      await cdp.send("Input.insertText", { text });
      await cdp.detach();
    },
  };
}

// A composition can last for seconds; nothing must be sent for its keystrokes however long the
// person pauses. The only way to see that nothing is sent is to wait past the search's debounce
// (250 ms, SearchResults.tsx) with the composition still open.
const PAST_DEBOUNCE_MS = 1_000;

test("Search sends nothing during an IME composition and one request after it", async ({ authed: page, server }) => {
  await addCjkNotes(server);
  const searches: string[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === "/api/search") searches.push(new URL(r.url()).searchParams.get("q") ?? "");
  });
  await page.goto("/f/notes");
  await page.getByRole("radio", { name: "Search" }).click();
  const box = page.getByRole("searchbox", { name: "Search what the notes say" });
  await box.focus();

  const pinyin = await ime(page);
  await pinyin.compose("b", "bei");
  await page.waitForTimeout(PAST_DEBOUNCE_MS);
  await pinyin.compose("beif", "beife", "beifen", "备份");
  await expect(box).toHaveValue("备份");
  await page.waitForTimeout(PAST_DEBOUNCE_MS);
  expect(searches).toEqual([]);

  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/search");
  await pinyin.confirm("备份");
  await answered;
  await expect(box).toHaveValue("备份");
  await page.waitForTimeout(PAST_DEBOUNCE_MS);
  expect(searches).toEqual(["备份"]);
});

test("Filter keeps the list during an IME composition and filters by what it confirms", async ({ authed: page, server }) => {
  await addCjkNotes(server);
  await page.goto("/f/notes");
  const rows = docs(page);
  const filter = page.getByRole("searchbox", { name: "Filter by title, path or tag" });
  await filter.fill("cjk ");
  await expect(rows).toHaveCount(4);

  const kana = await ime(page);
  await kana.compose("s", "しょ", "しょう", "しょうが", "しょうがい", "障害");
  // Mid-composition nothing is filtered by the kana ("Nothing matches" would flash on each key).
  await expect(filter).toHaveValue("cjk 障害");
  await expect(rows).toHaveCount(4);
  await kana.confirm("障害");
  await expect(filter).toHaveValue("cjk 障害");
  await expect(rows).toHaveCount(1);
  await expect(rows).toContainText("障害対応手順");
});
