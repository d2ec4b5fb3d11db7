import { describe, expect, it } from "vitest";
import { applyCjkFonts, cjkFonts } from "./cjkFont";

describe("cjkFonts", () => {
  it("follows the first CJK language the reader prefers", () => {
    expect(cjkFonts(["en-US", "ja-JP", "zh-CN"])).toBe("ja");
    expect(cjkFonts(["zh-CN"])).toBe("zh-hans");
    expect(cjkFonts(["zh"])).toBe("zh-hans");
    expect(cjkFonts(["zh-Hans-SG"])).toBe("zh-hans");
    expect(cjkFonts(["zh-TW"])).toBe("zh-hant");
    expect(cjkFonts(["zh-Hant-HK"])).toBe("zh-hant");
    expect(cjkFonts(["zh-hk"])).toBe("zh-hant");
    expect(cjkFonts(["ko-KR", "en"])).toBe("ko");
  });

  it("has none without a CJK language, and does not take a look-alike", () => {
    expect(cjkFonts(["en-US", "de"])).toBeUndefined();
    expect(cjkFonts(["jam", "kok"])).toBeUndefined();
    expect(cjkFonts([])).toBeUndefined();
  });

  it("marks the root element", () => {
    const root = document.createElement("html");
    applyCjkFonts(root, ["ko"]);
    expect(root.dataset.cjk).toBe("ko");
    const plain = document.createElement("html");
    applyCjkFonts(plain, ["en"]);
    expect(plain.dataset.cjk).toBeUndefined();
  });
});
