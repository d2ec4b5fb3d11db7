/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import tailwindcss from "@tailwindcss/vite";

// `npm run dev` proxies the API, MCP and OAuth's server routes to a `ragdownd serve` on port 3000
// (PORT overrides); `/oauth/consent/...` is the app's own page.
const backend = `http://127.0.0.1:${process.env.RAGDOWN_PORT ?? "3000"}`;

export default defineConfig({
  plugins: [react(), tailwindcss()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // The editor is its own chunk, loaded when a document is edited: the first page stays small.
    chunkSizeWarningLimit: 600,
  },
  server: {
    proxy: {
      "/api": backend,
      "/mcp": backend,
      "/.well-known": backend,
      "^/oauth/(authorize|token|register|revoke)": backend,
    },
  },
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    environment: "jsdom",
  },
});
