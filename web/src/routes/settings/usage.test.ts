import { describe, expect, it } from "vitest";
import { dailySeries, dayOf, hasAny, labelledDays, niceMax, percent, totalSearches } from "./usage";

const day = (d: string, over: Partial<{ recall: number; context: number; web_search: number; injected: number; gaps: number; prompts: number }> = {}) => ({
  day: d,
  recall: 0,
  context: 0,
  web_search: 0,
  injected: 0,
  gaps: 0,
  ...over,
});

describe("dailySeries", () => {
  it("fills every day from the first to today, empty ones with zeros", () => {
    const series = dailySeries([day("2026-11-28", { recall: 2 }), day("2026-11-30", { context: 3, injected: 1, prompts: 2 })], "2026-12-01", { min: 1 });
    expect(series.map((d) => d.day)).toEqual(["2026-11-28", "2026-11-29", "2026-11-30", "2026-12-01"]);
    expect(series[0]!.recall).toBe(2);
    expect(series[1]).toEqual({ day: "2026-11-29", recall: 0, context: 0, web_search: 0, reads: 0, prompts: 0, injected: 0, gaps: 0 });
    expect(series[2]).toMatchObject({ context: 3, injected: 1, prompts: 2 });
  });

  it("shows at least `min` days, and at most `max` ending today", () => {
    expect(dailySeries([], "2026-12-01", { min: 14 })).toHaveLength(14);
    expect(dailySeries([], "2026-12-01", { min: 14 })[0]!.day).toBe("2026-11-18");
    const long = dailySeries([day("2026-01-01", { recall: 9 })], "2026-12-01", { min: 14, max: 30 });
    expect(long).toHaveLength(30);
    expect(long.at(-1)!.day).toBe("2026-12-01");
    expect(hasAny(long, ["recall"])).toBe(false);
  });

  it("crosses month and year ends in UTC", () => {
    const series = dailySeries([day("2026-12-31")], "2027-01-02", { min: 1 });
    expect(series.map((d) => d.day)).toEqual(["2026-12-31", "2027-01-01", "2027-01-02"]);
  });

  it("counts the hook's prompts as its calls when an older server leaves them out", () => {
    expect(dailySeries([day("2026-12-01", { context: 4 })], "2026-12-01", { min: 1 })[0]!.prompts).toBe(4);
  });
});

describe("formatting", () => {
  it("rounds an axis up to 1, 2 or 5 times a power of ten", () => {
    expect([0, 1, 3, 7, 10, 11, 42, 180, 501].map(niceMax)).toEqual([1, 1, 5, 10, 10, 20, 50, 200, 1000]);
  });
  it("writes shares as percentages", () => {
    expect(percent(null)).toBe("—");
    expect(percent(0)).toBe("0%");
    expect(percent(0.001)).toBe("<1%");
    expect(percent(0.625)).toBe("63%");
  });
  it("takes the UTC day of a time", () => {
    expect(dayOf(1_796_023_730_123)).toBe("2026-11-30");
  });
  it("adds up the searches", () => {
    expect(totalSearches({ recall: 1, context: 2, web_search: 3 })).toBe(6);
  });
});

describe("labelledDays", () => {
  it("labels about six days, the last always", () => {
    expect([...labelledDays(3)].sort((a, b) => a - b)).toEqual([0, 1, 2]);
    const thirty = labelledDays(30);
    expect(thirty.has(29)).toBe(true);
    expect(thirty.size).toBe(6);
    expect(labelledDays(0).size).toBe(0);
  });
});
