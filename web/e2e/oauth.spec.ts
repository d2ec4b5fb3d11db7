// OAuth end to end, against a real ragdownd on a copy of examples/vault: an app registers itself
// (dynamic client registration), sends the browser to /oauth/authorize with PKCE S256, the owner
// answers on the consent page in Chromium, the app's own callback (a node server on loopback) gets
// the code with its state and the issuer, and trades it for a token bound to one folder. Allow
// gives every tool, "Only let it read" no write tool, Deny an access_denied (and the answered
// request then reads as expired); revoking the app under Settings → Access ends its token at once;
// a browser without the owner's token gets the token gate first.
import { createServer, type Server as HttpServer } from "node:http";
import type { Page } from "@playwright/test";
import { test, expect, type Server } from "./fixtures";
import { authorizePath, exchange as trade, pkce, register, type Tokens } from "./oauth";
import { toolsWith } from "./agent";

/** The app's redirect target: a loopback server that records each callback's query. */
interface Callback {
  uri: string;
  /** The query of each callback received, oldest first. */
  received: URLSearchParams[];
  close: () => Promise<void>;
}

async function callbackServer(): Promise<Callback> {
  const received: URLSearchParams[] = [];
  const http: HttpServer = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/callback") received.push(url.searchParams);
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>Test app</title><p>Connected: you can close this tab.</p>");
  });
  await new Promise<void>((ok) => http.listen(0, "127.0.0.1", ok));
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    uri: `http://127.0.0.1:${port}/callback`,
    received,
    close: () =>
      new Promise((ok) => {
        http.closeAllConnections(); // the browser keeps its connection alive
        http.close(() => ok());
      }),
  };
}

const FOLDER = "notes";
const resourceOf = (server: Server) => `${server.url}/mcp/${FOLDER}`;

interface Flow {
  clientId: string;
  callback: Callback;
  verifier: string;
}

/**
 * Registers the app and opens the consent page for it, as a client would send the browser there;
 * `signIn` runs on the way when the browser has no token yet.
 */
async function startFlow(page: Page, server: Server, callback: Callback, signIn?: () => Promise<void>): Promise<Flow> {
  const clientId = await register(server, "Test app", callback.uri);
  const { verifier, challenge } = pkce();
  await page.goto(authorizePath(clientId, callback.uri, challenge, resourceOf(server)));
  await expect(page).toHaveURL(/\/oauth\/consent\/[^/]+$/);
  await signIn?.();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Test app wants to use your notes");
  return { clientId, callback, verifier };
}

/** Presses `button` on the consent page; the callback's query once the browser is back at the app. */
async function answer(page: Page, flow: Flow, button: "Allow" | "Deny"): Promise<URLSearchParams> {
  const before = flow.callback.received.length;
  await page.getByRole("button", { name: button, exact: true }).click();
  await page.waitForURL((url) => url.href.startsWith(flow.callback.uri));
  await expect.poll(() => flow.callback.received.length).toBe(before + 1);
  return flow.callback.received[before]!;
}

/** The code traded for tokens with this flow's verifier, bound to the folder's endpoint. */
function exchange(server: Server, flow: Flow, code: string): Promise<Tokens> {
  return trade(server, { code, redirectUri: flow.callback.uri, clientId: flow.clientId, verifier: flow.verifier, resource: resourceOf(server) });
}

let callback: Callback;
test.beforeEach(async () => {
  callback = await callbackServer();
});
test.afterEach(async () => {
  await callback.close();
});

