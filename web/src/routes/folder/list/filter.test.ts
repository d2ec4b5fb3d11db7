import { describe, expect, it } from "vitest";
import { words } from "../../../lib/rank";
import { folderTags, hasTag, headingSlug, matchesFilter, normalizeTag, snippet } from "./filter";
import { docInfo } from "../../../api/testing";

describe("matchesFilter", () => {
  const kafka = docInfo("runbooks/ops/kafka.md", {
    title: "Kafka operations",
    aliases: ["event bus"],
    tags: ["streaming", "oncall"],
    description: "Day-to-day operation of the events cluster",
  });
  const match = (q: string) => matchesFilter(kafka, "ops/kafka.md", words(q));

  it("matches every field, ignoring case", () => {
    expect(match("KAFKA")).toBe(true);
    expect(match("ops/")).toBe(true);
    expect(match("bus")).toBe(true);
    expect(match("streaming")).toBe(true);
    expect(match("#oncall")).toBe(true);
    expect(match("day-to-day")).toBe(true);
  });

  it("wants every word, in any field and any order", () => {
    expect(match("oncall kafka")).toBe(true);
    expect(match("kafka postgres")).toBe(false);
  });

  it("matches everything for a blank query", () => {
    expect(match("   ")).toBe(true);
  });

  it("does not match the folder's own name, which every path would hold", () => {
    expect(match("runbooks")).toBe(false);
  });
});

describe("matchesFilter in Chinese, Japanese and Korean", () => {
  const match = (title: string, q: string, path = "notes/note.md") => matchesFilter(docInfo(`runbooks/${path}`, { title }), path, words(q));

  it("finds a word inside a title with no spaces", () => {
    expect(match("数据库备份", "备份")).toBe(true);
    expect(match("障害対応手順", "障害")).toBe(true);
    expect(match("백업 절차", "백업")).toBe(true);
    expect(match("数据库备份", "监控")).toBe(false);
  });

  it("folds full-width, half-width and decomposed forms on both sides", () => {
    expect(match("API reference", "ＡＰＩ")).toBe(true);
    expect(match("ＡＰＩ reference", "api")).toBe(true);
    expect(match("バックアップ手順", "ﾊﾞｯｸｱｯﾌﾟ")).toBe(true);
    expect(match("Korean", "백업", "백업.md".normalize("NFD"))).toBe(true);
    expect(match("Japanese", "バックアップ", "バックアップ.md".normalize("NFD"))).toBe(true);
  });
});

describe("tags", () => {
  it("normalises as the server stores tags", () => {
    expect(normalizeTag(" #Deploy/ ")).toBe("deploy");
  });

  it("matches a tag and the tags under it, not ones that only start alike", () => {
    expect(hasTag(["deploy/argo"], "deploy")).toBe(true);
    expect(hasTag(["deploy"], "#Deploy")).toBe(true);
    expect(hasTag(["deployment"], "deploy")).toBe(false);
    expect(hasTag([], "")).toBe(true);
  });

  it("lists each tag once, sorted", () => {
    expect(folderTags([docInfo("f/a.md", { tags: ["b", "a"] }), docInfo("f/b.md", { tags: ["a", "c"] })])).toEqual(["a", "b", "c"]);
  });
});

describe("headingSlug", () => {
  it("slugs the breadcrumb's last part", () => {
    expect(headingSlug("Kafka operations › Consumer lag")).toBe("consumer-lag");
    expect(headingSlug("Architecture decisions › ADR-014: Embeddings served by a separate process")).toBe("adr-014-embeddings-served-by-a-separate-process");
    expect(headingSlug("Backups › Restore › Replication")).toBe("replication");
  });

  it("has none for the top of a document", () => {
    expect(headingSlug("Kafka operations")).toBeUndefined();
    expect(headingSlug("")).toBeUndefined();
  });
});

describe("snippet", () => {
  it("reads a table as its cells, without the rule under the header", () => {
    expect(snippet("| Topic | Partitions |\n|---|:---:|\n| `order-events` | 24 |")).toBe("Topic · Partitions order-events · 24");
  });
  it("drops heading lines and fences and collapses whitespace", () => {
    expect(snippet("## Consumer lag\n\nLag over 10,000\nmessages pages.\n```bash\nkafka-consumer-groups.sh\n```")).toBe("Lag over 10,000 messages pages. kafka-consumer-groups.sh");
  });

  it("keeps the text of links and drops code and emphasis marks", () => {
    expect(snippet("See [[deploy#Rolling back|the rollback]] and [[kafka]], [the runbook](deploy.md), `kubectl` and **never** __this__."))
      .toBe("See the rollback and kafka, the runbook, kubectl and never this.");
  });
});
