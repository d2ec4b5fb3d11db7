//! The wikilink parser: aliases, headings, embeds and sizes, several per line, escapes, and that
//! the remark plugin leaves code alone.
import { describe, expect, it } from "vitest";
import { matchWikilinks, parseWikilink, resolveTarget, wikilinkLabel } from "./wikilinks";
import { findLinks } from "./links";

describe("parseWikilink", () => {
  it("reads a bare note", () => {
    expect(parseWikilink("kafka")).toEqual({ target: "kafka", heading: null, alias: null, embed: false });
  });

  it("reads an alias and a heading", () => {
    const link = parseWikilink("incident-response#Timeline template|INC-2291 review");
    expect(link).toMatchObject({ target: "incident-response", heading: "Timeline template", alias: "INC-2291 review" });
    expect(wikilinkLabel(link)).toBe("INC-2291 review");
    expect(resolveTarget(link)).toBe("incident-response#Timeline template");
  });

  it("shows note › heading without an alias, and a heading of this page alone", () => {
    expect(wikilinkLabel(parseWikilink("deploy#Rolling back"))).toBe("deploy › Rolling back");
    const here = parseWikilink("#Rolling back");
    expect(here.target).toBe("");
    expect(wikilinkLabel(here)).toBe("Rolling back");
    expect(resolveTarget(here)).toBeNull();
  });

  it("drops block references and empty headings and aliases", () => {
    expect(parseWikilink("note#^abc123")).toMatchObject({ target: "note", heading: null });
    expect(parseWikilink("note#|")).toMatchObject({ target: "note", heading: null, alias: null });
  });

  it("keeps the table escape's pipe out of the target", () => {
    expect(parseWikilink("kafka\\|the runbook")).toMatchObject({ target: "kafka", alias: "the runbook" });
  });

  it("reads an image embed's size, and not a link's", () => {
    expect(parseWikilink("pic.png|200", true)).toMatchObject({ embed: true, width: 200, alias: "200" });
    expect(parseWikilink("pic.png|200x100", true)).toMatchObject({ width: 200, height: 100 });
    expect(wikilinkLabel(parseWikilink("pic.png|200", true))).toBe("pic.png");
    expect(parseWikilink("note|200").width).toBeUndefined();
  });
});

describe("matchWikilinks", () => {
  it("finds several on a line, embeds included, in order", () => {
    const found = matchWikilinks("See [[a]], ![[b.png|50]] and [[c#H|see c]].");
    expect(found.map((m) => [m.raw, m.link.target, m.link.embed])).toEqual([
      ["[[a]]", "a", false],
      ["![[b.png|50]]", "b.png", true],
      ["[[c#H|see c]]", "c", false],
    ]);
    expect(found[0]!.index).toBe(4);
  });

  it("ignores odd input: empty, nested brackets, line breaks, unclosed", () => {
    expect(matchWikilinks("[[]] [[ ]] [[a\nb]] [[open")).toEqual([]);
    expect(matchWikilinks("[[[x]]]").map((m) => m.link.target)).toEqual(["x"]);
    expect(matchWikilinks("[[a [b] c]]")).toEqual([]);
  });

  it("treats backslash escapes in source as no link, and an escaped ! as a plain link", () => {
    expect(matchWikilinks("\\[[not]] [[yes]]", true).map((m) => m.link.target)).toEqual(["yes"]);
    const bang = matchWikilinks("\\![[note]]", true);
    expect(bang).toHaveLength(1);
    expect(bang[0]!.link.embed).toBe(false);
    expect(matchWikilinks("\\\\[[yes]]", true)).toHaveLength(1);
  });
});

describe("findLinks", () => {
  it("finds wikilinks and relative links with their line numbers, front matter counted", () => {
    const text = "---\ntitle: T\n---\n# T\n\n[[kafka]] and [the deploy](deploy.md#rolling-back)\n![diagram](img/a%20b.png)\n";
    expect(findLinks(text)).toEqual([
      { kind: "wiki", embed: false, target: "kafka", label: "kafka", line: 6 },
      { kind: "markdown", embed: false, target: "deploy.md#rolling-back", label: "the deploy", line: 6 },
      { kind: "markdown", embed: true, target: "img/a b.png", label: "diagram", line: 7 },
    ]);
  });

  it("leaves out code spans, fenced and indented code, external links and page anchors", () => {
    const text = [
      "Real [[one]] and `[[not in a span]]`.",
      "```md",
      "[[not in a fence]]",
      "```",
      "~~~",
      "[[nor here]]",
      "~~~",
      "",
      "    [[indented code]]",
      "",
      "[web](https://example.com) [mail](mailto:a@b.c) [here](#top) [abs](/etc/passwd)",
      "- item",
      "    [[in a list, not code]]",
    ].join("\n");
    expect(findLinks(text).map((l) => l.target)).toEqual(["one", "in a list, not code"]);
  });

  it("reads a wikilink's target as written, code span and all", () => {
    expect(findLinks("[[a `b` c]]").map((l) => l.target)).toEqual(["a `b` c"]);
  });

  it("does not take a wikilink's inside for a Markdown link", () => {
    expect(findLinks("[[x]](y.md)").map((l) => l.kind)).toEqual(["wiki"]);
  });
});
