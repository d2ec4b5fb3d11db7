import { describe, expect, it } from "vitest";
import { linkTarget } from "./names";

describe("linkTarget", () => {
  it("drops Markdown extensions only", () => {
    expect(linkTarget("a/b.md")).toBe("a/b");
    expect(linkTarget("a/b.MDX")).toBe("a/b");
    expect(linkTarget("a/b.txt")).toBe("a/b.txt");
  });
});
