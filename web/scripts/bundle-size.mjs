// Measures the initial page's JavaScript (the entry script and what index.html preloads), gzipped,
// writes dist/bundle-size.json and fails the build past the budget (250 KB gzipped).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join } from "node:path";

const BUDGET = 250 * 1024;
const dist = process.env.DIST ?? new URL("../dist/", import.meta.url).pathname;
const html = readFileSync(join(dist, "index.html"), "utf8");
const scripts = [...html.matchAll(/<(?:script[^>]*\bsrc|link[^>]*rel="modulepreload"[^>]*\bhref)="\/?([^"]+\.js)"/g)].map((m) => m[1]);
const css = [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="\/?([^"]+\.css)"/g)].map((m) => m[1]);
const measure = (files) =>
  files.map((file) => {
    const bytes = readFileSync(join(dist, file));
    return { file, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
const js = measure(scripts);
const styles = measure(css);
const total = js.reduce((n, f) => n + f.gzip, 0);
// The chunks loaded later (the editor, the Markdown renderer, Settings...), largest first.
const lazy = measure(
  readdirSync(join(dist, "assets"))
    .filter((f) => f.endsWith(".js") && !scripts.includes(`assets/${f}`))
    .map((f) => `assets/${f}`),
)
  .sort((a, b) => b.gzip - a.gzip)
  .slice(0, 6);
const report = { command: "cd web && npm run build", date: new Date().toISOString(), initial_js_gzip: total, budget: BUDGET, js, css: styles, largest_lazy_chunks: lazy };
writeFileSync(join(dist, "bundle-size.json"), JSON.stringify(report, null, 2) + "\n");
console.log(`initial JavaScript: ${(total / 1024).toFixed(1)} KB gzipped (budget ${BUDGET / 1024} KB)`);
for (const f of [...js, ...styles, ...lazy]) console.log(`  ${f.file}: ${(f.bytes / 1024).toFixed(1)} KB, ${(f.gzip / 1024).toFixed(1)} KB gzipped`);
if (total > BUDGET) {
  console.error(`the initial page's JavaScript is over budget: ${total} > ${BUDGET} bytes gzipped`);
  process.exit(1);
}
