import { describe, expect, it } from "vitest";
import { leavesEditor } from "./useLeaveGuard";

const at = (pathname: string, search: Record<string, unknown> = {}) => ({ pathname, search });

describe("leavesEditor", () => {
  it("is a leave for another document, another folder or another page", () => {
    expect(leavesEditor(at("/f/notes", { doc: "a.md" }), at("/f/notes", { doc: "b.md" }))).toBe(true);
    expect(leavesEditor(at("/f/notes", { doc: "a.md" }), at("/f/notes"))).toBe(true);
    expect(leavesEditor(at("/f/notes", { doc: "a.md" }), at("/f/runbooks", { doc: "a.md" }))).toBe(true);
    expect(leavesEditor(at("/f/notes", { doc: "a.md" }), at("/settings"))).toBe(true);
  });

  it("is not a leave when only the list's state changes (tag, sort, the edit flag)", () => {
    expect(leavesEditor(at("/f/notes", { doc: "a.md", edit: true }), at("/f/notes", { doc: "a.md" }))).toBe(false);
    expect(leavesEditor(at("/f/notes", { doc: "a.md" }), at("/f/notes", { doc: "a.md", tag: "x", sort: "recent" }))).toBe(false);
  });
});
