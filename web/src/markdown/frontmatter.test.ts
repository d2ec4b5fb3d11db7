//! Front matter: the server's fence rule, and the keys the preview reads in each YAML form.
import { describe, expect, it } from "vitest";
import { parseYaml, readFrontMatter, splitFrontMatter, stripFrontMatter } from "./frontmatter";

describe("splitFrontMatter", () => {
  it("strips the block between --- fences, and counts its lines", () => {
    const split = splitFrontMatter("---\ntitle: A\n---\n# A\nbody");
    expect(split).toEqual({ yaml: "title: A", body: "# A\nbody", bodyStart: 3 });
  });

  it("ends at ... too, and takes CRLF", () => {
    expect(stripFrontMatter("---\r\ntags: [a]\r\n...\r\nText")).toBe("Text");
  });

  it("leaves a file alone without an opening fence or without a closing one", () => {
    expect(splitFrontMatter("# Title\n---\nx").yaml).toBeNull();
    expect(stripFrontMatter("---\ntitle: never closed\n")).toBe("---\ntitle: never closed\n");
    expect(stripFrontMatter("")).toBe("");
  });
});

describe("readFrontMatter", () => {
  it("reads the vault's forms: flow lists, block lists, folded and literal scalars", () => {
    const text = [
      "---",
      "title: Postgres backups and restore",
      "tags: [postgres, backups, oncall]",
      "aliases:",
      "  - PITR",
      "  - \"Point-in-time recovery\"",
      "description: >",
      "  How the clusters are backed up",
      "  and restored.",
      "supersedes: postgres-backups-2024.md",
      "---",
      "# Body",
    ].join("\n");
    expect(readFrontMatter(text)).toMatchObject({
      title: "Postgres backups and restore",
      tags: ["postgres", "backups", "oncall"],
      aliases: ["PITR", "Point-in-time recovery"],
      description: "How the clusters are backed up and restored.",
      supersedes: ["postgres-backups-2024.md"],
      createdBy: "",
    });
  });

  it("reads provenance and dates, quoted or not", () => {
    const found = readFrontMatter('---\ncreated_by: ragdown_remember\nsession: "min-agent:7"\ncreated_at: 2026-11-30T10:00:00Z\n---\nx');
    expect(found).toMatchObject({ createdBy: "ragdown_remember", session: "min-agent:7", created: "2026-11-30T10:00:00Z" });
  });

  it("splits a scalar tag list on commas and spaces, and keeps an alias with a comma whole", () => {
    const found = readFrontMatter("---\ntags: postgres, backups legacy\naliases: old, pg backups\n---\n");
    expect(found.tags).toEqual(["postgres", "backups", "legacy"]);
    expect(found.aliases).toEqual(["old, pg backups"]);
  });

  it("yields nothing, and never throws, on front matter that is not YAML", () => {
    expect(readFrontMatter("---\n: : [\n  - \n---\n").title).toBe("");
    expect(readFrontMatter("no front matter").tags).toEqual([]);
  });

  it("keeps colons inside a value and strips a trailing comment", () => {
    expect(parseYaml("title: ADR-014: Embeddings # note\nurl: 'http://x'")).toEqual({ title: "ADR-014: Embeddings", url: "http://x" });
  });
});
