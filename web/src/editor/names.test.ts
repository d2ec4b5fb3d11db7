import { describe, expect, it } from "vitest";
import { linkTarget, shortestNames } from "./names";

const names = (paths: string[]) => Object.fromEntries(shortestNames(paths));

describe("shortestNames", () => {
  it("uses the bare file name when no other document shares it", () => {
    expect(names(["kafka.md", "guides/deploy.md", "a/b/c/runbook.markdown"])).toEqual({
      "kafka.md": "kafka",
      "guides/deploy.md": "deploy",
      "a/b/c/runbook.markdown": "runbook",
    });
  });

  it("adds as many parent directories as it takes to tell documents apart", () => {
    expect(names(["ops/db/backup.md", "dev/db/backup.md", "notes/backup-old.md"])).toEqual({
      "ops/db/backup.md": "ops/db/backup",
      "dev/db/backup.md": "dev/db/backup",
      "notes/backup-old.md": "backup-old",
    });
    expect(names(["a/x.md", "b/x.md", "b/y.md"])).toEqual({ "a/x.md": "a/x", "b/x.md": "b/x", "b/y.md": "y" });
  });

  it("compares names ignoring case, as the server resolves them", () => {
    expect(names(["Notes/Todo.md", "work/todo.md"])).toEqual({ "Notes/Todo.md": "Notes/Todo", "work/todo.md": "work/todo" });
  });

  it("gives the whole path to a document every suffix of which finds another", () => {
    // `[[x]]` would also name a/x.md by its trailing segment; the exact path `x` wins on the server.
    expect(names(["x.md", "a/x.md"])).toEqual({ "x.md": "x", "a/x.md": "a/x" });
  });

  it("does not count a directory name as a file name", () => {
    expect(names(["kafka/overview.md", "kafka.md"])).toEqual({ "kafka/overview.md": "overview", "kafka.md": "kafka" });
  });
});

describe("linkTarget", () => {
  it("drops Markdown extensions only", () => {
    expect(linkTarget("a/b.md")).toBe("a/b");
    expect(linkTarget("a/b.MDX")).toBe("a/b");
    expect(linkTarget("a/b.txt")).toBe("a/b.txt");
  });
});
