import { describe, expect, it } from "vitest";
import { readFrontMatter } from "./frontmatter";
import { docTitle, firstHeading } from "./docTitle";

const title = (path: string, text: string, indexed?: string) => docTitle(path, readFrontMatter(text), text, indexed);

describe("docTitle", () => {
  it("is the index's title when there is one", () => {
    expect(title("ops/backups.md", "# Backups\n", "Backups")).toBe("Backups");
    expect(title("ops/backups.md", "no heading", "Indexed")).toBe("Indexed");
  });

  it("follows the server's rule for a document not indexed yet", () => {
    expect(title("ops/backups.md", "Intro.\n\n# Backups\n\n## Restore\n")).toBe("Backups");
    expect(title("ops/backups.md", "---\ntitle: From front matter\n---\n# Heading\n")).toBe("From front matter");
    expect(title("ops/todo-list.md", "Just text.")).toBe("todo-list");
    expect(title("ops/x.md", "## Only a sub-heading\n")).toBe("x");
  });

  it("skips front matter comments and fenced code", () => {
    expect(firstHeading("---\n# a YAML comment\ntags: [a]\n---\n# Real\n")).toBe("Real");
    expect(firstHeading("```sh\n# a shell comment\n```\n# After the fence ##\n")).toBe("After the fence");
    expect(firstHeading("~~~\n# in tildes\n````\n# still in\n~~~\n#not a heading\n")).toBeUndefined();
  });
});
