//! Settings → Access, the apps connected with OAuth: each row says the app (its name as text, its
//! client id), its folder, access and use; Revoke asks first, then deletes that grant and reloads
//! the list; with none, one line says how an app connects.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { Tooltip } from "radix-ui";
import { grantsKey, type Grant } from "../../api/oauth";
import { GrantsSection } from "./GrantsSection";

const grant = (fields: Partial<Grant>): Grant => ({
  id: "g1",
  client_id: "https://claude.ai/oauth/mcp-client.json",
  client_name: "Claude",
  resource: "http://127.0.0.1:3000/mcp/notes",
  path: "notes",
  access: "write",
  created_ms: Date.now() - 86_400_000,
  last_used_ms: null,
  ...fields,
});

const fetched = vi.fn<(url: string, init: RequestInit) => Promise<Response>>();
const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { "Content-Type": "application/json" } });

beforeEach(() => vi.stubGlobal("fetch", fetched));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  fetched.mockReset();
});

function show(grants: Grant[]) {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  client.setQueryData(grantsKey, grants);
  render(
    <QueryClientProvider client={client}>
      <Tooltip.Provider>
        <GrantsSection />
      </Tooltip.Provider>
    </QueryClientProvider>,
  );
}

describe("GrantsSection", () => {
  it("lists each app with its client id, folder, access and last use", () => {
    show([grant({}), grant({ id: "g2", client_name: "<b>Test app</b>", client_id: "c_9", path: "notes/work", access: "read", last_used_ms: Date.now() })]);
    const rows = screen.getAllByRole("row").slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]!.textContent).toContain("Claude");
    expect(rows[0]!.textContent).toContain("https://claude.ai/oauth/mcp-client.json");
    expect(rows[0]!.textContent).toContain("Read + write");
    expect(rows[0]!.textContent).toContain("Never");
    expect(rows[1]!.textContent).toContain("<b>Test app</b>");
    expect(rows[1]!.querySelector("b")).toBeNull();
    expect(rows[1]!.textContent).toContain("notes/work");
    expect(rows[1]!.textContent).toContain("just now");
  });

  it("says how an app connects when none has", () => {
    show([]);
    expect(screen.queryByRole("table")).toBeNull();
    expect(screen.getByText(/asks to connect/).textContent).toContain(`${window.location.origin}/mcp/<folder>`);
  });

  it("revokes a grant only after the confirmation, then reloads the list", async () => {
    show([grant({}), grant({ id: "g2", client_name: "Other" })]);
    fetched.mockImplementation((_url, init) => Promise.resolve(init?.method === "DELETE" ? json({ revoked: "g2" }) : json([grant({})])));
    fireEvent.click(screen.getByRole("button", { name: "Revoke Other" }));
    expect(fetched).not.toHaveBeenCalled();
    fireEvent.click(within(screen.getByRole("dialog", { name: "Revoke Other?" })).getByRole("button", { name: "Revoke" }));
    await waitFor(() => expect(screen.getAllByRole("row")).toHaveLength(2));
    expect(fetched.mock.calls[0]![0]).toBe("/api/access/grants/g2");
    expect(fetched.mock.calls[0]![1].method).toBe("DELETE");
    expect(fetched.mock.calls[1]![0]).toBe("/api/access/grants");
  });
});
