//! Object URLs for file blobs: one per blob however many show it, kept through a quick remount,
//! and revoked once nothing shows it.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, render } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { blobQuery, useBlobUrl } from "./useBlobUrl";

function Shown({ path }: { path: string }) {
  const { url } = useBlobUrl(path);
  return <img alt="" src={url} />;
}

describe("useBlobUrl", () => {
  const create = vi.fn(() => "blob:test/1");
  const revoke = vi.fn();
  let client: QueryClient;

  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal("URL", Object.assign(globalThis.URL, { createObjectURL: create, revokeObjectURL: revoke }));
    client = new QueryClient();
    client.setQueryData(blobQuery("notes/a.png").queryKey, new Blob(["png"], { type: "image/png" }));
    create.mockClear();
    revoke.mockClear();
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  const show = () =>
    render(
      <QueryClientProvider client={client}>
        <Shown path="notes/a.png" />
      </QueryClientProvider>,
    );

  it("shares one URL and revokes it only when the last user is gone", () => {
    const first = show();
    const second = show();
    expect(create).toHaveBeenCalledTimes(1);
    expect(first.container.querySelector("img")?.getAttribute("src")).toBe("blob:test/1");

    first.unmount();
    act(() => vi.advanceTimersByTime(5_000));
    expect(revoke).not.toHaveBeenCalled();

    second.unmount();
    act(() => vi.advanceTimersByTime(500));
    expect(revoke).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(1_000));
    expect(revoke).toHaveBeenCalledWith("blob:test/1");
  });

  it("keeps the URL through an unmount and a remount in quick succession", () => {
    show().unmount();
    const again = show();
    act(() => vi.advanceTimersByTime(5_000));
    expect(revoke).not.toHaveBeenCalled();
    expect(create).toHaveBeenCalledTimes(1);
    again.unmount();
    act(() => vi.advanceTimersByTime(5_000));
    expect(revoke).toHaveBeenCalledTimes(1);
  });
});
