import { describe, expect, it } from "vitest";
import { insidePath } from "../../../lib/paths";
import { ancestors, buildTree, moveTarget, movedPath, recentDocs, treeOfListings, visibleRows, type DirNode, type Listing, type TreeNode } from "./tree";
import { docInfo } from "../../../api/testing";

const names = (dir: DirNode) => dir.children.map((c: TreeNode) => (c.kind === "dir" ? `${c.name}/` : c.name));

describe("buildTree", () => {
  const docs = [
    docInfo("notes/zeta.md"),
    docInfo("notes/Alpha.md"),
    docInfo("notes/note 10.md"),
    docInfo("notes/note 2.md"),
    docInfo("notes/projects/b/deep.md"),
    docInfo("notes/projects/a.md"),
    docInfo("notes/Archive/old.md"),
  ];
  const root = buildTree(docs, "notes");

  it("strips the folder and nests directories", () => {
    const projects = root.children.find((c) => c.name === "projects") as DirNode;
    expect(projects.path).toBe("projects");
    const b = projects.children.find((c) => c.name === "b") as DirNode;
    expect(b.path).toBe("projects/b");
    expect(b.children[0]).toMatchObject({ kind: "doc", name: "deep.md", path: "projects/b/deep.md" });
  });

  it("puts directories first, then files, case-insensitively and in natural order", () => {
    expect(names(root)).toEqual(["Archive/", "projects/", "Alpha.md", "note 2.md", "note 10.md", "zeta.md"]);
    expect(names(root.children[1] as DirNode)).toEqual(["b/", "a.md"]);
  });

  it("counts the documents in and under each directory", () => {
    expect(root.count).toBe(7);
    expect((root.children[1] as DirNode).count).toBe(2);
  });

  it("is empty for no documents", () => {
    expect(buildTree([], "notes")).toMatchObject({ path: "", children: [], count: 0 });
  });
});

describe("visibleRows", () => {
  const root = buildTree([docInfo("f/a/b/c.md"), docInfo("f/a/x.md"), docInfo("f/top.md")], "f");

  it("shows only the children of open directories, with their levels and positions", () => {
    expect(visibleRows(root, () => false).map((r) => [r.node.path, r.level, r.posinset, r.setsize])).toEqual([
      ["a", 1, 1, 2],
      ["top.md", 1, 2, 2],
    ]);
    const open = new Set(["a", "a/b"]);
    expect(visibleRows(root, (d) => open.has(d)).map((r) => [r.node.path, r.level, r.parent])).toEqual([
      ["a", 1, ""],
      ["a/b", 2, "a"],
      ["a/b/c.md", 3, "a/b"],
      ["a/x.md", 2, "a"],
      ["top.md", 1, ""],
    ]);
  });

  it("hides a subtree when an outer directory is closed, whatever the inner one says", () => {
    expect(visibleRows(root, (d) => d === "a/b").map((r) => r.node.path)).toEqual(["a", "top.md"]);
  });
});

describe("treeOfListings", () => {
  const listing = (fields: Partial<Listing>): Listing => ({ dirs: [], docs: [], total_docs: 0, loading: false, failed: false, ...fields });
  const top = listing({ dirs: [{ name: "archive", path: "archive", count: 1203 }, { name: "ops", path: "ops", count: 2 }], docs: [docInfo("notes/b.md"), docInfo("notes/a.md")], total_docs: 2 });
  const archive = listing({ docs: [docInfo("notes/archive/entry 1.md"), docInfo("notes/archive/entry 2.md")], total_docs: 1203 });
  const shape = (root: DirNode) => visibleRows(root, () => true).map((r) => (r.node.kind === "more" ? `more:${r.node.path}:${r.node.shown}/${r.node.total}${r.node.loading ? ":loading" : ""}` : r.node.path));

  it("keeps the server's order, counts from the server, and ends a directory sent in part with a more row", () => {
    const root = treeOfListings("notes", new Map([["", top], ["archive", archive]]));
    expect(root.count).toBe(1207);
    expect((root.children[0] as DirNode).count).toBe(1203);
    expect(shape(root)).toEqual(["archive", "archive/entry 1.md", "archive/entry 2.md", "more:archive:2/1203", "ops", "b.md", "a.md"]);
  });

  it("shows a directory on its way as loading, and one not asked for as empty", () => {
    expect(shape(treeOfListings("notes", new Map([["", top], ["archive", undefined]])))).toEqual(["archive", "more:archive:0/0:loading", "ops", "b.md", "a.md"]);
    const asked = treeOfListings("notes", new Map([["", { ...top, loading: true }]]));
    expect(shape(asked)).toEqual(["archive", "ops", "b.md", "a.md", "more::2/2:loading"]);
  });

  it("offers to try again where a page failed", () => {
    const root = treeOfListings("notes", new Map([["", listing({ failed: true })]]));
    expect(root.children).toEqual([{ kind: "more", name: "", path: "", shown: 0, total: 0, loading: false, failed: true }]);
  });
});

describe("recentDocs", () => {
  it("orders by change time, newest first, then by path", () => {
    const docs = [docInfo("f/old.md", { mtime_ms: 1 }), docInfo("f/b.md", { mtime_ms: 5 }), docInfo("f/a.md", { mtime_ms: 5 }), docInfo("f/new.md", { mtime_ms: 9 })];
    expect(recentDocs(docs).map((d) => d.path)).toEqual(["f/new.md", "f/a.md", "f/b.md", "f/old.md"]);
    expect(docs[0]!.path).toBe("f/old.md");
  });
});

describe("paths", () => {
  it("strips the folder and lists the ancestors", () => {
    expect(insidePath("notes", "notes/a/b.md")).toBe("a/b.md");
    expect(insidePath("notes", "notesy/a.md")).toBe("notesy/a.md");
    expect(ancestors("a/b/c.md")).toEqual(["a", "a/b"]);
    expect(ancestors("c.md")).toEqual([]);
  });

  it("knows where a drop lands, and refuses the drops that change nothing", () => {
    expect(moveTarget("a.md", "archive")).toBe("archive/a.md");
    expect(moveTarget("x/a.md", "")).toBe("a.md");
    expect(moveTarget("x/y", "z")).toBe("z/y");
    expect(moveTarget("archive/a.md", "archive")).toBeNull();
    expect(moveTarget("a.md", "")).toBeNull();
    expect(moveTarget("x", "x")).toBeNull();
    expect(moveTarget("x", "x/y")).toBeNull();
    expect(moveTarget("x", "xy")).toBe("xy/x");
  });

  it("follows a path through a move", () => {
    expect(movedPath("a.md", "a.md", "b/a.md")).toBe("b/a.md");
    expect(movedPath("x/y/z.md", "x/y", "w/y")).toBe("w/y/z.md");
    expect(movedPath("x/yz.md", "x/y", "w/y")).toBe("x/yz.md");
  });
});
