import { describe, expect, it } from "vitest";
import { asText, diffDraft, hookDraft, inherited, parseFlag, parseHook, parseNumber, sourceOf } from "./settingsForm";

describe("parseNumber", () => {
  const topK = { integer: true, min: 1, max: 50 };
  it("reads empty as inherit", () => {
    expect(parseNumber("  ", topK)).toEqual({ ok: true, value: null });
  });
  it("keeps to the rule", () => {
    expect(parseNumber("6", topK)).toEqual({ ok: true, value: 6 });
    expect(parseNumber("0", topK)).toEqual({ ok: false, error: "From 1 to 50." });
    expect(parseNumber("2.5", topK)).toEqual({ ok: false, error: "A whole number, please." });
    expect(parseNumber("abc", topK)).toEqual({ ok: false, error: "Not a number." });
    expect(parseNumber("0.42", { integer: false, min: 0, max: 1 })).toEqual({ ok: true, value: 0.42 });
    expect(parseNumber("0", { integer: true, min: 1 })).toEqual({ ok: false, error: "At least 1." });
  });
});

describe("diffDraft", () => {
  it("patches only what changed, with null for a cleared value", () => {
    const initial = hookDraft({ top_k: 6, min_score: 0.7 });
    expect(initial).toEqual({ top_k: "6", min_score: "0.7", min_ratio: "", max_chars: "" });
    const current = { ...initial, top_k: "", min_ratio: "0.5", min_score: " 0.7 " };
    expect(diffDraft(initial, current, parseHook)).toEqual({ patch: { top_k: null, min_ratio: 0.5 }, errors: {} });
  });
  it("reports the fields that cannot be read", () => {
    const { errors } = diffDraft(hookDraft({}), { ...hookDraft({}), min_ratio: "2" }, parseHook);
    expect(errors).toEqual({ min_ratio: "From 0 to 1." });
  });
  it("reads switches that can go back to their variable", () => {
    const { patch } = diffDraft({ watch: "", query_log: "true" }, { watch: "false", query_log: "" }, (_k, t) => parseFlag(t));
    expect(patch).toEqual({ watch: false, query_log: null });
  });
});

describe("labels", () => {
  it("says where a value comes from", () => {
    expect(sourceOf(800, "RAGDOWN_TEXT_LIMIT")).toBe("Saved here, over RAGDOWN_TEXT_LIMIT");
    expect(sourceOf(false, "RAGDOWN_WATCH")).toBe("Saved here, over RAGDOWN_WATCH");
    expect(sourceOf(undefined, "RAGDOWN_WATCH")).toBe("From RAGDOWN_WATCH");
  });
  it("writes values and placeholders", () => {
    expect(asText(null)).toBe("");
    expect(asText(0)).toBe("0");
    expect(inherited("Server", 4)).toBe("Server: 4");
    expect(inherited("Server", null)).toBe("");
  });
});
