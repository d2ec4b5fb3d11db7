import { describe, expect, it } from "vitest";
import { fold, matchRanges } from "./fold";
import { words } from "./rank";

/** The marked parts of `text` for the query `q`. */
const marked = (text: string, q: string) => matchRanges(text, words(q)).map(([s, e]) => text.slice(s, e));

describe("fold", () => {
  it("folds width, compatibility forms and decomposed text, and case", () => {
    expect(fold("ＡＰＩ")).toBe("api");
    expect(fold("ﾊﾞｯｸｱｯﾌﾟ")).toBe("バックアップ");
    expect(fold("백업".normalize("NFD"))).toBe("백업");
    expect(fold("㍿")).toBe("株式会社");
    expect(fold("Kafka")).toBe("kafka");
  });
});

describe("matchRanges", () => {
  it("marks a word inside a CJK title with no spaces", () => {
    expect(matchRanges("数据库备份", words("备份"))).toEqual([[3, 5]]);
    expect(marked("障害対応手順", "障害 手順")).toEqual(["障害", "手順"]);
    expect(marked("백업 절차", "절차")).toEqual(["절차"]);
  });

  it("maps a folded match back to the original's characters", () => {
    // Eight half-width units fold to six full-width characters.
    expect(matchRanges("ﾊﾞｯｸｱｯﾌﾟ手順", words("バックアップ"))).toEqual([[0, 8]]);
    expect(marked("バックアップ", "ﾊﾞｯｸ")).toEqual(["バック"]);
    expect(marked("ＡＰＩ reference", "api")).toEqual(["ＡＰＩ"]);
    // A part of what one character folds to marks that whole character.
    expect(marked("㍿ガイド", "株式")).toEqual(["㍿"]);
    // A decomposed (NFD) Hangul syllable is marked with all of its jamo.
    expect(matchRanges("백업".normalize("NFD"), words("업"))).toEqual([[3, 6]]);
  });

  it("never cuts a surrogate pair or an emoji sequence", () => {
    expect(matchRanges("𠮷野家の🍣メニュー", words("野家"))).toEqual([[2, 4]]);
    expect(marked("𠮷野家の🍣メニュー", "🍣")).toEqual(["🍣"]);
    expect(marked("𠮷野家", "𠮷")).toEqual(["𠮷"]);
    expect(matchRanges("👨‍👩‍👧 family", words("family"))).toEqual([[9, 15]]);
    expect(marked("👨‍👩‍👧 family", "👩")).toEqual(["👨‍👩‍👧"]);
  });

  it("marks every occurrence of every word, merged, and nothing for a blank query", () => {
    expect(matchRanges("Kafka operations", words("ka"))).toEqual([[0, 2], [3, 5]]);
    expect(matchRanges("Kafka", words("kaf afk"))).toEqual([[0, 4]]);
    expect(matchRanges("Kafka", [])).toEqual([]);
  });
});
