//! The list's query box through an IME: the query (what the filter and `/api/search` read)
//! changes when a composition ends, not on each of its keystrokes.
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { QueryInput } from "./QueryInput";

function Box({ onQuery }: { onQuery: (q: string) => void }) {
  const [query, setQuery] = useState("");
  return (
    <QueryInput
      mode="search"
      query={query}
      onChange={(q) => {
        onQuery(q);
        setQuery(q);
      }}
    />
  );
}

describe("QueryInput", () => {
  afterEach(cleanup);
  const setup = () => {
    const onQuery = vi.fn();
    render(<Box onQuery={onQuery} />);
    return { onQuery, box: screen.getByRole("searchbox") as HTMLInputElement };
  };

  it("changes the query once a composition ends, not on its keystrokes", () => {
    const { onQuery, box } = setup();
    fireEvent.compositionStart(box);
    for (const typed of ["b", "bei", "beif", "beifen", "备份"]) fireEvent.change(box, { target: { value: typed } });
    expect(box.value).toBe("备份");
    expect(onQuery).not.toHaveBeenCalled();
    fireEvent.compositionEnd(box, { data: "备份" });
    expect(onQuery.mock.calls).toEqual([["备份"]]);
  });

  it("keeps what was typed before a composition and adds what it confirms", () => {
    const { onQuery, box } = setup();
    fireEvent.change(box, { target: { value: "db " } });
    fireEvent.compositionStart(box);
    fireEvent.change(box, { target: { value: "db しょうがい" } });
    fireEvent.change(box, { target: { value: "db 障害" } });
    fireEvent.compositionEnd(box, { data: "障害" });
    // An input event after compositionend (Firefox, Safari) repeats the same query, no new one.
    fireEvent.change(box, { target: { value: "db 障害" } });
    expect(onQuery.mock.calls).toEqual([["db "], ["db 障害"]]);
  });

  it("changes the query on every keystroke without an IME, and Clear empties it", () => {
    const { onQuery, box } = setup();
    fireEvent.change(box, { target: { value: "k" } });
    fireEvent.change(box, { target: { value: "ka" } });
    expect(onQuery.mock.calls).toEqual([["k"], ["ka"]]);
    fireEvent.click(screen.getByRole("button", { name: "Clear" }));
    expect(box.value).toBe("");
    expect(onQuery).toHaveBeenLastCalledWith("");
  });
});
