// The web UI's import rules (docs/architecture.md, "Layers and the rules the test command keeps"):
// no import circle, and a module imports only from lower layers. The layers are read from that
// page's "Layers of `web/src`" table, so the page and the check cannot drift apart.
const fs = require("node:fs");
const path = require("node:path");

function layers() {
  const doc = fs.readFileSync(path.join(__dirname, "..", "docs", "architecture.md"), "utf8");
  const out = [];
  let inTable = false;
  for (const line of doc.split("\n")) {
    if (/^#{2,4}\s+Layers of `web\/src`/.test(line)) inTable = true;
    else if (line.startsWith("#")) inTable = false;
    else if (inTable) {
      const row = /^\|\s*(\d+)\s*\|([^|]*)\|/.exec(line);
      if (!row) continue;
      for (const [, name] of row[2].matchAll(/`([^`]+)`/g)) out.push({ layer: Number(row[1]), name });
    }
  }
  if (out.length === 0) throw new Error("docs/architecture.md has no \"Layers of `web/src`\" table");
  return out;
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// A module is a folder of src/ (every file under it) or a file directly in src/.
const pattern = (name) => `^src/${escape(name)}${name.includes(".") ? "$" : "/"}`;

const table = layers();
const layerRules = table.map(({ layer, name }) => ({
  name: `layer-${name}`,
  comment: `${name} (layer ${layer}) imports only from lower layers`,
  severity: "error",
  from: { path: pattern(name), pathNot: "\\.test\\.tsx?$" },
  to: {
    path: table
      .filter((other) => other.layer >= layer && other.name !== name)
      .map((other) => pattern(other.name))
      .join("|") || "^$",
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "modules that import each other in a loop are one module in two files",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "every-module-has-a-layer",
      comment: "a folder or file of src/ not in docs/architecture.md's web table",
      severity: "error",
      from: { path: "^src/", pathNot: [...table.map((t) => pattern(t.name)), "\\.d\\.ts$", "\\.css$"] },
      to: {},
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist)/|\\.d\\.ts$" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
  },
};
