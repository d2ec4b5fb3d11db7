import { CompletionContext, type Completion, type CompletionResult } from "@codemirror/autocomplete";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { describe, expect, it } from "vitest";
import { closing, wikiCompletions, wikiContext, type WikiEntry } from "./completion";

/** What the server would offer (`GET /api/complete`; its matching and names have their tests
 * in `tools::complete`), and what the source asked it for. */
const entries: WikiEntry[] = [
  { name: "kafka", title: "Kafka operations", path: "kafka.md", aliases: ["event bus"] },
  { name: "architecture-decisions", title: "Architecture decisions", path: "architecture-decisions.md", aliases: ["ADRs"] },
];
const asked: string[] = [];
const offers = async (query: string) => {
  asked.push(query);
  return query.startsWith("kaf") ? entries.slice(0, 1) : query ? [] : entries.slice(1);
};

/** The completion result at the `^` in `text`. */
async function completeAt(text: string, explicit = false): Promise<CompletionResult | null> {
  const pos = text.indexOf("^");
  const state = EditorState.create({ doc: text.slice(0, pos) + text.slice(pos + 1) });
  return (await wikiCompletions(offers)(new CompletionContext(state, pos, explicit))) as CompletionResult | null;
}

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

describe("wikiCompletions", () => {
  it("asks for the target typed so far and offers the answer with the title as detail", async () => {
    asked.length = 0;
    const r = await completeAt("See [[kaf^");
    expect(asked).toEqual(["kaf"]);
    expect(r?.from).toBe(6);
    expect(r?.options.map((o) => [o.label, o.detail, o.info])).toEqual([["kafka", "Kafka operations", "kafka.md"]]);
  });

  it("offers nothing past |, # or ]], or outside a link, and asks nothing there", async () => {
    asked.length = 0;
    expect(await completeAt("See [[kafka|^")).toBeNull();
    expect(await completeAt("See [[kafka#^")).toBeNull();
    expect(await completeAt("See [[kafka]]^")).toBeNull();
    expect(await completeAt("See kaf^", true)).toBeNull();
    expect(asked).toEqual([]);
  });

  it("inserts the name with ]] when missing, and steps over an existing ]]", async () => {
    const accept = async (text: string) => {
      const pos = text.indexOf("^");
      const view = new EditorView({ doc: text.slice(0, pos) + text.slice(pos + 1), selection: { anchor: pos } });
      const r = (await wikiCompletions(offers)(new CompletionContext(view.state, pos, false))) as CompletionResult;
      const option = r.options[0] as Completion & { apply: (v: EditorView, c: Completion, from: number, to: number) => void };
      option.apply(view, option, r.from, pos);
      const out = view.state.doc.toString();
      const head = view.state.selection.main.head;
      view.destroy();
      return out.slice(0, head) + "^" + out.slice(head);
    };
    expect(await accept("See [[kaf^ now")).toBe("See [[kafka]]^ now");
    expect(await accept("See [[kaf^]] now")).toBe("See [[kafka]]^ now");
    expect(await accept("See [[^]]")).toBe("See [[architecture-decisions]]^");
    expect(await accept("See [[kaf^|shown]]")).toBe("See [[kafka^|shown]]");
  });
});
