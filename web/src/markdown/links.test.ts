//! Hrefs and attachments: what a link written in a document is, and how a file opens.
import { describe, expect, it } from "vitest";
import { attachmentAction, classifyHref, maskCodeSpans, relativeTarget } from "./links";

describe("classifyHref", () => {
  it("tells external links, page anchors and relative paths apart", () => {
    expect(classifyHref("https://example.com/a#b")).toEqual({ kind: "external", url: "https://example.com/a#b" });
    expect(classifyHref("mailto:ops@example.com").kind).toBe("external");
    expect(classifyHref("//cdn.example.com/x.png").kind).toBe("external");
    expect(classifyHref("#rolling-back")).toEqual({ kind: "anchor", id: "rolling-back" });
    expect(classifyHref("../ops/My%20Note.md?x=1#Some%20Heading")).toEqual({ kind: "relative", path: "../ops/My Note.md", fragment: "Some Heading" });
  });

  it("asks the server for the path and its heading", () => {
    const href = classifyHref("kafka.md#reassigning-partitions");
    expect(href.kind === "relative" && relativeTarget(href)).toBe("kafka.md#reassigning-partitions");
  });

  it("keeps a malformed escape as written", () => {
    expect(classifyHref("100%.md")).toMatchObject({ kind: "relative", path: "100%.md" });
  });
});

describe("attachmentAction", () => {
  it("opens PDFs, images, audio, video and text in a tab, as their own type", () => {
    expect(attachmentAction("docs/manual.PDF")).toEqual({ open: true, type: "application/pdf" });
    expect(attachmentAction("img/a.jpg")).toEqual({ open: true, type: "image/jpeg" });
    expect(attachmentAction("call.mp3")).toEqual({ open: true, type: "audio/mpeg" });
    expect(attachmentAction("demo.webm")).toEqual({ open: true, type: "video/webm" });
  });

  it("opens text of every kind as plain text, so nothing in it runs", () => {
    for (const name of ["log.txt", "data.csv", "config.json", "feed.xml", "script.js"]) {
      expect(attachmentAction(name)).toEqual({ open: true, type: "text/plain;charset=utf-8" });
    }
  });

  it("downloads SVG, HTML and anything unknown", () => {
    for (const name of ["diagram.svg", "page.html", "page.htm", "archive.zip", "noextension"]) {
      expect(attachmentAction(name)).toEqual({ open: false });
    }
  });
});

describe("maskCodeSpans", () => {
  it("blanks spans of any backtick run, keeping the length", () => {
    const line = "a `[[x]]` b ``[[y ` z]]`` c";
    const masked = maskCodeSpans(line);
    expect(masked).toHaveLength(line.length);
    expect(masked).not.toContain("[[");
    expect(masked.startsWith("a ")).toBe(true);
    expect(masked.endsWith(" c")).toBe(true);
  });

  it("leaves an unmatched backtick and an escaped one as text", () => {
    expect(maskCodeSpans("a ` [[x]]")).toBe("a ` [[x]]");
    expect(maskCodeSpans("\\`[[x]]`")).toBe("\\`[[x]]`");
  });
});
