import { describe, expect, it } from "vitest";
import { docInfo } from "../api/testing";
import { rankDocs } from "./rank";

describe("rankDocs", () => {
  const docs = [
    docInfo("runbooks/deploy.md", { title: "Deploying services", aliases: ["release process"], mtime_ms: 1 }),
    docInfo("notes/weekly.md", { title: "Platform weekly", aliases: [], mtime_ms: 2 }),
    docInfo("runbooks/kafka.md", { title: "Kafka operations", aliases: ["event bus"], mtime_ms: 3 }),
    docInfo("notes/kafka-ideas.md", { title: "Ideas about Kafka", aliases: [], mtime_ms: 4 }),
  ];
  const paths = (q: string, limit = 10) => rankDocs(docs, q, limit).map((d) => d.path);

  it("ranks a title that starts with the query first, then one holding it", () => {
    expect(paths("kafka")).toEqual(["runbooks/kafka.md", "notes/kafka-ideas.md"]);
  });

  it("matches aliases and paths, every word", () => {
    expect(paths("release")).toEqual(["runbooks/deploy.md"]);
    expect(paths("notes kafka")).toEqual(["notes/kafka-ideas.md"]);
    expect(paths("bus event")).toEqual(["runbooks/kafka.md"]);
  });

  it("lists the newest first for a blank query, up to the limit", () => {
    expect(paths("", 2)).toEqual(["notes/kafka-ideas.md", "runbooks/kafka.md"]);
  });
});
