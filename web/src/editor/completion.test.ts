import { CompletionContext, type Completion, type CompletionResult } from "@codemirror/autocomplete";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { describe, expect, it } from "vitest";
import type { DocInfo } from "../api/client";
import { closing, matchEntries, wikiCompletions, wikiContext, wikiEntries, type WikiEntry } from "./completion";

const doc = (path: string, title: string, aliases: string[] = []): DocInfo => ({
  path,
  title,
  aliases,
  folder: "notes",
  chunks: 1,
  mtime_ms: 0,
  size: 1,
  superseded_by: [],
  tags: [],
});

const entries: WikiEntry[] = wikiEntries(
  [
    doc("notes/kafka.md", "Kafka operations", ["event bus"]),
    doc("notes/ops/backup.md", "Postgres backups"),
    doc("notes/dev/backup.md", "Dev backups"),
    doc("notes/architecture-decisions.md", "Architecture decisions", ["ADRs"]),
  ],
  "notes",
);

/** The completion result at the `^` in `text`. */
function completeAt(text: string, explicit = false): CompletionResult | null {
  const pos = text.indexOf("^");
  const state = EditorState.create({ doc: text.slice(0, pos) + text.slice(pos + 1) });
  return wikiCompletions(() => entries)(new CompletionContext(state, pos, explicit)) as CompletionResult | null;
}

describe("wikiEntries", () => {
  it("names each document by its shortest unique name, inside the folder", () => {
    expect(entries.map((e) => [e.name, e.path])).toEqual([
      ["kafka", "kafka.md"],
      ["ops/backup", "ops/backup.md"],
      ["dev/backup", "dev/backup.md"],
      ["architecture-decisions", "architecture-decisions.md"],
    ]);
  });
});

describe("wikiContext", () => {
  it("finds the target being typed after [[", () => {
    expect(wikiContext("See [[")).toEqual({ start: 6, query: "" });
    expect(wikiContext("See [[kaf")).toEqual({ start: 6, query: "kaf" });
    expect(wikiContext("![[diag")).toEqual({ start: 3, query: "diag" });
    expect(wikiContext("a [[x]] and [[y")).toEqual({ start: 14, query: "y" });
  });

  it("stops at |, # and ]], and outside a link", () => {
    expect(wikiContext("[[kafka|sho")).toBeNull();
    expect(wikiContext("[[kafka#Retent")).toBeNull();
    expect(wikiContext("[[kafka]] then")).toBeNull();
    expect(wikiContext("[[kafka]]")).toBeNull();
    expect(wikiContext("plain [text")).toBeNull();
    expect(wikiContext("")).toBeNull();
  });
});

describe("closing", () => {
  it("steps over ]] right after the cursor, keeps a later one, adds missing ones", () => {
    expect(closing("]] rest")).toBe("skip");
    expect(closing("|shown]]")).toBe("keep");
    expect(closing("#Heading]]")).toBe("keep");
    expect(closing(" and more")).toBe("add");
    expect(closing(" [[other]]")).toBe("add");
    expect(closing("")).toBe("add");
  });
});

describe("matchEntries", () => {
  it("matches on the name, the title, the path and the aliases", () => {
    expect(matchEntries("kaf", entries).map((e) => e.name)).toEqual(["kafka"]);
    expect(matchEntries("postgres", entries).map((e) => e.name)).toEqual(["ops/backup"]);
    expect(matchEntries("dev/", entries).map((e) => e.name)).toEqual(["dev/backup"]);
    expect(matchEntries("adr", entries).map((e) => e.name)).toEqual(["architecture-decisions"]);
    expect(matchEntries("event bus", entries).map((e) => e.name)).toEqual(["kafka"]);
    expect(matchEntries("nothing like it", entries)).toEqual([]);
  });

  it("puts names and titles that start with the query first", () => {
    expect(matchEntries("back", entries).map((e) => e.name)).toEqual(["dev/backup", "ops/backup"]);
    expect(matchEntries("", entries).map((e) => e.name)).toEqual(["architecture-decisions", "dev/backup", "kafka", "ops/backup"]);
  });
});

describe("matchEntries in Chinese, Japanese and Korean", () => {
  const cjk = wikiEntries(
    [doc("notes/cjk/zh.md", "数据库备份"), doc("notes/cjk/ja.md", "障害対応手順", ["ﾊﾞｯｸｱｯﾌﾟ"]), doc("notes/cjk/api.md", "ＡＰＩ 参考")],
    "notes",
  );
  const names = (q: string) => matchEntries(q, cjk).map((e) => e.name);

  it("finds a word inside a title, and folds width on both sides", () => {
    expect(names("备份")).toEqual(["zh"]);
    expect(names("バックアップ")).toEqual(["ja"]);
    expect(names("api")).toEqual(["api"]);
  });
});

describe("wikiCompletions", () => {
  it("offers documents inside [[ with the title as detail", () => {
    const r = completeAt("See [[kaf^");
    expect(r?.from).toBe(6);
    expect(r?.options.map((o) => [o.label, o.detail])).toEqual([["kafka", "Kafka operations"]]);
  });

  it("offers nothing past |, # or ]], or outside a link", () => {
    expect(completeAt("See [[kafka|^")).toBeNull();
    expect(completeAt("See [[kafka#^")).toBeNull();
    expect(completeAt("See [[kafka]]^")).toBeNull();
    expect(completeAt("See kaf^", true)).toBeNull();
  });

  it("inserts the name with ]] when missing, and steps over an existing ]]", () => {
    const accept = (text: string) => {
      const pos = text.indexOf("^");
      const view = new EditorView({ doc: text.slice(0, pos) + text.slice(pos + 1), selection: { anchor: pos } });
      const r = wikiCompletions(() => entries)(new CompletionContext(view.state, pos, false)) as CompletionResult;
      const option = r.options[0] as Completion & { apply: (v: EditorView, c: Completion, from: number, to: number) => void };
      option.apply(view, option, r.from, pos);
      const out = view.state.doc.toString();
      const head = view.state.selection.main.head;
      view.destroy();
      return out.slice(0, head) + "^" + out.slice(head);
    };
    expect(accept("See [[kaf^ now")).toBe("See [[kafka]]^ now");
    expect(accept("See [[kaf^]] now")).toBe("See [[kafka]]^ now");
    expect(accept("See [[^]]")).toBe("See [[architecture-decisions]]^");
    expect(accept("See [[kaf^|shown]]")).toBe("See [[kafka^|shown]]");
  });
});
