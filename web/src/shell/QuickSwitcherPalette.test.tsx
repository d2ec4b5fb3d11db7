//! The quick switcher's palette with CJK titles: a word inside a title finds it, typed words are
//! marked, an IME composition changes the hits only when it ends, and the Enter that confirms a
//! composition (Chrome's `isComposing`, Safari's keyCode 229) opens nothing.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { docInfo } from "../api/testing";
import { fold } from "../lib/fold";
import { words } from "../lib/rank";
import Palette from "./QuickSwitcherPalette";

const navigate = vi.fn();
vi.mock("@tanstack/react-router", () => ({ useNavigate: () => navigate }));
vi.mock("../api/hooks", async (original) => ({
  ...(await original<typeof import("../api/hooks")>()),
  useFolders: () => ({ data: { folders: [] } }),
  // A stand-in for the server's ranking (tools::browse::jump has its own tests): the titles that
  // hold every word. What is tested here is what the palette asks for and how it shows it.
  useJump: (q: string) => {
    asked.push(q);
    return { isPending: false, isError: false, data: docs.filter((d) => words(q).every((w) => fold(d.title).includes(w))) };
  },
}));
const asked: string[] = [];
const docs = [
  docInfo("notes/cjk/zh.md", { title: "数据库备份", mtime_ms: 3 }),
  docInfo("notes/cjk/ja.md", { title: "障害対応手順", mtime_ms: 2 }),
  docInfo("notes/cjk/ko.md", { title: "백업 절차", mtime_ms: 1 }),
  docInfo("notes/cjk/kana.md", { title: "バックアップ🍣", mtime_ms: 0 }),
];

beforeAll(() => {
  // cmdk measures its list and scrolls to the selected item; jsdom has neither.
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
  Element.prototype.scrollIntoView ??= () => {};
});

describe("QuickSwitcherPalette", () => {
  beforeEach(() => {
    navigate.mockClear();
    asked.length = 0;
  });
  afterEach(cleanup);

  const setup = () => {
    render(<Palette onDone={() => {}} />);
    return screen.getByRole("combobox") as HTMLInputElement;
  };
  /** The documents offered (not the folders or Settings). */
  const titles = () => screen.queryAllByRole("option").flatMap((o) => (o.textContent?.includes(".md") ? [o.textContent] : []));
  const marks = () => Array.from(document.querySelectorAll("mark"), (m) => m.textContent);

  it("finds a word inside a CJK title and marks it", () => {
    const box = setup();
    fireEvent.change(box, { target: { value: "备份" } });
    expect(titles()).toHaveLength(1);
    expect(titles()[0]).toContain("数据库备份");
    expect(marks()).toEqual(["备份"]);
  });

  it("finds full-width katakana by half-width and marks whole characters", () => {
    const box = setup();
    fireEvent.change(box, { target: { value: "ﾊﾞｯｸ" } });
    expect(titles()).toHaveLength(1);
    expect(marks()).toEqual(["バック"]);
    fireEvent.change(box, { target: { value: "🍣" } });
    expect(marks()).toEqual(["🍣"]);
  });

  it("ranks on what a composition confirms, and its Enter opens nothing", () => {
    const box = setup();
    fireEvent.compositionStart(box);
    fireEvent.change(box, { target: { value: "しょう" } });
    // Mid-composition the hits are still the recent documents, not "nothing matches": the
    // server is not asked for what the IME has not confirmed.
    expect(titles()).toHaveLength(4);
    expect(asked).not.toContain("しょう");
    fireEvent.keyDown(box, { key: "Enter", isComposing: true });
    fireEvent.change(box, { target: { value: "障害" } });
    fireEvent.compositionEnd(box, { data: "障害" });
    // Safari: the confirming Enter comes after compositionend, with keyCode 229.
    fireEvent.keyDown(box, { key: "Enter", keyCode: 229 });
    expect(navigate).not.toHaveBeenCalled();
    expect(titles()).toHaveLength(1);
    expect(titles()[0]).toContain("障害対応手順");
    fireEvent.keyDown(box, { key: "Enter" });
    expect(navigate).toHaveBeenCalledTimes(1);
    expect(navigate.mock.calls[0]![0]).toMatchObject({ search: { doc: "cjk/ja.md" } });
  });
});
