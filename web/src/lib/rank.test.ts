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

describe("rankDocs in Chinese, Japanese and Korean", () => {
  const docs = [
    docInfo("notes/cjk/zh.md", { title: "数据库备份", aliases: [], mtime_ms: 5 }),
    docInfo("notes/cjk/policy.md", { title: "备份策略", aliases: [], mtime_ms: 1 }),
    docInfo("notes/cjk/ja.md", { title: "障害対応手順", aliases: ["再起動の手順"], mtime_ms: 6 }),
    docInfo("notes/cjk/backup-ja.md", { title: "バックアップ", aliases: [], mtime_ms: 7 }),
    // A file name written on macOS: decomposed (NFD) Hangul.
    docInfo("notes/cjk/백업-절차.md".normalize("NFD"), { title: "Korean backups", aliases: [], mtime_ms: 8 }),
    docInfo("notes/api.md", { title: "API reference", aliases: [], mtime_ms: 2 }),
  ];
  const paths = (q: string) => rankDocs(docs, q, 10).map((d) => d.path);

  it("finds a word inside a title, the title that starts with it first", () => {
    expect(paths("备份")).toEqual(["notes/cjk/policy.md", "notes/cjk/zh.md"]);
    expect(paths("障害")).toEqual(["notes/cjk/ja.md"]);
    expect(paths("再起動")).toEqual(["notes/cjk/ja.md"]);
  });

  it("matches full-width, half-width and decomposed forms of the same text", () => {
    expect(paths("ＡＰＩ")).toEqual(["notes/api.md"]);
    expect(paths("ﾊﾞｯｸｱｯﾌﾟ")).toEqual(["notes/cjk/backup-ja.md"]);
    expect(paths("백업")).toEqual([docs[4]!.path]);
    expect(paths("절차")).toEqual([docs[4]!.path]);
  });
});
