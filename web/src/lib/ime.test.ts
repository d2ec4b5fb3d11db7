import { describe, expect, it } from "vitest";
import { isImeKey } from "./ime";

describe("isImeKey", () => {
  it("takes the keys of a composition as no command", () => {
    // Chrome and Firefox: the Enter that confirms is still composing.
    expect(isImeKey({ isComposing: true, keyCode: 13 })).toBe(true);
    // React's synthetic event carries it on nativeEvent.
    expect(isImeKey({ keyCode: 13, nativeEvent: { isComposing: true } })).toBe(true);
    // Safari: the confirming Enter arrives after compositionend, as keyCode 229.
    expect(isImeKey({ isComposing: false, keyCode: 229 })).toBe(true);
  });

  it("leaves a plain Enter alone", () => {
    expect(isImeKey({ isComposing: false, keyCode: 13 })).toBe(false);
    expect(isImeKey({ keyCode: 13, nativeEvent: { isComposing: false } })).toBe(false);
  });
});