test("an app allowed on the consent page gets a token for its folder, which ends when it is revoked in Settings", async ({ authed: page, server }) => {
  const flow = await startFlow(page, server, callback);
  await expect(page.getByTestId("redirect-host")).toHaveText("127.0.0.1");
  await expect(page.getByRole("note")).toContainText("localhost");
  await expect(page.getByText(resourceOf(server))).toBeVisible();
  await expect(page.getByText("Read + write")).toBeVisible();

  const back = await answer(page, flow, "Allow");
  expect(back.get("state")).toBe("xyz");
  expect(back.get("iss")).toBe(server.url);
  const code = back.get("code");
  expect(code).toBeTruthy();

  const tokens = await exchange(server, flow, code!);
  expect(tokens.access_token).toMatch(/^rda_/);
  expect(tokens.refresh_token).toBeTruthy();
  expect(tokens.token_type).toBe("Bearer");
  expect(tokens.expires_in).toBeGreaterThan(0);
  expect(tokens.scope.split(" ")).toContain("write");

  const tools = await toolsWith(server, FOLDER, tokens.access_token);
  expect(tools.status).toBe(200);
  expect(tools.tools).toContain("ragdown_recall");
  expect(tools.tools).toContain("ragdown_write");
  // Bound to its folder: another folder is refused.
  expect((await toolsWith(server, "runbooks", tokens.access_token)).status).not.toBe(200);

  await page.goto("/settings?tab=access");
  const apps = page.getByRole("region", { name: "Apps connected with OAuth" });
  const row = apps.getByRole("row", { name: /Test app/ });
  await expect(row).toContainText(flow.clientId);
  await expect(row).toContainText(FOLDER);
  await expect(row).toContainText("Read + write");
  await apps.getByRole("button", { name: "Revoke Test app" }).click();
  await page.getByRole("dialog", { name: "Revoke Test app?" }).getByRole("button", { name: "Revoke" }).click();
  await expect(apps.getByRole("table")).toHaveCount(0);
  await expect(apps).toContainText("asks to connect");
  expect((await toolsWith(server, FOLDER, tokens.access_token)).status).toBe(401);
});

test("Only let it read gives a token without the write tools", async ({ authed: page, server }) => {
  const flow = await startFlow(page, server, callback);
  await page.getByRole("checkbox", { name: "Only let it read" }).check();
  await expect(page.getByText("Read", { exact: true })).toBeVisible();

  const back = await answer(page, flow, "Allow");
  const tokens = await exchange(server, flow, back.get("code")!);
  expect(tokens.scope.split(" ")).not.toContain("write");

  const tools = await toolsWith(server, FOLDER, tokens.access_token);
  expect(tools.status).toBe(200);
  expect(tools.tools).toContain("ragdown_recall");
  for (const write of ["ragdown_write", "ragdown_edit", "ragdown_move", "ragdown_delete", "ragdown_remember"]) expect(tools.tools).not.toContain(write);

  await page.goto("/settings?tab=access");
  const row = page.getByRole("region", { name: "Apps connected with OAuth" }).getByRole("row", { name: /Test app/ });
  await expect(row).toContainText("Read");
  await expect(row).not.toContainText("Read + write");
});

test("Deny sends access_denied back to the app with its state and the issuer, and connects nothing", async ({ authed: page, server }) => {
  const flow = await startFlow(page, server, callback);
  const back = await answer(page, flow, "Deny");
  expect(back.get("error")).toBe("access_denied");
  expect(back.get("state")).toBe("xyz");
  expect(back.get("iss")).toBe(server.url);
  expect(back.get("code")).toBeNull();
  expect(await server.api("GET", "/api/access/grants")).toEqual([]);

  // The answered request, opened again: expired, nothing to press.
  await page.goBack();
  await expect(page.getByRole("alert")).toHaveText(/^This request has expired or was already answered; start connecting again from the app/);
  await expect(page.getByRole("button", { name: "Allow" })).toHaveCount(0);
});

test("a browser without the owner's token is asked for it first, then shown the request", async ({ page, server }) => {
  await startFlow(page, server, callback, async () => {
    await expect(page.getByRole("heading", { name: "Token required" })).toBeVisible();
    await page.getByLabel("Bearer token").fill(server.token);
    await page.getByRole("button", { name: "Unlock" }).click();
  });
  await expect(page.getByTestId("redirect-host")).toHaveText("127.0.0.1");
});
