// End-to-end tests in a real Chromium against a real `ragdownd serve` (see e2e/fixtures.ts).
// Playwright's own browser download cannot work here: it drives the system's Chromium
// (Debian's `chromium` package; CHROMIUM overrides the path), with --no-sandbox when run as root.
import { defineConfig } from "@playwright/test";

const chromium = process.env.CHROMIUM ?? "/usr/bin/chromium";
const root = typeof process.getuid === "function" && process.getuid() === 0;

export default defineConfig({
  testDir: "e2e",
  // Several runs at once (one per engineer) each want their own: E2E_OUTPUT names it.
  outputDir: process.env.E2E_OUTPUT ?? "test-results",
  fullyParallel: true,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  timeout: 45_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"]] : [["list"]],
  use: {
    browserName: "chromium",
    viewport: { width: 1360, height: 860 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: { executablePath: chromium, args: root ? ["--no-sandbox"] : [] },
  },
});
