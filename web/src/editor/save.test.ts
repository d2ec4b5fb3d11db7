import { describe, expect, it } from "vitest";
import { opened, saveBody, statusText, transition, unsaved, type SaveEvent, type SaveState } from "./save";

const run = (s: SaveState, ...events: SaveEvent[]) => events.reduce(transition, s);
const start = () => opened("# A\n", "h1");

describe("save state machine", () => {
  it("opens clean and becomes dirty on an edit, clean again when the edit is undone", () => {
    const s = start();
    expect(s.phase).toBe("clean");
    expect(statusText(s)).toBe("No unsaved changes");
    const dirty = run(s, { type: "edit", text: "# A\nmore\n" });
    expect(dirty.phase).toBe("dirty");
    expect(unsaved(dirty)).toBe(true);
    expect(statusText(dirty)).toBe("Unsaved changes");
    expect(run(dirty, { type: "edit", text: "# A\n" }).phase).toBe("clean");
  });

  it("saves against the hash it opened with, then takes the new hash", () => {
    const saving = run(start(), { type: "edit", text: "B" }, { type: "save", text: "B" });
    expect(saving.phase).toBe("saving");
    expect(statusText(saving)).toBe("Saving…");
    expect(saveBody(saving, "notes/a.md")).toEqual({ path: "notes/a.md", text: "B", base_hash: "h1" });
    const done = run(saving, { type: "saved", hash: "h2" });
    expect(done).toMatchObject({ phase: "clean", base: "h2", saved: "B", sending: null });
    expect(saveBody(done, "notes/a.md")).toBeNull();
    // The next save goes against the new version.
    const again = run(done, { type: "save", text: "C" });
    expect(saveBody(again, "notes/a.md")).toEqual({ path: "notes/a.md", text: "C", base_hash: "h2" });
  });

  it("stays dirty when the text changed while the save was in flight", () => {
    const s = run(start(), { type: "save", text: "B" }, { type: "edit", text: "BC" }, { type: "saved", hash: "h2" });
    expect(s).toMatchObject({ phase: "dirty", saved: "B", text: "BC", base: "h2" });
  });

  it("ignores a save with nothing to save, and a second one while one is in flight", () => {
    expect(run(start(), { type: "save", text: "# A\n" }).phase).toBe("clean");
    const saving = run(start(), { type: "save", text: "B" });
    expect(run(saving, { type: "save", text: "BC" })).toMatchObject({ phase: "saving", sending: "B" });
  });

  it("on a 409 changed keeps the edits and the old hash, and sends nothing until the user picks", () => {
    const s = run(start(), { type: "edit", text: "mine" }, { type: "save", text: "mine" }, { type: "conflict" });
    expect(s).toMatchObject({ phase: "conflict", text: "mine", base: "h1", saved: "# A\n" });
    expect(unsaved(s)).toBe(true);
    expect(saveBody(s, "p")).toBeNull();
    // Neither typing nor Save leaves the conflict.
    const typed = run(s, { type: "edit", text: "mine2" }, { type: "save", text: "mine2" });
    expect(typed).toMatchObject({ phase: "conflict", text: "mine2" });
  });

  it("overwrites from a conflict without a base hash", () => {
    const conflict = run(start(), { type: "save", text: "mine" }, { type: "conflict" });
    const s = run(conflict, { type: "overwrite", text: "mine" });
    expect(s.phase).toBe("saving");
    expect(saveBody(s, "notes/a.md")).toEqual({ path: "notes/a.md", text: "mine", overwrite: true });
    expect(run(s, { type: "saved", hash: "h3" })).toMatchObject({ phase: "clean", base: "h3", saved: "mine", overwrite: false });
    // Overwrite means nothing outside a conflict.
    expect(run(start(), { type: "overwrite", text: "x" }).phase).toBe("clean");
  });

  it("discards back to a clean state, so leaving no longer asks", () => {
    const conflict = run(start(), { type: "save", text: "mine" }, { type: "conflict" });
    const s = run(conflict, { type: "discard" });
    expect(s).toMatchObject({ phase: "clean", text: "# A\n" });
    expect(unsaved(s)).toBe(false);
  });

  it("keeps the edits after any other failure", () => {
    const s = run(start(), { type: "save", text: "mine" }, { type: "failed" });
    expect(s).toMatchObject({ phase: "dirty", text: "mine", base: "h1" });
  });

  it("holds CRLF files with \\n line ends, so opening one is not an edit", () => {
    const s = opened("a\r\nb\r\n", "h");
    expect(run(s, { type: "edit", text: "a\nb\n" }).phase).toBe("clean");
  });
});
