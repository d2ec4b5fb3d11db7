//! Settings → Server's CJK notice: it names the folders and the setting, and its button saves
//! exactly that embedder; it is absent without a notice, and offers no button to a reader.
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import type { Status } from "../../api/client";
import { LanguageNoticeCard, folderShares, suggestedEmbedder } from "./LanguageNotice";

const mutate = vi.fn();
vi.mock("../../api/mutations", () => ({ useUpdateSettings: () => ({ mutate, isPending: false }) }));

const notice = {
  folders: [
    { folder: "notes", cjk_share: 0.42 },
    { folder: "work", cjk_share: 0.11 },
  ],
  embedder: "all-MiniLM-L6-v2-q8",
  setting: "RAGDOWN_EMBEDDER=multilingual-e5-small",
  message: "…",
};
const status = (fields: Partial<Status>) => ({ role: "primary", ...fields }) as Status;

describe("LanguageNoticeCard", () => {
  afterEach(() => {
    cleanup();
    mutate.mockClear();
  });

  it("names the folders and the setting, and switches to the suggested embedder", () => {
    render(<LanguageNoticeCard status={status({ language_notice: notice })} canEdit />);
    const note = screen.getByRole("note");
    expect(note.textContent).toContain("notes (42%) and work (11%)");
    expect(note.textContent).toContain("RAGDOWN_EMBEDDER=multilingual-e5-small");
    expect(note.textContent).toContain("all-MiniLM-L6-v2-q8");
    fireEvent.click(screen.getByRole("button", { name: "Use multilingual-e5-small" }));
    expect(mutate).toHaveBeenCalledTimes(1);
    expect(mutate.mock.calls[0]![0]).toEqual({ embedder: "multilingual-e5-small" });
  });

  it("is absent without a notice, and a reader or read-only server gets the setting but no button", () => {
    const { container } = render(<LanguageNoticeCard status={status({})} canEdit />);
    expect(container.textContent).toBe("");
    cleanup();
    render(<LanguageNoticeCard status={status({ language_notice: notice, role: "reader" })} canEdit />);
    expect(screen.getByRole("note").textContent).toContain("RAGDOWN_EMBEDDER=multilingual-e5-small");
    expect(screen.queryByRole("button")).toBeNull();
    cleanup();
    render(<LanguageNoticeCard status={status({ language_notice: notice })} canEdit={false} />);
    expect(screen.queryByRole("button")).toBeNull();
  });

  it("reads the model from the setting and lists one or more folders", () => {
    expect(suggestedEmbedder("RAGDOWN_EMBEDDER=multilingual-e5-small")).toBe("multilingual-e5-small");
    expect(folderShares([{ folder: "", cjk_share: 0.5 }])).toBe("this folder (50%)");
    expect(folderShares([{ folder: "a", cjk_share: 0.1 }, { folder: "b", cjk_share: 0.2 }, { folder: "c", cjk_share: 0.3 }])).toBe("a (10%), b (20%) and c (30%)");
  });
});
