import { describe, expect, it } from "vitest";
import { headingSlug, normalizeTag, snippet } from "./filter";

describe("tags", () => {
  it("normalises as the server stores tags", () => {
    expect(normalizeTag(" #Deploy/ ")).toBe("deploy");
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
