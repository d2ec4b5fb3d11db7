import { describe, expect, it } from "vitest";
import type { Folder, Status } from "../../api/client";
import { floorTooLow, joinTitles, lowFloorFolders, unrelatedScore } from "./folders";

const folder = (name: string, min_score?: number): Folder => ({ name, title: name.toUpperCase(), mcp: true, hook: min_score === undefined ? {} : { min_score }, mcp_path: `/mcp/${name}`, files: 0, chunks: 0 });

function status(embedder: string, measured: number | null, unrelated?: number | null): Status {
  return {
    settings: {
      embedder,
      hook: { top_k: 4, max_chars: 6000, min_score: 0.8, unrelated_score: unrelated },
      embedders: { [embedder]: { min_score: 0.8, unrelated_score: measured } },
    },
  } as unknown as Status;
}

describe("the minimum score check", () => {
  it("reads the loaded embedder's unrelated score, else the known embedder's", () => {
    expect(unrelatedScore(status("granite-small", 0.75, 0.74))).toBe(0.74);
    expect(unrelatedScore(status("granite-small", 0.75))).toBe(0.75);
    expect(unrelatedScore(status("hash", null))).toBeNull();
    expect(unrelatedScore(undefined)).toBeNull();
  });
  it("flags a floor at or below it, never an unset one", () => {
    expect(floorTooLow(0.75, 0.75)).toBe(true);
    expect(floorTooLow(0.7, 0.75)).toBe(true);
    expect(floorTooLow(0.76, 0.75)).toBe(false);
    expect(floorTooLow(null, 0.75)).toBe(false);
    expect(floorTooLow(0.1, null)).toBe(false);
    expect(lowFloorFolders([folder("a", 0.5), folder("b"), folder("c", 0.9)], 0.75).map((f) => f.name)).toEqual(["a"]);
  });
  it("names the folders in a sentence", () => {
    expect(joinTitles(["A"])).toBe("A");
    expect(joinTitles(["A", "B"])).toBe("A and B");
    expect(joinTitles(["A", "B", "C"])).toBe("A, B and C");
  });
});
