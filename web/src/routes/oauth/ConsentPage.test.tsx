//! The consent page: it shows the app, where the answer goes and what it asks; Allow and Deny post
//! the answer with the request's CSRF token and the access granted ("Only let it read" narrows it),
//! both buttons wait while it is sent, and the browser then goes where the server says; a 404 reads
//! as expired. The app's name is shown as text, never as markup.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { consentKey, type ConsentRequest } from "../../api/oauth";
import { EXPIRED } from "./consent";
import { Consent } from "./ConsentPage";

const asked = (fields: Partial<ConsentRequest> = {}, client: Partial<ConsentRequest["client"]> = {}): ConsentRequest => ({
  id: "r1",
  client: {
    id: "c_42",
    name: "Test app",
    kind: "registered",
    redirect_uri: "http://127.0.0.1:8765/callback",
    redirect_host: "127.0.0.1",
    localhost_only: true,
    ...client,
  },
  resource: "http://127.0.0.1:3000/mcp/notes",
  path: "notes",
  access: "write",
  available: true,
  problem: null,
  csrf: "csrf-abc",
  expires_ms: Date.now() + 600_000,
  ...fields,
});

const leave = vi.fn<(url: string) => void>();
let answer: (response: Response) => void;
const fetched = vi.fn<(url: string, init: RequestInit) => Promise<Response>>();

beforeEach(() => {
  fetched.mockImplementation(() => new Promise<Response>((ok) => (answer = ok)));
  vi.stubGlobal("fetch", fetched);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  leave.mockClear();
  fetched.mockReset();
});

function show(request: ConsentRequest) {
  // The request already in the cache and never stale: only the answer is fetched.
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  client.setQueryData(consentKey(request.id), request);
  render(
    <QueryClientProvider client={client}>
      <Consent id={request.id} leave={leave} />
    </QueryClientProvider>,
  );
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
const sentBody = () => JSON.parse(String(fetched.mock.calls[0]![1].body)) as unknown;

describe("Consent", () => {
  it("shows the app, the redirect's host, the folder and the access, with the localhost warning", () => {
    show(asked());
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Test app wants to use your notes");
    expect(screen.getByTestId("redirect-host").textContent).toBe("127.0.0.1");
    expect(screen.getByText("http://127.0.0.1:3000/mcp/notes")).toBeTruthy();
    expect(screen.getByText("Read + write")).toBeTruthy();
    expect(screen.getByRole("note").textContent).toContain("localhost");
    expect(screen.getByRole("checkbox", { name: "Only let it read" })).toBeTruthy();
  });

  it("offers no narrowing for a read request, and no warning for a remote redirect", () => {
    show(asked({ access: "read" }, { redirect_uri: "https://claude.ai/api/mcp/auth_callback", redirect_host: "claude.ai", localhost_only: false }));
    expect(screen.queryByRole("checkbox")).toBeNull();
    expect(screen.queryByRole("note")).toBeNull();
    expect(screen.getByTestId("redirect-host").textContent).toBe("claude.ai");
  });

  it("offers only Deny when the folder asked for is not available, saying why", () => {
    show(asked({ available: false, problem: 'There is no folder "old" with MCP turned on.' }, { localhost_only: false }));
    expect(screen.getByRole("note").textContent).toContain('There is no folder "old" with MCP turned on.');
    expect(screen.getByRole("button", { name: "Allow" }).hasAttribute("disabled")).toBe(true);
    expect(screen.getByRole("button", { name: "Deny" }).hasAttribute("disabled")).toBe(false);
  });

  it("shows the app's name as text, not markup", () => {
    show(asked({}, { name: '<img src=x onerror="alert(1)">Evil' }));
    expect(document.querySelector("img")).toBeNull();
    expect(screen.getByRole("heading", { level: 1 }).textContent).toContain('<img src=x onerror="alert(1)">Evil');
  });

  it("allows with the CSRF token and the narrowed access, waits with both buttons off, then leaves for the redirect", async () => {
    show(asked());
    fireEvent.click(screen.getByRole("checkbox", { name: "Only let it read" }));
    expect(screen.getByText("Read")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Allow" }));
    await waitFor(() => expect(fetched).toHaveBeenCalledTimes(1));
    expect(fetched.mock.calls[0]![0]).toBe("/api/oauth/requests/r1");
    expect(fetched.mock.calls[0]![1].method).toBe("POST");
    expect(sentBody()).toEqual({ decision: "allow", csrf: "csrf-abc", access: "read" });
    expect(screen.getByRole("button", { name: "Allow" }).hasAttribute("disabled")).toBe(true);
    expect(screen.getByRole("button", { name: "Deny" }).hasAttribute("disabled")).toBe(true);
    expect(leave).not.toHaveBeenCalled();

    await act(async () => answer(json(200, { redirect: "http://127.0.0.1:8765/callback?code=c&state=xyz" })));
    await waitFor(() => expect(leave).toHaveBeenCalledWith("http://127.0.0.1:8765/callback?code=c&state=xyz"));
    expect(screen.getByRole("button", { name: "Allow" }).hasAttribute("disabled")).toBe(true);
  });

  it("denies with the access asked when nothing was narrowed", async () => {
    show(asked());
    fireEvent.click(screen.getByRole("button", { name: "Deny" }));
    await waitFor(() => expect(fetched).toHaveBeenCalledTimes(1));
    expect(sentBody()).toEqual({ decision: "deny", csrf: "csrf-abc", access: "write" });
  });

  it("says a 404 answer means expired or answered, shows other errors as the server says them, and lets the owner try again", async () => {
    show(asked());
    fireEvent.click(screen.getByRole("button", { name: "Allow" }));
    await waitFor(() => expect(fetched).toHaveBeenCalledTimes(1));
    await act(async () => answer(json(404, { error: "Not found: no such request" })));
    expect((await screen.findByRole("alert")).textContent).toBe(EXPIRED);
    expect(leave).not.toHaveBeenCalled();

    fireEvent.click(screen.getByRole("button", { name: "Allow" }));
    await waitFor(() => expect(fetched).toHaveBeenCalledTimes(2));
    await act(async () => answer(json(403, { error: "Forbidden: the consent form is stale; reload it" })));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe("Forbidden: the consent form is stale; reload it"));
    expect(screen.getByRole("button", { name: "Allow" }).hasAttribute("disabled")).toBe(false);
  });
});
