import { describe, expect, it } from "vitest";
import { summary, undoLabel, versionsAt, whoLabel, type Entry, type Op } from "./entries";

const H = (c: string) => c.repeat(64);
const entry = (action: string, ops: Op[], who: Entry["who"] = { via: "web" }): Entry => ({ id: "1", at: "2026-12-04T10:00:00Z", action, ops, who });

describe("summary", () => {
  it("says what a one-file change did, inside the folder", () => {
    expect(summary(entry("edit", [{ op: "file", path: "notes/a.md", before: H("a"), after: H("b") }]), "notes")).toBe("Edited a.md");
    expect(summary(entry("write", [{ op: "file", path: "notes/n.md", before: null, after: H("b") }]), "notes")).toBe("Created n.md");
    expect(summary(entry("write", [{ op: "file", path: "notes/n.md", before: H("a"), after: H("b") }]))).toBe("Wrote notes/n.md");
  });

  it("names both ends of a move and counts the documents whose links were rewritten", () => {
    const move = entry("move", [
      { op: "rename", from: "notes/a.md", to: "notes/b/a.md", dir: false, hash: H("a") },
      { op: "file", path: "notes/x.md", before: H("1"), after: H("2") },
      { op: "file", path: "notes/y.md", before: H("3"), after: H("4") },
    ]);
    expect(summary(move, "notes")).toBe("Moved a.md → b/a.md (links in 2 documents)");
  });

  it("counts the files of a recursive delete under the folder it removed", () => {
    const gone = entry("delete", [
      { op: "file", path: "notes/sub/a.md", before: H("a"), after: null },
      { op: "file", path: "notes/sub/img.png", before: H("b"), after: null },
      { op: "rmdir", path: "notes/sub" },
    ]);
    expect(summary(gone, "notes")).toBe("Deleted sub (2 files)");
  });
});

describe("versionsAt", () => {
  it("reads a document's hashes from its file step, first before and last after", () => {
    const twice = entry("edit", [
      { op: "file", path: "n/a.md", before: H("a"), after: H("b") },
      { op: "file", path: "n/a.md", before: H("b"), after: H("c") },
    ]);
    expect(versionsAt(twice, "n/a.md")).toEqual({ before: H("a"), after: H("c") });
    expect(versionsAt(twice, "n/other.md")).toBeUndefined();
  });

  it("follows a document through a move from either end", () => {
    const move = entry("move", [{ op: "rename", from: "n/a.md", to: "n/b.md", dir: false, hash: H("a") }]);
    expect(versionsAt(move, "n/a.md")).toEqual({ before: H("a"), after: null });
    expect(versionsAt(move, "n/b.md")).toEqual({ before: null, after: H("a") });
  });
});

describe("labels", () => {
  it("names who and the undo an entry offers", () => {
    expect(whoLabel({ via: "web" })).toBe("Web UI");
    expect(whoLabel({ via: "web", token: "importer" })).toBe("API");
    expect(whoLabel({ via: "mcp", tool: "ragdown_edit", session: "s" })).toBe("ragdown_edit");
    expect(undoLabel(entry("delete", []))).toBe("Restore");
    expect(undoLabel(entry("delete-folder", []))).toBe("Restore");
    expect(undoLabel(entry("undo", []))).toBe("Redo");
    expect(undoLabel(entry("edit", []))).toBe("Undo");
  });
});
