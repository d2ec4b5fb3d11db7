import { describe, expect, it } from "vitest";
import { diffRows, lineCount, type DiffRow } from "./diff";

const lines = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `line ${i + from}`).join("\n") + "\n";
const shown = (rows: DiffRow[]) => rows.map((r) => (r.kind === "gap" ? `… ${r.hidden}` : `${{ same: " ", add: "+", del: "-" }[r.kind]}${r.old ?? "_"}:${r.new ?? "_"} ${r.text}`));

describe("lineCount", () => {
  it("counts lines as an editor does", () => {
    expect(lineCount("")).toBe(0);
    expect(lineCount("a")).toBe(1);
    expect(lineCount("a\n")).toBe(1);
    expect(lineCount("a\nb")).toBe(2);
    expect(lineCount("a\n\n")).toBe(2);
  });
});

describe("diffRows", () => {
  it("shows a changed line with its context and folds the rest", () => {
    const before = lines(20);
    const after = before.replace("line 10\n", "line ten\n");
    const { rows, added, removed } = diffRows(before, after, 2);
    expect(shown(rows)).toEqual([
      "… 7",
      " 8:8 line 8",
      " 9:9 line 9",
      "-10:_ line 10",
      "+_:10 line ten",
      " 11:11 line 11",
      " 12:12 line 12",
      "… 8",
    ]);
    expect([added, removed]).toEqual([1, 1]);
  });

  it("numbers both sides apart once lines are added", () => {
    const before = lines(6);
    const after = "new first\n" + before;
    const { rows } = diffRows(before, after, 1);
    expect(shown(rows)).toEqual(["+_:1 new first", " 1:2 line 1", "… 5"]);
  });

  it("shows a whole new file as added and a whole deleted one as removed", () => {
    expect(shown(diffRows("", "a\nb\n").rows)).toEqual(["+_:1 a", "+_:2 b"]);
    expect(shown(diffRows("a\nb\n", "").rows)).toEqual(["-1:_ a", "-2:_ b"]);
  });

  it("has no rows for equal texts", () => {
    expect(diffRows(lines(5), lines(5)).rows).toEqual([]);
  });

  it("reads CRLF lines without their CR, and a missing final newline as no line", () => {
    const { rows } = diffRows("a\r\nb\r\n", "a\r\nc\r\n");
    expect(shown(rows)).toEqual([" 1:1 a", "-2:_ b", "+_:2 c"]);
    expect(shown(diffRows("a\nb", "a\nb\n").rows)).toEqual([" 1:1 a", "-2:_ b", "+_:2 b"]);
  });

  it("keeps two changes far apart as two hunks with the gap between counted", () => {
    const before = lines(30);
    const after = before.replace("line 3\n", "line three\n").replace("line 27\n", "line twenty-seven\n");
    const rows = diffRows(before, after, 1).rows;
    const gaps = rows.filter((r) => r.kind === "gap").map((r) => (r.kind === "gap" ? r.hidden : 0));
    // Before line 2; between line 4 and line 26; after line 28.
    expect(gaps).toEqual([1, 21, 2]);
  });
});
