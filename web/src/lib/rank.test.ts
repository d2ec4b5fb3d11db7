import { describe, expect, it } from "vitest";
import { words } from "./rank";

describe("words", () => {
  it("folds width and case and splits on any whitespace", () => {
    expect(words("  Kafka　ＬＡＧ\tops ")).toEqual(["kafka", "lag", "ops"]);
    expect(words("ﾊﾞｯｸｱｯﾌﾟ")).toEqual(["バックアップ"]);
    expect(words("   ")).toEqual([]);
  });
});
