//! Settings → Access: the list says each token's folders, access, expiry and last use, and never
//! a secret; a new token is not sent until it has a name and a folder.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { Tooltip } from "radix-ui";
import { keys } from "../../api/hooks";
import { grantsKey } from "../../api/oauth";
import { tokensKey, type TokenView } from "../../api/tokens";
import { AccessTab } from "./AccessTab";

afterEach(cleanup);

const token = (fields: Partial<TokenView>): TokenView => ({
  id: "t1",
  name: "agent",
  scope: ["notes"],
  access: "read",
  created_ms: 0,
  expires_ms: null,
  last_used_ms: null,
  expired: false,
  ...fields,
});

function show(tokens: TokenView[]) {
  // Answers already in the cache and never stale: nothing is fetched.
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  client.setQueryData(tokensKey, { tokens, file: "/notes/.ragdown-access.json" });
  client.setQueryData(grantsKey, []);
  client.setQueryData(keys.folders, { folders: [{ name: "notes", title: "Notes", mcp: true, hook: {}, mcp_path: "/mcp/notes", files: 1, chunks: 1 }], loose_files: [] });
  render(
    <QueryClientProvider client={client}>
      <Tooltip.Provider>
        <AccessTab />
      </Tooltip.Provider>
    </QueryClientProvider>,
  );
}

describe("AccessTab", () => {
  it("lists each token's folders, access, expiry and last use", () => {
    show([token({ name: "reader" }), token({ id: "t2", name: "writer", scope: ["notes/projects", "work"], access: "write", expires_ms: 1, expired: true, last_used_ms: Date.now() })]);
    const rows = screen.getAllByRole("row").slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]!.textContent).toContain("reader");
    expect(rows[0]!.textContent).toContain("Read");
    expect(rows[0]!.textContent).toContain("Never");
    expect(rows[1]!.textContent).toContain("Read + write");
    expect(rows[1]!.textContent).toContain("notes/projects, work");
    expect(rows[1]!.textContent).toContain("Expired");
    expect(rows[1]!.textContent).toContain("just now");
    expect(screen.getByRole("button", { name: "Revoke writer" })).toBeTruthy();
    expect(screen.getByText("/notes/.ragdown-access.json")).toBeTruthy();
  });

  it("asks for a name and a folder before it makes a token", () => {
    show([]);
    fireEvent.click(screen.getByRole("button", { name: "New token" }));
    fireEvent.click(screen.getByRole("button", { name: "Make token" }));
    expect(screen.getByRole("alert").textContent).toContain("Name the token");
    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "agent" } });
    fireEvent.click(screen.getByRole("button", { name: "Make token" }));
    expect(screen.getByRole("alert").textContent).toContain("Tick at least one folder");
  });
});
