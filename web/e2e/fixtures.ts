// The e2e fixtures: each test gets its own `ragdownd serve` on a fresh copy of examples/vault
// (hash embedder, so no model is needed; a token, so the gate is real), and a `page` whose
// base URL is that server. `authed` pages have the token in local storage already.
import { test as base, expect, type Page } from "@playwright/test";
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, homedir } from "node:os";
import { join, resolve } from "node:path";

const REPO = resolve(import.meta.dirname, "../..");
const TARGET = process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/ragdown/target");
const BINARY = process.env.RAGDOWND ?? join(TARGET, "debug/ragdownd");
export const TOKEN = "e2e-token-0123456789";

export interface Server {
  url: string;
  token: string;
  /** The docs directory (a copy of examples/vault): read and write files here to check the disk. */
  docs: string;
  /** Calls the API with the token; returns the parsed JSON (throws on non-2xx). */
  api: <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;
  read: (relative: string) => string;
  write: (relative: string, text: string) => void;
  exists: (relative: string) => boolean;
  log: () => string;
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      const port = typeof address === "object" && address ? address.port : 0;
      s.close(() => ok(port));
    });
    s.on("error", fail);
  });
}

/** Why a start is tried again: another process took the free port between `freePort` and bind. */
const PORT_TAKEN = "Address already in use";

async function start(env: Record<string, string>): Promise<{ server: Server; child: ChildProcess; dir: string }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env);
    } catch (err) {
      if (attempt >= 5 || !String(err).includes(PORT_TAKEN)) throw err;
    }
  }
}

async function startOnce(env: Record<string, string>): Promise<{ server: Server; child: ChildProcess; dir: string }> {
  if (!existsSync(BINARY)) throw new Error(`no ragdownd at ${BINARY}: cargo build -p ragdownd first (or set RAGDOWND)`);
  const dir = mkdtempSync(join(tmpdir(), "ragdown-e2e-"));
  const docs = join(dir, "docs");
  cpSync(join(REPO, "examples/vault"), docs, { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = "";
  const child = spawn(BINARY, ["serve"], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: dir,
      RAGDOWN_DOCS_DIR: docs,
      RAGDOWN_DATA_DIR: join(dir, "data"),
      RAGDOWN_CACHE: join(dir, "cache"),
      RAGDOWN_EMBEDDER: "hash",
      RAGDOWN_TOKEN: TOKEN,
      RAGDOWN_HOST: "127.0.0.1",
      PORT: String(port),
      RAGDOWN_LOG: "warn",
      // This checkout's web/dist, unless told otherwise: a debug binary would serve the web/dist
      // of the checkout it was compiled in, which with a shared target dir may be another clone.
      RAGDOWN_WEB_DIR: process.env.RAGDOWN_WEB_DIR ?? join(REPO, "web/dist"),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const api = async <T,>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(url + path, {
      method,
      headers: { Authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const deadline = Date.now() + 30_000;
  // The server may report the docs dir by its real path (a symlinked temp dir).
  const realDocs = realpathSync(docs);
  for (;;) {
    try {
      const status = await api<{ ready: boolean; syncing?: boolean; docs_dir?: string }>("GET", "/api/status");
      // Only this server's answer counts, not another test's on a port this one failed to take.
      const ours = status.docs_dir === docs || status.docs_dir === realDocs;
      if (ours && status.ready && !status.syncing) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`ragdownd exited: ${output}`);
    }
    if (Date.now() > deadline) throw new Error(`ragdownd not ready in 30 s: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const server: Server = {
    url,
    token: TOKEN,
    docs,
    api,
    read: (p) => readFileSync(join(docs, p), "utf8"),
    write: (p, text) => writeFileSync(join(docs, p), text),
    exists: (p) => existsSync(join(docs, p)),
    log: () => output,
  };
  return { server, child, dir };
}

/** Puts the token in local storage before the app loads, as if the user had unlocked before. */
export async function rememberToken(page: Page): Promise<void> {
  await page.addInitScript((token) => localStorage.setItem("ragdown.token", token), TOKEN);
}

export const test = base.extend<{ serverEnv: Record<string, string>; server: Server; authed: Page }>({
  serverEnv: [{}, { option: true }],
  server: async ({ serverEnv }, use) => {
    const { server, child, dir } = await start(serverEnv);
    await use(server);
    child.kill("SIGTERM");
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
    rmSync(dir, { recursive: true, force: true });
  },
  baseURL: async ({ server }, use) => use(server.url),
  authed: async ({ page }, use) => {
    await rememberToken(page);
    await use(page);
  },
});

export { expect };
