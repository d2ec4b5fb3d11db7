import { describe, expect, it } from "vitest";
import { keys } from "./hooks";
import { isOfPath } from "./mutations";

describe("isOfPath", () => {
  it("names the queries a moved or deleted path leaves behind", () => {
    expect(isOfPath(keys.doc("notes/a.md"), "notes/a.md")).toBe(true);
    expect(isOfPath(keys.backlinks("notes/a.md"), "notes/a.md")).toBe(true);
    expect(isOfPath(keys.resolve("notes/a.md", "b"), "notes/a.md")).toBe(true);
    expect(isOfPath(keys.file("notes/a.md"), "notes/a.md")).toBe(true);
  });

  it("takes in what was under a moved subfolder, and nothing else", () => {
    expect(isOfPath(keys.doc("notes/sub/a.md"), "notes/sub")).toBe(true);
    expect(isOfPath(keys.doc("notes/subway.md"), "notes/sub")).toBe(false);
    expect(isOfPath(keys.docs("notes"), "notes")).toBe(false);
    expect(isOfPath(keys.search("notes", "notes/a.md", undefined), "notes")).toBe(false);
    expect(isOfPath(keys.status, "notes/a.md")).toBe(false);
  });
});
