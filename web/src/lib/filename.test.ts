import { describe, expect, it } from "vitest";
import { cleanSubfolder, filePath, isMarkdownName, noteFileName } from "./filename";

describe("noteFileName", () => {
  it("keeps an ordinary title and adds .md", () => {
    expect(noteFileName("Kafka retention")).toBe("Kafka retention.md");
    expect(noteFileName("  Spaced out  ")).toBe("Spaced out.md");
  });

  it("replaces each forbidden character with a dash", () => {
    expect(noteFileName('a\\b/c:d*e?f"g<h>i|j#k^l[m]n')).toBe("a-b-c-d-e-f-g-h-i-j-k-l-m-n.md");
    expect(noteFileName("Q3: plans / risks")).toBe("Q3- plans - risks.md");
  });

  it("trims leading dots and dashes, including ones made from forbidden characters", () => {
    expect(noteFileName(".hidden")).toBe("hidden.md");
    expect(noteFileName("..-- x")).toBe("x.md");
    expect(noteFileName("#tag note")).toBe("tag note.md");
    expect(noteFileName("[[Link]]")).toBe("Link--.md");
  });

  it("is empty when nothing is left", () => {
    expect(noteFileName("")).toBe("");
    expect(noteFileName("   ")).toBe("");
    expect(noteFileName("#/")).toBe("");
  });

  it("does not add a second Markdown extension", () => {
    expect(noteFileName("notes.md")).toBe("notes.md");
    expect(noteFileName("page.MDX")).toBe("page.MDX");
    expect(noteFileName("v1.2")).toBe("v1.2.md");
  });
});

describe("isMarkdownName", () => {
  it("accepts the three Markdown extensions in any case", () => {
    expect(["a.md", "b.markdown", "c.mdx", "D.MD"].every(isMarkdownName)).toBe(true);
    expect(["a.txt", "md", "a.md.txt", "a.mdown"].some(isMarkdownName)).toBe(false);
  });
});

describe("cleanSubfolder and filePath", () => {
  it("normalises slashes, spaces and dots", () => {
    expect(cleanSubfolder("")).toBe("");
    expect(cleanSubfolder(" /notes//ideas/ ")).toBe("notes/ideas");
    expect(cleanSubfolder("notes\\imported")).toBe("notes/imported");
    expect(cleanSubfolder("./a/./b")).toBe("a/b");
  });

  it("joins the folder, the subfolder and the file", () => {
    expect(filePath("notes", "", "A.md")).toBe("notes/A.md");
    expect(filePath("notes", "ideas/", "A.md")).toBe("notes/ideas/A.md");
  });
});
