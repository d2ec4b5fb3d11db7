import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { Status } from "./client";
import { useFollowIndex } from "./follow";
import { keys } from "./hooks";

afterEach(cleanup);

function status(files: number, chunks: number, at: string | null, ready = true): Status {
  return { name: "ragdown", version: "0", ready, auth_required: true, read_only: false, files, chunks, last_sync: at ? { at } : null } as Status;
}

function Follow({ status }: { status: Status | undefined }) {
  useFollowIndex(status);
  return null;
}

/** The keys refetched while `statuses` arrive one after another. */
function refetched(statuses: (Status | undefined)[]): string[][] {
  const client = new QueryClient();
  client.setQueryData(keys.folders, { folders: [], loose_files: [] });
  client.setQueryData(keys.docs("runbooks"), []);
  client.setQueryData(keys.status, statuses[0]);
  const seen: string[][] = [];
  const spy = vi.spyOn(client, "invalidateQueries").mockImplementation((filters) => {
    const all = client.getQueryCache().getAll();
    seen.push(all.filter((q) => filters?.predicate?.(q) ?? true).map((q) => String(q.queryKey[0])).sort());
    return Promise.resolve();
  });
  const view = render(
    <QueryClientProvider client={client}>
      <Follow status={statuses[0]} />
    </QueryClientProvider>,
  );
  for (const s of statuses.slice(1)) {
    view.rerender(
      <QueryClientProvider client={client}>
        <Follow status={s} />
      </QueryClientProvider>,
    );
  }
  spy.mockRestore();
  return seen;
}

describe("useFollowIndex", () => {
  it("refetches the folders and the document lists when the index changes, and nothing else", () => {
    expect(refetched([status(3, 9, null), status(5, 14, "2026-12-03T14:00:00.000Z")])).toEqual([["docs", "folders"]]);
  });

  it("refetches after a sync that kept the counts (an edit in place)", () => {
    expect(refetched([status(5, 14, "2026-12-03T14:00:00.000Z"), status(5, 14, "2026-12-03T14:01:00.000Z")])).toHaveLength(1);
  });

  it("refetches once the index opens: the lists loaded before it had no counts", () => {
    expect(refetched([undefined, status(0, 0, null, false), status(0, 0, null, false), status(5, 14, null)])).toHaveLength(1);
  });

  it("stays quiet on the first status and on polls that bring nothing new", () => {
    const same = status(5, 14, "2026-12-03T14:00:00.000Z");
    expect(refetched([undefined, same, { ...same }, { ...same }])).toEqual([]);
  });
});
