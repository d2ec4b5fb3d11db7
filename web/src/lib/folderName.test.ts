import { describe, expect, it } from "vitest";
import { folderNameProblem } from "./folderName";

describe("folderNameProblem", () => {
  it("accepts the server's names", () => {
    for (const ok of ["work", "Work notes", "_drafts", "a.b-c_d", "9", "x".repeat(64)]) expect(folderNameProblem(ok)).toBeNull();
  });
  it("refuses what the server refuses, saying why", () => {
    expect(folderNameProblem("")).toMatch(/required/);
    expect(folderNameProblem(" work")).toMatch(/start or the end/);
    expect(folderNameProblem("work ")).toMatch(/start or the end/);
    expect(folderNameProblem(".hidden")).toMatch(/dot/);
    expect(folderNameProblem("-dash")).toMatch(/starting with/);
    expect(folderNameProblem("a/b")).toMatch(/Only letters/);
    expect(folderNameProblem("é")).toMatch(/Only letters/);
    expect(folderNameProblem("x".repeat(65))).toMatch(/64/);
    expect(folderNameProblem("node_modules")).toMatch(/node_modules/);
  });
  it("refuses a name that is taken", () => {
    expect(folderNameProblem("notes", ["notes", "runbooks"])).toBe("A folder named notes already exists.");
    expect(folderNameProblem("Notes", ["notes"])).toBeNull();
  });
});
